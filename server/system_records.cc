#include "server/system_records.h"

namespace sluice::server {

std::string SystemRecords::Key(std::string_view name) const {
  std::string key(prefix_);
  key += name;
  return key;
}

void SystemRecords::Put(std::string_view name, std::string_view value) {
  engine_.PutSubEntry(storage::SubFamily::kSystem, Key(name), value);
}

void SystemRecords::Erase(std::string_view name) {
  engine_.DeleteSubEntry(storage::SubFamily::kSystem, Key(name));
}

StatusOr<std::vector<SystemRecords::Record>> SystemRecords::ReadAll() const {
  std::vector<Record> records;
  auto it = engine_.NewSubEntryIterator(storage::SubFamily::kSystem, prefix_);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    records.emplace_back(it->key().substr(prefix_.size()), it->value());
  }
  if (!it->status().ok()) return it->status();
  return records;
}

}  // namespace sluice::server
