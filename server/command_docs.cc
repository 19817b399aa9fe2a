#include "server/command_docs.h"

#include <spdlog/spdlog.h>

#include <string_view>
#include <unordered_map>

namespace sluice::server {
namespace {

using DocMap = std::unordered_map<std::string_view, CommandDoc>;

DocMap BuildDocs() {
  DocMap docs;
  for (auto table : {DataCommandDocs(), ServerCommandDocs(), LimiterCommandDocs()}) {
    for (const CommandDocEntry& entry : table) {
      CommandDoc& doc = docs[entry.name];
      doc.summary = entry.summary;
      doc.since = entry.since;
      StatusOr<std::vector<DocArg>> args = ParseCommandSyntax(entry.syntax);
      if (args.ok()) {
        doc.arguments = std::move(*args);
      } else {  // the unit tests parse every entry; a bad one only loses its arguments
        spdlog::error("{}: {}", entry.name, args.status().message());
      }
    }
  }
  return docs;
}

}  // namespace

const CommandDoc* FindCommandDoc(std::string_view full_name) {
  static const DocMap kDocs = BuildDocs();
  auto it = kDocs.find(full_name);
  return it == kDocs.end() ? nullptr : &it->second;
}

}  // namespace sluice::server
