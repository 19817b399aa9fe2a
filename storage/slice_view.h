#pragma once

// Between rocksdb::Slice and std::string_view, which name the same bytes.

#include <rocksdb/slice.h>

#include <string_view>

namespace sluice::storage {

inline std::string_view View(const rocksdb::Slice& s) { return {s.data(), s.size()}; }
inline rocksdb::Slice ToSlice(std::string_view s) { return {s.data(), s.size()}; }

}  // namespace sluice::storage
