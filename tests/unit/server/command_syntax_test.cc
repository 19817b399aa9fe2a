// The command syntax notation (server/command_syntax.h): each construct gives the argument
// tree Redis 7.0's COMMAND DOCS shows for the commands written with it.

#include "server/command_syntax.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace sluice::server {
namespace {

std::vector<DocArg> Parsed(std::string_view syntax) {
  StatusOr<std::vector<DocArg>> args = ParseCommandSyntax(syntax);
  EXPECT_TRUE(args.ok()) << args.status().message();
  return args.ok() ? *args : std::vector<DocArg>{};
}

// One line per argument: "name type [ksi] [token] [flags] { children }".
std::string Describe(const std::vector<DocArg>& args) {
  std::string out;
  for (const DocArg& arg : args) {
    if (!out.empty()) out += "; ";
    out += arg.name + " " + std::string(DocArgTypeName(arg.type));
    if (arg.key_spec_index >= 0) out += " @" + std::to_string(arg.key_spec_index);
    if (arg.token) out += " token=" + *arg.token;
    if (arg.optional) out += " optional";
    if (arg.multiple) out += " multiple";
    if (arg.multiple_token) out += " multiple_token";
    if (!arg.arguments.empty()) out += " {" + Describe(arg.arguments) + "}";
  }
  return out;
}

TEST(CommandSyntax, EmptyMeansNoArguments) { EXPECT_TRUE(Parsed("").empty()); }

TEST(CommandSyntax, SetAsRedisDocumentsIt) {
  EXPECT_EQ(Describe(Parsed("key:key value [NX|XX]#condition [GET] [EX seconds:integer|PX "
                            "milliseconds:integer|EXAT unix-time-seconds:unix-time|KEEPTTL]"
                            "#expiration")),
            "key key @0; value string; "
            "condition oneof optional {nx pure-token token=NX; xx pure-token token=XX}; "
            "get pure-token token=GET optional; "
            "expiration oneof optional {seconds integer token=EX; milliseconds integer token=PX; "
            "unix-time-seconds unix-time token=EXAT; keepttl pure-token token=KEEPTTL}");
}

TEST(CommandSyntax, TypesAndKeySpecIndexes) {
  EXPECT_EQ(Describe(Parsed("source:key destination:key f:double p:pattern ip:port "
                            "[BY by:pattern@1] store:key@5 last:key")),
            "source key @0; destination key @1; f double; p pattern; ip:port string; "
            "by pattern @1 token=BY optional; store key @5; last key @2");
}

TEST(CommandSyntax, RepeatsWithAndWithoutTheirToken) {
  EXPECT_EQ(Describe(Parsed("key:key... [PREFIX prefix...+] [KEYS name...] (field value)#fv...")),
            "key key @0 multiple; prefix string token=PREFIX optional multiple multiple_token; "
            "name string token=KEYS optional multiple; "
            "fv block multiple {field string; value string}");
}

TEST(CommandSyntax, PureTokensWithOtherNamesAndTheEmptyToken) {
  EXPECT_EQ(Describe(Parsed("[CH#change] (key:key|\"\"#empty_string)#key_or_empty")),
            "change pure-token token=CH optional; key_or_empty oneof {key key @0; "
            "empty_string pure-token token=}");
}

TEST(CommandSyntax, ABlockOwnsItsLeadingToken) {
  // Two or more arguments after it, or a #name: the block's token (ZRANGE's LIMIT, CLIENT
  // LIST's ID); one argument alone: that argument's (COUNT count).
  EXPECT_EQ(Describe(Parsed("[LIMIT offset:integer count:integer]#offset_count "
                            "[ID client-id:integer...]#id [COUNT count:integer] "
                            "(STREAMS key:key... id...)")),
            "offset_count block token=LIMIT optional {offset integer; count integer}; "
            "id block token=ID optional {client-id integer multiple}; "
            "count integer token=COUNT optional; "
            "streams block token=STREAMS {key key @0 multiple; id string multiple}");
}

TEST(CommandSyntax, ParenthesesKeepATokenOnItsOwn) {
  // GEORADIUS's COUNT block: the token is its first argument's; REPLICAOF's NO ONE: two
  // pure tokens.
  EXPECT_EQ(Describe(Parsed("[(COUNT count:integer) [ANY]]#count ((NO) ONE)#no-one")),
            "count block optional {count integer token=COUNT; any pure-token token=ANY "
            "optional}; no-one block {no pure-token token=NO; one pure-token token=ONE}");
}

TEST(CommandSyntax, ATokenBeforeAOneofNamesIt) {
  EXPECT_EQ(Describe(Parsed("[FILTERBY (MODULE module-name|PATTERN pattern:pattern)]")),
            "filterby oneof token=FILTERBY optional {module-name string token=MODULE; "
            "pattern pattern token=PATTERN}");
  EXPECT_EQ(Describe(Parsed("[TYPE (NORMAL|PUBSUB)#kind] (A|(B b)#bb)#pick")),
            "kind oneof token=TYPE optional {normal pure-token token=NORMAL; pubsub pure-token "
            "token=PUBSUB}; pick oneof {a pure-token token=A; bb block token=B {b string}}");
}

TEST(CommandSyntax, RefusesWhatItCannotName) {
  for (std::string_view bad : {"[NX|XX", "key]", "(a b)", "[a|b]", "(a b|c)#x", "[]#x",
                               "key:key#label", "k@x", "\"\" GET", "A TOK (B b)"}) {
    EXPECT_FALSE(ParseCommandSyntax(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace sluice::server
