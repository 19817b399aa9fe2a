#include "scripting/lua_heap.h"

extern "C" {
#include <lua.h>
}

#include <cstdlib>

namespace sluice::scripting {

void* LuaHeap::Alloc(void* ud, void* ptr, size_t old_size, size_t new_size) {
  auto* heap = static_cast<LuaHeap*>(ud);
  // Lua 5.1 passes old_size 0 whenever ptr is null.
  if (new_size == 0) {
    std::free(ptr);
    heap->used_ -= old_size;
    return nullptr;
  }
  if (heap->enforced_ && heap->limit_ != 0 && new_size > old_size &&
      heap->used_ - old_size + new_size > heap->limit_) {
    return nullptr;
  }
  // Most calls allocate anew (strings, tables): malloc's path is shorter than realloc's.
  void* grown = ptr == nullptr ? std::malloc(new_size) : std::realloc(ptr, new_size);
  if (grown == nullptr) return nullptr;
  heap->used_ = heap->used_ - old_size + new_size;
  return grown;
}

void LuaHeap::CollectUnlimited(lua_State* L) {
  void* ud = nullptr;
  lua_getallocf(L, &ud);
  auto* heap = static_cast<LuaHeap*>(ud);
  const bool enforced = heap->enforced_;
  heap->enforced_ = false;
  lua_gc(L, LUA_GCCOLLECT, 0);
  heap->enforced_ = enforced;
}

}  // namespace sluice::scripting
