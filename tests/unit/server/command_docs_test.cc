// COMMAND DOCS' tables (server/command_docs.h): every entry parses, has a summary and a since,
// and every command and subcommand sluice registers has exactly one entry.

#include "server/command_docs.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "server/command_table.h"
#include "server/commands/commands.h"

namespace sluice::server {
namespace {

std::set<std::string> DocumentedNames() {
  std::set<std::string> names;
  for (auto table : {DataCommandDocs(), ServerCommandDocs(), LimiterCommandDocs()}) {
    for (const CommandDocEntry& entry : table) {
      EXPECT_TRUE(names.emplace(entry.name).second) << "twice: " << entry.name;
      EXPECT_FALSE(entry.summary.empty()) << entry.name;
      EXPECT_TRUE(entry.summary.ends_with(".")) << entry.name;
      EXPECT_FALSE(entry.since.empty()) << entry.name;
      StatusOr<std::vector<DocArg>> args = ParseCommandSyntax(entry.syntax);
      EXPECT_TRUE(args.ok()) << args.status().message();
    }
  }
  return names;
}

TEST(CommandDocs, EveryRegisteredCommandAndSubcommandIsDocumented) {
  CommandTable table;
  RegisterAllCommands(table);
  std::set<std::string> registered;
  for (const CommandSpec* spec : table.All()) {
    registered.insert(FullName(*spec, nullptr));
    for (const Subcommand& sub : spec->subcommands) registered.insert(FullName(*spec, &sub));
  }
  const std::set<std::string> documented = DocumentedNames();
  for (const std::string& name : registered) EXPECT_TRUE(documented.contains(name)) << name;
  for (const std::string& name : documented) EXPECT_TRUE(registered.contains(name)) << name;
}

TEST(CommandDocs, FindsParsedDocsByFullName) {
  const CommandDoc* set = FindCommandDoc("set");
  ASSERT_NE(set, nullptr);
  EXPECT_EQ(set->since, "1.0.0");
  ASSERT_EQ(set->arguments.size(), 5u);
  EXPECT_EQ(set->arguments[4].name, "expiration");
  EXPECT_EQ(set->arguments[4].arguments.size(), 5u);
  const CommandDoc* kill = FindCommandDoc("client|kill");
  ASSERT_NE(kill, nullptr);
  EXPECT_FALSE(kill->arguments.empty());
  const CommandDoc* take = FindCommandDoc("rl.take");
  ASSERT_NE(take, nullptr);
  EXPECT_EQ(take->arguments.front().type, DocArgType::kKey);
  EXPECT_EQ(FindCommandDoc("nosuch"), nullptr);
}

}  // namespace
}  // namespace sluice::server
