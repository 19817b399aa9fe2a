#include "scripting/function_libraries.h"

#include <algorithm>

#include "common/ascii.h"
#include "scripting/library_header.h"

namespace sluice::scripting {

StatusOr<std::string> FunctionLibraries::Load(std::string_view payload, bool replace) {
  StatusOr<LibraryHeader> header = ParseLibraryHeader(payload);
  if (!header.ok()) return header.status();
  const std::string& name = header->name;
  if (!IsValidFunctionName(name)) return Err(std::string(kBadLibraryName));
  if (!EqualsIgnoreCase(header->engine, "lua")) {
    return Err("Engine '" + header->engine + "' not found");
  }
  auto existing = libraries_.find(name);
  if (existing != libraries_.end() && !replace) {
    return Err("Library '" + name + "' already exists");
  }
  StatusOr<std::vector<LibraryFunction>> loaded =
      engine_.LoadLibrary(payload.substr(header->code_start));
  if (!loaded.ok()) return loaded.status();
  std::vector<LibraryFunction> functions = std::move(loaded).value();
  auto refuse = [&](std::string error) -> Status {
    engine_.ReleaseFunctions(functions);
    return Err(std::move(error));
  };
  if (functions.empty()) return refuse("No functions registered");
  for (const LibraryFunction& f : functions) {
    auto other = functions_.find(f.name);
    if (other == functions_.end()) continue;
    const bool replaced =
        existing != libraries_.end() &&
        std::any_of(existing->second.functions.begin(), existing->second.functions.end(),
                    [&](const LibraryFunction& old) { return &old == other->second; });
    if (!replaced) return refuse("Function " + f.name + " already exists");
  }
  if (existing != libraries_.end()) Delete(name);
  std::sort(functions.begin(), functions.end(),
            [](const LibraryFunction& a, const LibraryFunction& b) { return a.name < b.name; });
  Library& library = libraries_[name];
  library = Library{name, std::string(payload), std::move(functions)};
  for (const LibraryFunction& f : library.functions) functions_[f.name] = &f;
  return name;
}

bool FunctionLibraries::Delete(std::string_view name) {
  auto it = libraries_.find(name);
  if (it == libraries_.end()) return false;
  for (const LibraryFunction& f : it->second.functions) functions_.erase(f.name);
  engine_.ReleaseFunctions(it->second.functions);
  libraries_.erase(it);
  return true;
}

void FunctionLibraries::Flush() {
  functions_.clear();
  libraries_.clear();
  engine_.Flush();  // a fresh Lua state: nothing of the old libraries stays in memory
}

Status FunctionLibraries::Restore(std::span<const std::string> payloads, RestorePolicy policy) {
  if (policy == RestorePolicy::kAppend) {
    for (const std::string& payload : payloads) {
      StatusOr<LibraryHeader> header = ParseLibraryHeader(payload);
      if (header.ok() && libraries_.count(header->name) != 0) {
        return Err("Library " + header->name + " already exists");
      }
    }
  }
  std::vector<std::string> before;
  for (const auto& [name, library] : libraries_) before.push_back(library.code);
  if (policy == RestorePolicy::kFlush) Flush();
  for (const std::string& payload : payloads) {
    StatusOr<std::string> loaded = Load(payload, policy == RestorePolicy::kReplace);
    if (loaded.ok()) continue;
    // Back to what was there: those libraries loaded before, so they load again.
    Flush();
    for (const std::string& code : before) (void)Load(code, false);
    return loaded.status();
  }
  return Status::Ok();
}

const LibraryFunction* FunctionLibraries::FindFunction(std::string_view name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : it->second;
}

}  // namespace sluice::scripting
