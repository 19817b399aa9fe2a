#pragma once

// Error texts shared by the parser, the dispatcher and the command handlers, byte-identical to
// Redis 7.0 (server.c createSharedObjects/processCommand, networking.c, t_*.c). Each is the text
// after the prefix; the prefix comes from the Status code (resp/error_prefix.h), shown here in
// the comments. Texts that embed user input are functions.

#include <span>
#include <string>
#include <string_view>

namespace sluice::resp {

// ERR
inline constexpr std::string_view kSyntaxError = "syntax error";
inline constexpr std::string_view kNotInteger = "value is not an integer or out of range";
inline constexpr std::string_view kNotFloat = "value is not a valid float";
inline constexpr std::string_view kOverflow = "increment or decrement would overflow";
inline constexpr std::string_view kIncrNaN = "increment would produce NaN or Infinity";
inline constexpr std::string_view kNotPositive = "value is out of range, must be positive";
inline constexpr std::string_view kHashNotInteger = "hash value is not an integer";
inline constexpr std::string_view kHashNotFloat = "hash value is not a float";
inline constexpr std::string_view kMinMaxNotFloat = "min or max is not a float";
inline constexpr std::string_view kNoSuchKey = "no such key";
inline constexpr std::string_view kIndexOutOfRange = "index out of range";
inline constexpr std::string_view kDbIndexOutOfRange = "DB index is out of range";
inline constexpr std::string_view kSameObject = "source and destination objects are the same";
inline constexpr std::string_view kInvalidCursor = "invalid cursor";
inline constexpr std::string_view kExecWithoutMulti = "EXEC without MULTI";
inline constexpr std::string_view kDiscardWithoutMulti = "DISCARD without MULTI";
inline constexpr std::string_view kMultiNested = "MULTI calls can not be nested";
inline constexpr std::string_view kNotInMulti = "Command not allowed inside a transaction";
inline constexpr std::string_view kWatchInsideMulti = "WATCH inside MULTI is not allowed";
inline constexpr std::string_view kMaxClients = "max number of clients reached";
inline constexpr std::string_view kAuthNotConfigured =
    "AUTH <password> called without any password configured for the default user. "
    "Are you sure your configuration is correct?";

// WRONGTYPE
inline constexpr std::string_view kWrongTypeMsg =
    "Operation against a key holding the wrong kind of value";
// NOAUTH
inline constexpr std::string_view kNoAuthMsg = "Authentication required.";
// sluice's MISCONF: RocksDB cannot write (disk full, read-only file system, I/O error).
inline constexpr std::string_view kMisconfMsg =
    "Errors writing to the RocksDB write-ahead log or data files: commands that may modify the "
    "data set are disabled until the disk recovers.";
// WRONGPASS
inline constexpr std::string_view kWrongPassMsg =
    "invalid username-password pair or user is disabled.";
// NOSCRIPT
inline constexpr std::string_view kNoScriptMsg = "No matching script. Please use EVAL.";
// BUSY
inline constexpr std::string_view kBusyMsg =
    "Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
// BUSY while a function runs (FCALL), and SCRIPT KILL's answer then.
inline constexpr std::string_view kBusyFunctionMsg =
    "Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";
// NOTBUSY
inline constexpr std::string_view kNotBusyMsg = "No scripts in execution right now.";
// CLIENT UNBLOCK id ERROR: the unblocked client's reply, its own prefix included (kRaw).
inline constexpr std::string_view kUnblockedMsg = "UNBLOCKED client unblocked via CLIENT UNBLOCK";
// UNKILLABLE
inline constexpr std::string_view kUnkillableMsg =
    "Sorry the script already executed write commands against the dataset. You can either wait "
    "the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.";
// ERR, bitmaps (bitops.c): SETBIT, GETBIT, BITPOS, BITOP, BITFIELD.
inline constexpr std::string_view kBitOffsetInvalid =
    "bit offset is not an integer or out of range";
inline constexpr std::string_view kBitValueInvalid = "bit is not an integer or out of range";
inline constexpr std::string_view kBitArgumentNotBinary = "The bit argument must be 1 or 0.";
inline constexpr std::string_view kBitOpNotOneSource =
    "BITOP NOT must be called with a single source key.";
inline constexpr std::string_view kBitfieldTypeInvalid =
    "Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.";
inline constexpr std::string_view kBitfieldOverflowInvalid = "Invalid OVERFLOW type specified";
inline constexpr std::string_view kBitfieldRoGetOnly =
    "BITFIELD_RO only supports the GET subcommand";
// HyperLogLogs (hyperloglog.c). WRONGTYPE: a string that is not an HLL; INVALIDOBJ (its own
// code, Code::kRaw): an HLL whose registers are corrupt; ERR: PFDEBUG's.
inline constexpr std::string_view kHllWrongType = "Key is not a valid HyperLogLog string value.";
inline constexpr std::string_view kHllCorrupt = "INVALIDOBJ Corrupted HLL object detected";
inline constexpr std::string_view kHllNoSuchKey = "The specified key does not exist";
inline constexpr std::string_view kHllNotSparse = "HLL encoding is not sparse";
// ERR, scripting (eval.c, script.c): EVAL's arguments, and redis.call's gates. The gates'
// texts reach the script as its error (Redis adds the ERR code the same way).
inline constexpr std::string_view kNumKeysTooMany =
    "Number of keys can't be greater than number of args";  // EVAL's, SINTERCARD's
// LMPOP's, ZMPOP's, SINTERCARD's and their kin's key count below 1.
inline constexpr std::string_view kNumKeysNotPositive = "numkeys should be greater than 0";
inline constexpr std::string_view kScriptNegativeKeys = "Number of keys can't be negative";
inline constexpr std::string_view kScriptWriteFlagUnderRo =
    "Can not execute a script with write flag using *_ro command.";
inline constexpr std::string_view kScriptFlushOption = "SCRIPT FLUSH only support SYNC|ASYNC option";
inline constexpr std::string_view kScriptUnknownCommand = "Unknown Redis command called from script";
inline constexpr std::string_view kScriptWrongArity =
    "Wrong number of args calling Redis command from script";
inline constexpr std::string_view kScriptNoScriptCommand =
    "This Redis command is not allowed from script";
inline constexpr std::string_view kScriptWriteInReadOnly =
    "Write commands are not allowed from read-only scripts.";
// EXECABORT
inline constexpr std::string_view kExecAbortMsg =
    "Transaction discarded because of previous errors.";
// HELLO with an unknown version: Redis sends this whole line, so it goes out as Code::kRaw.
inline constexpr std::string_view kNoProtoLine = "NOPROTO unsupported protocol version";

// ERR, from the request parser; the connection is closed after any of them.
inline constexpr std::string_view kProtoTooBigInline = "Protocol error: too big inline request";
inline constexpr std::string_view kProtoTooBigMbulkCount =
    "Protocol error: too big mbulk count string";
inline constexpr std::string_view kProtoTooBigBulkCount =
    "Protocol error: too big bulk count string";
inline constexpr std::string_view kProtoUnbalancedQuotes =
    "Protocol error: unbalanced quotes in request";
inline constexpr std::string_view kProtoInvalidMultibulkLen =
    "Protocol error: invalid multibulk length";
inline constexpr std::string_view kProtoInvalidBulkLen = "Protocol error: invalid bulk length";
inline constexpr std::string_view kProtoUnauthMultibulkLen =
    "Protocol error: unauthenticated multibulk length";
inline constexpr std::string_view kProtoUnauthBulkLen =
    "Protocol error: unauthenticated bulk length";
// "Protocol error: expected '$', got 'X'"
std::string ProtoExpectedDollar(char got);

// What Redis prints of an argument through "%s" in an error text: the bytes before its first
// NUL ("Unsupported option a" for "a\0z").
std::string_view CString(std::string_view s);

// "wrong number of arguments for 'get' command"; pass Redis's full name, lower case, with '|'
// for subcommands ("client|setname"), as Redis 7.0 prints cmd->fullname.
std::string WrongArity(std::string_view command_fullname);

// "invalid expire time in 'set' command" (same naming rule as WrongArity).
std::string InvalidExpireTime(std::string_view command_fullname);

// "unknown command 'foo', with args beginning with: 'a' 'b' ": the name cut to 128 bytes, then
// arguments appended while the list is under 128 bytes, each cut to what is left of those 128.
// Like Redis's %s, each text also ends at its first NUL byte.
std::string UnknownCommand(std::string_view name, std::span<const std::string_view> args);

// "unknown subcommand 'foo'. Try CLIENT HELP." for a container command without that subcommand;
// `command` is upper-cased here, as Redis does with argv[0].
std::string UnknownSubcommand(std::string_view subcommand, std::string_view command);

// "unknown subcommand or wrong number of arguments for 'foo'. Try CLIENT HELP."
// (Redis's addReplySubcommandSyntaxError).
std::string SubcommandSyntaxError(std::string_view subcommand, std::string_view command);

}  // namespace sluice::resp
