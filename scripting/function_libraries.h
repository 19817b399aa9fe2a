#pragma once

// Redis 7.0's function libraries (FUNCTION LOAD, DELETE, FLUSH, LIST, RESTORE; FCALL's
// lookup), kept in a Lua engine of their own, as Redis keeps them apart from EVAL's scripts:
// SCRIPT FLUSH does not touch them and a function never sees a script's KEYS or ARGV.
// Libraries and their functions are kept sorted by name (Redis lists them in hash order).

#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/ascii.h"
#include "common/status.h"
#include "scripting/engine.h"
#include "scripting/library_function.h"
#include "scripting/script_host.h"

namespace sluice::scripting {

struct Library {
  std::string name;
  std::string code;  // the whole payload, header line included (LIST WITHCODE, DUMP)
  std::vector<LibraryFunction> functions;  // by name
};

// FUNCTION RESTORE's policies.
enum class RestorePolicy { kAppend, kReplace, kFlush };

class FunctionLibraries {
 public:
  using LibraryMap = std::map<std::string, Library, std::less<>>;

  // `random`: math.random's generator, EVAL's (one for the server, as Redis).
  explicit FunctionLibraries(ScriptHost* host,
                             std::shared_ptr<Rand48> random = std::make_shared<Rand48>())
      : engine_(host, std::move(random), ScriptApi::kFunctions) {}

  ScriptEngine& engine() { return engine_; }
  const ScriptEngine& engine() const { return engine_; }

  // FUNCTION LOAD [REPLACE]: the library's name, or Redis's error (header, name, engine,
  // "Library 'x' already exists", compile and registration errors, "No functions
  // registered", "Function f already exists").
  StatusOr<std::string> Load(std::string_view payload, bool replace);
  // FUNCTION DELETE: false if there is no such library.
  bool Delete(std::string_view name);
  // FUNCTION FLUSH: no library left, and a fresh Lua state.
  void Flush();
  // FUNCTION RESTORE: loads every payload or, on the first error (returned), none.
  Status Restore(std::span<const std::string> payloads, RestorePolicy policy);

  const LibraryFunction* FindFunction(std::string_view name) const;
  const LibraryMap& libraries() const { return libraries_; }
  size_t function_count() const { return functions_.size(); }

 private:
  // A library compiled into the engine but not linked (FindFunction does not see it): Redis's
  // header, name and engine errors, "Library 'x' already exists" for a name in
  // `refuse_names_in`, compile errors, "No functions registered".
  StatusOr<Library> Compile(std::string_view payload, const LibraryMap* refuse_names_in);
  // "Function f already exists" for a function of `library` that a linked library other than
  // those `replaced` registered.
  Status CheckFunctionsFree(const Library& library, std::span<const Library* const> replaced) const;
  void Link(Library library);
  Status RestoreFlushing(std::span<const std::string> payloads);

  ScriptEngine engine_;
  LibraryMap libraries_;
  // Every library's, whatever the case of their names, as Redis 7.0's dict of functions
  // (libraries go by their exact names).
  std::map<std::string, const LibraryFunction*, LessIgnoreCase> functions_;
};

}  // namespace sluice::scripting
