#include "server/function_store.h"

#include <spdlog/spdlog.h>

#include <string>

#include "server/system_records.h"

namespace sluice::server {
namespace {

SystemRecords StoredLibraries(storage::Engine& engine) { return {engine, "function:"}; }

}  // namespace

void StoreLibrary(storage::Engine& engine, const scripting::Library& library) {
  StoredLibraries(engine).Put(library.name, library.code);
}

void EraseStoredLibrary(storage::Engine& engine, std::string_view name) {
  StoredLibraries(engine).Erase(name);
}

Status StoreAllLibraries(storage::Engine& engine, const scripting::FunctionLibraries& libraries) {
  SystemRecords records = StoredLibraries(engine);
  auto stored = records.ReadAll();
  if (!stored.ok()) return stored.status();
  for (const auto& [name, code] : *stored) {
    if (libraries.libraries().count(name) == 0) records.Erase(name);
  }
  for (const auto& [name, library] : libraries.libraries()) records.Put(name, library.code);
  return Status::Ok();
}

Status LoadStoredLibraries(storage::Engine& engine, scripting::FunctionLibraries* libraries) {
  auto stored = StoredLibraries(engine).ReadAll();
  if (!stored.ok()) return stored.status();
  for (const auto& [name, code] : *stored) {
    StatusOr<std::string> loaded = libraries->Load(code, /*replace=*/false);
    if (!loaded.ok()) {
      return Err("stored function library '" + name +
                 "' does not load: " + loaded.status().message());
    }
  }
  if (!stored->empty()) spdlog::info("Loaded {} function libraries", stored->size());
  return Status::Ok();
}

Status ReloadStoredLibraries(storage::Engine& engine, scripting::FunctionLibraries* libraries) {
  libraries->Flush();
  return LoadStoredLibraries(engine, libraries);
}

}  // namespace sluice::server
