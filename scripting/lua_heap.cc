#include "scripting/lua_heap.h"

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

}  // namespace sluice::scripting
