#include "storage/compaction_filter.h"

#include <rocksdb/snapshot.h>

#include <optional>
#include <string>

#include "storage/key_encoding.h"

namespace sluice::storage {

namespace {

class MetadataFilter final : public rocksdb::CompactionFilter {
 public:
  MetadataFilter(int64_t now_ms, std::optional<ExpiryHold> hold) : now_ms_(now_ms), hold_(hold) {}

  bool Filter(int /*level*/, const rocksdb::Slice& /*key*/, const rocksdb::Slice& value,
              std::string* /*new_value*/, bool* /*value_changed*/) const override {
    try {
      StatusOr<RecordView> record = DecodeRecordView(std::string_view(value.data(), value.size()));
      return record.ok() && IsExpiredAt(*record, now_ms_, hold_);
    } catch (...) {  // the error path allocates; keep the record rather than throw
      return false;
    }
  }
  const char* Name() const override { return "sluice.MetadataFilter"; }

 private:
  int64_t now_ms_;
  std::optional<ExpiryHold> hold_;
};

class SubEntryFilter final : public rocksdb::CompactionFilter {
 public:
  SubEntryFilter(int64_t now_ms, std::shared_ptr<const MetadataSource> source)
      : now_ms_(now_ms), source_(std::move(source)) {}

  bool Filter(int /*level*/, const rocksdb::Slice& key, const rocksdb::Slice& /*value*/,
              std::string* /*new_value*/, bool* /*value_changed*/) const override {
    try {
      StatusOr<SubKeyOwner> owner = DecodeSubKeyOwner(std::string_view(key.data(), key.size()));
      if (!owner.ok()) return false;
      const Owner& state = OwnerOf(owner->user_key, owner->version);
      switch (state.lookup) {
        case MetadataSource::Lookup::kUnknown:
          return false;
        case MetadataSource::Lookup::kMissing:
          return true;
        case MetadataSource::Lookup::kFound:
          return !(IsCompositeType(state.meta.type) || state.meta.payload_outside) ||
                 IsExpiredAt(state.meta, now_ms_);
      }
      return false;
    } catch (...) {  // e.g. bad_alloc: keep the entry, never throw into RocksDB
      return false;
    }
  }
  const char* Name() const override { return "sluice.SubEntryFilter"; }

 private:
  struct Owner {
    MetadataSource::Lookup lookup = MetadataSource::Lookup::kUnknown;
    Metadata meta;
  };

  // Sub-entries arrive in key order, so one key's entries come together: remember the last
  // owner looked up. Failed lookups are not remembered.
  const Owner& OwnerOf(std::string_view user_key, uint64_t version) const {
    if (cached_ && cached_version_ == version && cached_key_ == user_key) return cached_owner_;
    Owner owner;
    owner.lookup = source_->Get(user_key, version, &owner.meta);
    cached_ = owner.lookup != MetadataSource::Lookup::kUnknown;
    cached_key_.assign(user_key);
    cached_version_ = version;
    cached_owner_ = owner;
    return cached_owner_;
  }

  int64_t now_ms_;
  std::shared_ptr<const MetadataSource> source_;
  // A filter instance serves one (sub)compaction on one thread.
  mutable bool cached_ = false;
  mutable std::string cached_key_;
  mutable uint64_t cached_version_ = 0;
  mutable Owner cached_owner_;
};

}  // namespace

void MetadataSource::Attach(rocksdb::DB* db,
                            std::vector<rocksdb::ColumnFamilyHandle*> metadata_families) {
  std::lock_guard lock(mu_);
  db_ = db;
  families_ = std::move(metadata_families);
}

void MetadataSource::Detach() {
  std::lock_guard lock(mu_);
  db_ = nullptr;
  families_.clear();
}

MetadataSource::Lookup MetadataSource::Get(std::string_view user_key, uint64_t version,
                                           Metadata* meta) const {
  std::lock_guard lock(mu_);
  if (db_ == nullptr || families_.empty()) return Lookup::kUnknown;
  // Every family as of one moment: MOVE deletes a key from one database's family and writes it
  // to another's in one batch, and reads of the families at different moments (the destination
  // before the batch, the source after it) would find the owner in neither.
  rocksdb::ReadOptions options;
  std::optional<rocksdb::ManagedSnapshot> snapshot;
  if (families_.size() > 1) {
    snapshot.emplace(db_);
    options.snapshot = snapshot->snapshot();
  }
  for (rocksdb::ColumnFamilyHandle* family : families_) {
    rocksdb::PinnableSlice value;
    rocksdb::Status s =
        db_->Get(options, family, rocksdb::Slice(user_key.data(), user_key.size()), &value);
    if (s.IsNotFound()) continue;
    if (!s.ok()) return Lookup::kUnknown;
    StatusOr<Metadata> decoded = DecodeMetadata(std::string_view(value.data(), value.size()));
    if (!decoded.ok()) return Lookup::kUnknown;
    if (decoded->version != version) continue;
    *meta = *decoded;
    return Lookup::kFound;
  }
  return Lookup::kMissing;
}

std::unique_ptr<rocksdb::CompactionFilter> MetadataFilterFactory::CreateCompactionFilter(
    const rocksdb::CompactionFilter::Context& /*context*/) {
  return std::make_unique<MetadataFilter>(horizon_->NowMillis(*clock_), hold_->Get());
}

std::unique_ptr<rocksdb::CompactionFilter> SubEntryFilterFactory::CreateCompactionFilter(
    const rocksdb::CompactionFilter::Context& /*context*/) {
  return std::make_unique<SubEntryFilter>(horizon_->NowMillis(*clock_), source_);
}

}  // namespace sluice::storage
