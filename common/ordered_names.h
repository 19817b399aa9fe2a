#pragma once

// A small set of names kept in the order they were added, searched linearly: a client's
// pub/sub patterns, which Redis 7.0 keeps in a list (PUNSUBSCRIBE without arguments leaves them
// in the order they were subscribed). The interface is the part of StringSet's the pub/sub
// registry uses.

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice {

class OrderedNames {
 public:
  using const_iterator = std::vector<std::string>::const_iterator;

  const_iterator begin() const { return names_.begin(); }
  const_iterator end() const { return names_.end(); }
  size_t size() const { return names_.size(); }
  bool empty() const { return names_.empty(); }
  void clear() { names_.clear(); }

  const_iterator find(std::string_view name) const {
    return std::find(names_.begin(), names_.end(), name);
  }
  // Adds `name` at the end unless it is there; whether it was added.
  std::pair<const_iterator, bool> emplace(std::string_view name) {
    if (auto it = find(name); it != end()) return {it, false};
    names_.emplace_back(name);
    return {std::prev(names_.end()), true};
  }
  void erase(const_iterator it) { names_.erase(it); }

 private:
  std::vector<std::string> names_;
};

}  // namespace sluice
