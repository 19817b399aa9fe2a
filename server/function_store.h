#pragma once

// Durable function libraries: each one in the storage engine's system family (outside the
// key space, so FLUSHALL keeps it, as Redis keeps functions) as "function:<library>" -> its
// payload. Writes are staged: durable with the command's group commit, before its reply.

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

}  // namespace sluice::server
