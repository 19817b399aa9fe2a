#pragma once

// Durable function libraries: system records (system_records.h; FLUSHALL keeps them, as Redis
// keeps functions), "function:<library>" -> its payload.

#include <string_view>

#include "common/status.h"
#include "scripting/function_libraries.h"
#include "storage/engine.h"

namespace sluice::server {

void StoreLibrary(storage::Engine& engine, const scripting::Library& library);
void EraseStoredLibrary(storage::Engine& engine, std::string_view name);
// After FUNCTION FLUSH or RESTORE: the stored libraries become exactly the loaded ones.
Status StoreAllLibraries(storage::Engine& engine, const scripting::FunctionLibraries& libraries);

// At start: loads every stored library. One that no longer loads stops the start with an
// error naming it: a limiter that silently lost its function would answer every FCALL with
// "Function not found".
Status LoadStoredLibraries(storage::Engine& engine, scripting::FunctionLibraries* libraries);
// After a refused batch that had changed libraries: the loaded ones become the stored ones.
Status ReloadStoredLibraries(storage::Engine& engine, scripting::FunctionLibraries* libraries);

}  // namespace sluice::server
