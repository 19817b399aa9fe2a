#include "storage/background_errors.h"

#include <string>
#include <utility>

namespace sluice::storage {

namespace {

const char* ReasonName(rocksdb::BackgroundErrorReason reason) {
  switch (reason) {
    case rocksdb::BackgroundErrorReason::kFlush:
      return "flush";
    case rocksdb::BackgroundErrorReason::kCompaction:
      return "compaction";
    case rocksdb::BackgroundErrorReason::kWriteCallback:
      return "write";
    case rocksdb::BackgroundErrorReason::kMemTable:
      return "memtable";
    case rocksdb::BackgroundErrorReason::kManifestWrite:
      return "manifest write";
    case rocksdb::BackgroundErrorReason::kFlushNoWAL:
      return "flush";
    case rocksdb::BackgroundErrorReason::kManifestWriteNoWAL:
      return "manifest write";
  }
  return "background work";
}

}  // namespace

void BackgroundErrorListener::OnBackgroundError(rocksdb::BackgroundErrorReason reason,
                                                rocksdb::Status* bg_error) {
  if (bg_error == nullptr || bg_error->ok()) return;
  try {
    std::string text =
        std::string("RocksDB ") + ReasonName(reason) + " failed: " + bg_error->ToString();
    Set(std::move(text));
  } catch (...) {  // never throw into RocksDB
  }
}

void BackgroundErrorListener::OnErrorRecoveryEnd(const rocksdb::BackgroundErrorRecoveryInfo& info) {
  try {
    std::string text;
    if (!info.new_bg_error.ok()) {
      text = "RocksDB recovery failed: " + info.new_bg_error.ToString();
    }
    Set(std::move(text));
  } catch (...) {
  }
}

void BackgroundErrorListener::OnErrorRecoveryBegin(rocksdb::BackgroundErrorReason,
                                                   rocksdb::Status bg_error,
                                                   bool* auto_recovery) {
  bg_error.PermitUncheckedError();
  if (auto_recovery != nullptr) *auto_recovery = false;
}

void BackgroundErrorListener::Clear() { Set(std::string()); }

uint64_t BackgroundErrorListener::Generation() const {
  std::lock_guard<std::mutex> lock(mu_);
  return generation_;
}

void BackgroundErrorListener::ClearIfNoneSince(uint64_t generation) {
  std::lock_guard<std::mutex> lock(mu_);
  if (generation_ != generation) return;
  error_.clear();
  has_error_.store(false, std::memory_order_release);
}

void BackgroundErrorListener::Set(std::string text) {
  std::lock_guard<std::mutex> lock(mu_);
  error_ = std::move(text);
  if (!error_.empty()) ++generation_;
  has_error_.store(!error_.empty(), std::memory_order_release);
}

Status BackgroundErrorListener::Current() const {
  if (!has_error_.load(std::memory_order_acquire)) return Status::Ok();
  std::lock_guard<std::mutex> lock(mu_);
  if (error_.empty()) return Status::Ok();
  return IoError(error_);
}

}  // namespace sluice::storage
