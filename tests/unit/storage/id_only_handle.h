#pragma once

// A column family handle that carries only an id: all that WriteBatch's Put and Delete ask of
// one, so that tests can build batches for families without opening a database.

#include <rocksdb/db.h>

#include <cstdint>
#include <string>

namespace sluice::storage {

class IdOnlyHandle : public rocksdb::ColumnFamilyHandle {
 public:
  explicit IdOnlyHandle(uint32_t id) : id_(id) {}
  const std::string& GetName() const override { return name_; }
  uint32_t GetID() const override { return id_; }
  rocksdb::Status GetDescriptor(rocksdb::ColumnFamilyDescriptor*) override {
    return rocksdb::Status::NotSupported();
  }
  const rocksdb::Comparator* GetComparator() const override {
    return rocksdb::BytewiseComparator();
  }

 private:
  uint32_t id_;
  std::string name_ = "id-only";
};

}  // namespace sluice::storage
