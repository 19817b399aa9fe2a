// The one Code -> RESP prefix mapping, the error line, and the shared message texts (compared
// with redis-server 7.0.15's replies).

#include "resp/error_prefix.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "resp/error_messages.h"

namespace sluice::resp {
namespace {

TEST(ErrorPrefixTest, EveryCode) {
  EXPECT_EQ(ErrorPrefix(Code::kErr), "ERR");
  EXPECT_EQ(ErrorPrefix(Code::kSyntax), "ERR");
  EXPECT_EQ(ErrorPrefix(Code::kIo), "ERR");
  EXPECT_EQ(ErrorPrefix(Code::kProtocol), "ERR");
  EXPECT_EQ(ErrorPrefix(Code::kWrongType), "WRONGTYPE");
  EXPECT_EQ(ErrorPrefix(Code::kNoScript), "NOSCRIPT");
  EXPECT_EQ(ErrorPrefix(Code::kBusy), "BUSY");
  EXPECT_EQ(ErrorPrefix(Code::kNoAuth), "NOAUTH");
  EXPECT_EQ(ErrorPrefix(Code::kWrongPass), "WRONGPASS");
  EXPECT_EQ(ErrorPrefix(Code::kNoPerm), "NOPERM");
  EXPECT_EQ(ErrorPrefix(Code::kExecAbort), "EXECABORT");
  EXPECT_EQ(ErrorPrefix(Code::kMisconf), "MISCONF");
  EXPECT_EQ(ErrorPrefix(Code::kUnkillable), "UNKILLABLE");
  EXPECT_EQ(ErrorPrefix(Code::kNotBusy), "NOTBUSY");
  EXPECT_EQ(ErrorPrefix(Code::kRaw), "");
  EXPECT_EQ(ErrorPrefix(Code::kOk), "ERR");  // a bug upstream, but the reply stays valid
}

TEST(ErrorPrefixTest, ErrorLine) {
  EXPECT_EQ(ErrorLine(Status(Code::kSyntax, "")), "ERR syntax error");
  EXPECT_EQ(ErrorLine(Status(Code::kSyntax, "other text")), "ERR other text");
  EXPECT_EQ(ErrorLine(Err("no such key")), "ERR no such key");
  EXPECT_EQ(ErrorLine(Status(Code::kErr, "")), "ERR");
  EXPECT_EQ(ErrorLine(Status(Code::kBusy, std::string(kBusyMsg))),
            "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN "
            "NOSAVE.");
  EXPECT_EQ(ErrorLine(IoError("disk on fire")), "ERR disk on fire");
  EXPECT_EQ(ErrorLine(Status(Code::kRaw, "MY_CODE text")), "MY_CODE text");
  EXPECT_EQ(ErrorLine(Status(Code::kRaw, std::string(kNoProtoLine))),
            "NOPROTO unsupported protocol version");
}

TEST(ErrorPrefixTest, NewlinesBecomeSpaces) {
  EXPECT_EQ(ErrorLine(Err("a\r\nb\rc\nd")), "ERR a  b c d");
  EXPECT_EQ(ErrorLine(Status(Code::kRaw, "X\ny")), "X y");
  std::string out = "keep\r\n";
  AppendErrorLine(Status(Code::kWrongType, "\na"), &out);
  EXPECT_EQ(out, "keep\r\nWRONGTYPE  a");  // what was there before is untouched
}

TEST(ErrorPrefixTest, NewlinesAtTheEndAreDropped) {
  // Redis trims them (EXPIRE k 1 "x\r\n": "ERR Unsupported option x").
  EXPECT_EQ(ErrorLine(Err("option \r\nx\r\n\n")), "ERR option   x");
  EXPECT_EQ(ErrorLine(Status(Code::kRaw, "X y\r")), "X y");
}

TEST(ErrorMessagesTest, Fixed) {
  EXPECT_EQ(kSyntaxError, "syntax error");
  EXPECT_EQ(kWrongTypeMsg, "Operation against a key holding the wrong kind of value");
  EXPECT_EQ(kNotInteger, "value is not an integer or out of range");
  EXPECT_EQ(kNotFloat, "value is not a valid float");
  EXPECT_EQ(kOverflow, "increment or decrement would overflow");
  EXPECT_EQ(kNoAuthMsg, "Authentication required.");
  EXPECT_EQ(kWrongPassMsg, "invalid username-password pair or user is disabled.");
  EXPECT_EQ(kNoSuchKey, "no such key");
  EXPECT_EQ(kNotBusyMsg, "No scripts in execution right now.");
  EXPECT_EQ(kAuthNotConfigured,
            "AUTH <password> called without any password configured for the default user. Are "
            "you sure your configuration is correct?");
}

TEST(ErrorMessagesTest, WithCommandNames) {
  EXPECT_EQ(WrongArity("get"), "wrong number of arguments for 'get' command");
  EXPECT_EQ(WrongArity("client|setname"), "wrong number of arguments for 'client|setname' command");
  EXPECT_EQ(InvalidExpireTime("set"), "invalid expire time in 'set' command");
  EXPECT_EQ(UnknownSubcommand("nosuch", "client"), "unknown subcommand 'nosuch'. Try CLIENT HELP.");
  EXPECT_EQ(UnknownSubcommand(std::string(200, 's'), "Config"),
            "unknown subcommand '" + std::string(128, 's') + "'. Try CONFIG HELP.");
  EXPECT_EQ(SubcommandSyntaxError("x", "script"),
            "unknown subcommand or wrong number of arguments for 'x'. Try SCRIPT HELP.");
  EXPECT_EQ(ProtoExpectedDollar(':'), "Protocol error: expected '$', got ':'");
}

std::string Unknown(std::string_view name, std::vector<std::string_view> args) {
  return UnknownCommand(name, args);
}

TEST(ErrorMessagesTest, UnknownCommand) {
  EXPECT_EQ(Unknown("foo", {}), "unknown command 'foo', with args beginning with: ");
  EXPECT_EQ(Unknown("foo", {"a", "b"}),
            "unknown command 'foo', with args beginning with: 'a' 'b' ");
  // The argument list stops growing once it reaches 128 bytes; each argument is cut to what is
  // left of them (redis-server 7.0.15 gives exactly these).
  const std::string x(200, 'x');
  EXPECT_EQ(Unknown("foo", {x, "more"}),
            "unknown command 'foo', with args beginning with: '" + std::string(128, 'x') + "' ");
  const std::string x100(100, 'x'), y100(100, 'y');
  EXPECT_EQ(Unknown("foo", {x100, y100, "z"}),
            "unknown command 'foo', with args beginning with: '" + x100 + "' '" +
                std::string(25, 'y') + "' ");
  // The name is cut to 128 bytes; like C strings, texts end at a NUL.
  EXPECT_EQ(Unknown(std::string(300, 'n'), {}),
            "unknown command '" + std::string(128, 'n') + "', with args beginning with: ");
  EXPECT_EQ(Unknown(std::string_view("fo\0o", 4), {std::string_view("a\0b", 3)}),
            "unknown command 'fo', with args beginning with: 'a' ");
  // Newlines are left for the error line to replace.
  EXPECT_EQ(ErrorLine(Err(Unknown("a\r\nb", {"\n"}))),
            "ERR unknown command 'a  b', with args beginning with: ' ' ");
}

}  // namespace
}  // namespace sluice::resp
