#pragma once

// Finds items by name in a list that does not change while it is looked up: by a scan while
// the list is short (a usual RL.TAKE names one to three policies, and a hash map would
// allocate on every call), by a hash map once it is long (a call may name thousands of
// policies on a key holding thousands of states: scans inside loops made that quadratic).

#include <cstddef>
#include <span>
#include <string_view>
#include <unordered_map>

namespace sluice::server {

template <typename Item, typename NameOf>
class NameLookup {
 public:
  static constexpr size_t kScannedUpTo = 16;

  // `name_of(item)` gives a view that lives as long as the item.
  NameLookup(std::span<Item> items, NameOf name_of) : items_(items), name_of_(name_of) {
    if (items.size() <= kScannedUpTo) return;
    first_of_.reserve(items.size());
    for (Item& item : items) first_of_.emplace(name_of_(item), &item);  // keeps the first
  }

  // The first item named `name`; nullptr if none.
  Item* Find(std::string_view name) const {
    if (items_.size() > kScannedUpTo) {
      auto it = first_of_.find(name);
      return it == first_of_.end() ? nullptr : it->second;
    }
    for (Item& item : items_) {
      if (name_of_(item) == name) return &item;
    }
    return nullptr;
  }

 private:
  std::span<Item> items_;
  NameOf name_of_;
  std::unordered_map<std::string_view, Item*> first_of_;
};

}  // namespace sluice::server
