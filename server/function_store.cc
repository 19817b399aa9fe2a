#include "server/function_store.h"

#include <spdlog/spdlog.h>

#include <string>
#include <vector>

namespace sluice::server {
namespace {

constexpr std::string_view kPrefix = "function:";

std::string StoreKey(std::string_view name) { return std::string(kPrefix) + std::string(name); }

}  // namespace

void StoreLibrary(storage::Engine& engine, const scripting::Library& library) {
  engine.PutSubEntry(storage::SubFamily::kSystem, StoreKey(library.name), library.code);
}

void EraseStoredLibrary(storage::Engine& engine, std::string_view name) {
  engine.DeleteSubEntry(storage::SubFamily::kSystem, StoreKey(name));
}

Status StoreAllLibraries(storage::Engine& engine, const scripting::FunctionLibraries& libraries) {
  std::vector<std::string> gone;
  {
    auto it = engine.NewSubEntryIterator(storage::SubFamily::kSystem, kPrefix);
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      std::string_view name = it->key().substr(kPrefix.size());
      if (libraries.libraries().count(name) == 0) gone.emplace_back(name);
    }
    if (!it->status().ok()) return it->status();
  }  // the iterator goes before the writes
  for (const std::string& name : gone) EraseStoredLibrary(engine, name);
  for (const auto& [name, library] : libraries.libraries()) StoreLibrary(engine, library);
  return Status::Ok();
}

Status LoadStoredLibraries(storage::Engine& engine, scripting::FunctionLibraries* libraries) {
  std::vector<std::pair<std::string, std::string>> stored;
  {
    auto it = engine.NewSubEntryIterator(storage::SubFamily::kSystem, kPrefix);
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      stored.emplace_back(it->key().substr(kPrefix.size()), it->value());
    }
    if (!it->status().ok()) return it->status();
  }
  for (const auto& [name, code] : stored) {
    StatusOr<std::string> loaded = libraries->Load(code, /*replace=*/false);
    if (!loaded.ok()) {
      return Err("stored function library '" + name +
                 "' does not load: " + loaded.status().message());
    }
  }
  if (!stored.empty()) spdlog::info("Loaded {} function libraries", stored.size());
  return Status::Ok();
}

}  // namespace sluice::server
