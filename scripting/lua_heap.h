#pragma once

// The Lua allocator: counts every byte of the Lua heap and, while a script compiles or runs,
// refuses growth past `lua-memory-limit` (0 = unlimited). A refused allocation is a Lua
// "not enough memory" error in the script, never a crash. Shrinking never fails, as Lua needs.

#include <cstddef>

namespace sluice::scripting {

class LuaHeap {
 public:
  // A lua_Alloc; `ud` is the LuaHeap.
  static void* Alloc(void* ud, void* ptr, size_t old_size, size_t new_size);

  size_t used() const { return used_; }
  size_t limit() const { return limit_; }
  void set_limit(size_t bytes) { limit_ = bytes; }
  // The engine's own set-up is never limited: only script code is.
  void set_enforced(bool enforced) { enforced_ = enforced; }

 private:
  size_t used_ = 0;
  size_t limit_ = 0;
  bool enforced_ = false;
};

}  // namespace sluice::scripting
