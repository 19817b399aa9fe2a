#pragma once

// The commands a dispatcher found last, by the name as sent (byte for byte, case included), in
// front of the command table: a pipeline mostly repeats one command and a script cycles
// through a few, and a hit skips lowering the name and hashing it. (With room for one, the
// sliding-log script's four calls each missed it, and the table's lookups took 3% of the
// loop.)

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "server/command_table.h"

namespace sluice::server {

class RecentCommands {
 public:
  static constexpr size_t kEntries = 8;

  // The command last added under `name`, or nullptr. The latest added is looked at first.
  const CommandSpec* Find(std::string_view name) const {
    for (size_t back = 1; back <= kEntries; ++back) {
      const Entry& entry = entries_[(next_ + kEntries - back) % kEntries];
      if (entry.spec == nullptr) return nullptr;  // entries fill up from the first
      if (entry.name == name) return entry.spec;
    }
    return nullptr;
  }

  // Remembers `spec` under `name`, in place of the entry added longest ago.
  void Add(std::string_view name, const CommandSpec* spec) {
    Entry& entry = entries_[next_];
    entry.name.assign(name);
    entry.spec = spec;
    next_ = (next_ + 1) % kEntries;
  }

 private:
  struct Entry {
    std::string name;
    const CommandSpec* spec = nullptr;
  };
  std::array<Entry, kEntries> entries_;
  size_t next_ = 0;  // the entry the next Add replaces
};

}  // namespace sluice::server
