#pragma once

// The Lua allocator: counts every byte of the Lua heap and, while a script compiles or runs,
// refuses growth past `lua-memory-limit` (0 = unlimited). A refused allocation is a Lua
// "not enough memory" error in the script, never a crash. Shrinking never fails, as Lua needs.

#include <cstddef>

struct lua_State;

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

  // A full collection of L's heap (a LuaHeap's) that the limit cannot fail: Lua 5.1's
  // collection may allocate while it frees (a smaller string table beside the old one), and
  // a refusal there would raise "not enough memory" from wherever it was called.
  static void CollectUnlimited(lua_State* L);

 private:
  size_t used_ = 0;
  size_t limit_ = 0;
  bool enforced_ = false;
};

}  // namespace sluice::scripting
