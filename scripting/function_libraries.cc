#include "scripting/function_libraries.h"

#include <algorithm>
#include <set>
#include <unordered_set>

#include "common/ascii.h"
#include "scripting/library_header.h"

namespace sluice::scripting {

StatusOr<std::string> FunctionLibraries::Load(std::string_view payload, bool replace) {
  StatusOr<Library> compiled = Compile(payload, replace ? nullptr : &libraries_);
  if (!compiled.ok()) return compiled.status();
  const auto existing = libraries_.find(compiled->name);
  const Library* replaced = existing == libraries_.end() ? nullptr : &existing->second;
  if (Status free = CheckFunctionsFree(*compiled, {&replaced, 1}); !free.ok()) {
    engine_.ReleaseFunctions(compiled->functions);
    return free;
  }
  std::string name = compiled->name;
  if (replaced != nullptr) Delete(name);
  Link(std::move(compiled).value());
  return name;
}

StatusOr<Library> FunctionLibraries::Compile(std::string_view payload,
                                             const LibraryMap* refuse_names_in) {
  StatusOr<LibraryHeader> header = ParseLibraryHeader(payload);
  if (!header.ok()) return header.status();
  std::string& name = header->name;
  if (!IsValidFunctionName(name)) return Err(std::string(kBadLibraryName));
  if (!EqualsIgnoreCase(header->engine, "lua")) {
    return Err("Engine '" + header->engine + "' not found");
  }
  if (refuse_names_in != nullptr && refuse_names_in->count(name) != 0) {
    return Err("Library '" + name + "' already exists");
  }
  StatusOr<std::vector<LibraryFunction>> loaded =
      engine_.LoadLibrary(payload.substr(header->code_start));
  if (!loaded.ok()) return loaded.status();
  std::vector<LibraryFunction> functions = std::move(loaded).value();
  if (functions.empty()) {
    engine_.ReleaseFunctions(functions);
    return Err("No functions registered");
  }
  std::sort(functions.begin(), functions.end(),
            [](const LibraryFunction& a, const LibraryFunction& b) { return a.name < b.name; });
  return Library{std::move(name), std::string(payload), std::move(functions)};
}

Status FunctionLibraries::CheckFunctionsFree(const Library& library,
                                             std::span<const Library* const> replaced) const {
  std::unordered_set<const LibraryFunction*> going;  // a set: REPLACE names them all again
  for (const Library* old : replaced) {
    if (old == nullptr) continue;
    for (const LibraryFunction& g : old->functions) going.insert(&g);
  }
  for (const LibraryFunction& f : library.functions) {
    auto other = functions_.find(f.name);
    if (other != functions_.end() && !going.contains(other->second)) {
      return Err("Function " + f.name + " already exists");
    }
  }
  return Status::Ok();
}

void FunctionLibraries::Link(Library library) {
  Library& linked = libraries_[library.name];
  linked = std::move(library);
  for (const LibraryFunction& f : linked.functions) functions_[f.name] = &f;
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
  if (policy == RestorePolicy::kFlush) return RestoreFlushing(payloads);
  // As Redis 7.0's libraryJoin: the payload is loaded whole, by itself (a library or function
  // twice in it is an error), then joined to the live libraries, REPLACE unlinking the ones
  // of the same names before any function name is compared.
  LibraryMap incoming;
  auto refuse = [&](Status error) {
    for (const auto& [name, library] : incoming) engine_.ReleaseFunctions(library.functions);
    return error;
  };
  std::set<std::string, LessIgnoreCase> incoming_functions;
  for (const std::string& payload : payloads) {
    StatusOr<Library> compiled = Compile(payload, &incoming);
    if (!compiled.ok()) return refuse(compiled.status());
    for (const LibraryFunction& f : compiled->functions) {
      if (!incoming_functions.insert(f.name).second) {
        engine_.ReleaseFunctions(compiled->functions);
        return refuse(Err("Function " + f.name + " already exists"));
      }
    }
    std::string name = compiled->name;
    incoming.emplace(std::move(name), std::move(compiled).value());
  }
  std::vector<const Library*> replaced;
  for (const auto& [name, library] : incoming) {
    auto existing = libraries_.find(name);
    if (existing == libraries_.end()) continue;
    if (policy == RestorePolicy::kAppend) return refuse(Err("Library " + name + " already exists"));
    replaced.push_back(&existing->second);
  }
  for (const auto& [name, library] : incoming) {
    if (Status free = CheckFunctionsFree(library, replaced); !free.ok()) return refuse(free);
  }
  for (const auto& [name, library] : incoming) Delete(name);
  for (auto& [name, library] : incoming) Link(std::move(library));
  return Status::Ok();
}

Status FunctionLibraries::RestoreFlushing(std::span<const std::string> payloads) {
  std::vector<std::string> before;
  for (const auto& [name, library] : libraries_) before.push_back(library.code);
  Flush();
  for (const std::string& payload : payloads) {
    StatusOr<std::string> loaded = Load(payload, /*replace=*/false);
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
