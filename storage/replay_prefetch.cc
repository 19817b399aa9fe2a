#include "storage/replay_prefetch.h"

#include <utility>

#include "storage/slice_view.h"

namespace sluice::storage {
namespace {

// Hands the key of each put to `note(family_id, key)`; lets every other entry through.
template <typename Note>
class PutKeys final : public rocksdb::WriteBatch::Handler {
 public:
  explicit PutKeys(Note note) : note_(std::move(note)) {}

  rocksdb::Status PutCF(uint32_t family_id, const rocksdb::Slice& key,
                        const rocksdb::Slice&) override {
    note_(family_id, View(key));
    return rocksdb::Status::OK();
  }
  rocksdb::Status DeleteCF(uint32_t, const rocksdb::Slice&) override {
    return rocksdb::Status::OK();
  }
  rocksdb::Status SingleDeleteCF(uint32_t, const rocksdb::Slice&) override {
    return rocksdb::Status::OK();
  }
  rocksdb::Status DeleteRangeCF(uint32_t, const rocksdb::Slice&, const rocksdb::Slice&) override {
    return rocksdb::Status::OK();
  }
  rocksdb::Status MergeCF(uint32_t, const rocksdb::Slice&, const rocksdb::Slice&) override {
    return rocksdb::Status::OK();
  }

 private:
  Note note_;
};

}  // namespace

ReplayPrefetch::ReplayPrefetch(const std::vector<rocksdb::ColumnFamilyDescriptor>& families) {
  for (const rocksdb::ColumnFamilyDescriptor& family : families) {
    auto* memtable = dynamic_cast<IndexedSkipListFactory*>(family.options.memtable_factory.get());
    if (memtable != nullptr) by_name_[family.name] = memtable;
  }
}

void ReplayPrefetch::ColumnFamilyLogNumberMap(const std::map<uint32_t, uint64_t>&,
                                              const std::map<std::string, uint32_t>& ids_by_name) {
  spaces_.clear();
  spaces_.reserve(by_name_.size());  // by_family_id_ points into it
  by_family_id_.clear();
  for (const auto& [name, id] : ids_by_name) {
    auto memtable = by_name_.find(name);
    if (memtable == by_name_.end()) continue;
    spaces_.push_back({memtable->second, {}});
    if (by_family_id_.size() <= id) by_family_id_.resize(id + 1, nullptr);
    by_family_id_[id] = &spaces_.back();
  }
}

rocksdb::WalFilter::WalProcessingOption ReplayPrefetch::LogRecordFound(
    unsigned long long, const std::string&, const rocksdb::WriteBatch& batch, rocksdb::WriteBatch*,
    bool* batch_changed) {
  *batch_changed = false;
  PutKeys note([this](uint32_t family_id, std::string_view key) {
    if (family_id < by_family_id_.size() && by_family_id_[family_id] != nullptr) {
      by_family_id_[family_id]->keys.push_back(key);
    }
  });
  // A record it cannot read is the replay's to report.
  if (batch.Iterate(&note).ok()) {
    for (KeySpace& space : spaces_) {
      if (!space.keys.empty()) space.memtable->PrefetchForUpdate(space.keys);
    }
  }
  for (KeySpace& space : spaces_) space.keys.clear();
  return WalProcessingOption::kContinueProcessing;
}

}  // namespace sluice::storage
