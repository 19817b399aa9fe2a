#include "resp/error_messages.h"

#include <initializer_list>

namespace sluice::resp {
namespace {

std::string Upper(std::string_view s) {
  std::string out(CString(s));
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

std::string Concat(std::initializer_list<std::string_view> parts) {
  std::string out;
  size_t total = 0;
  for (std::string_view p : parts) total += p.size();
  out.reserve(total);
  for (std::string_view p : parts) out.append(p);
  return out;
}

}  // namespace

std::string_view CString(std::string_view s) { return s.substr(0, s.find('\0')); }

std::string ProtoExpectedDollar(char got) {
  return Concat({"Protocol error: expected '$', got '", std::string_view(&got, 1), "'"});
}

std::string WrongArity(std::string_view command_fullname) {
  return Concat({"wrong number of arguments for '", command_fullname, "' command"});
}

std::string InvalidExpireTime(std::string_view command_fullname) {
  return Concat({"invalid expire time in '", command_fullname, "' command"});
}

std::string UnknownCommand(std::string_view name, std::span<const std::string_view> args) {
  constexpr size_t kBudget = 128;
  std::string list;
  for (std::string_view arg : args) {
    if (list.size() >= kBudget) break;
    std::string_view shown = CString(arg).substr(0, kBudget - list.size());
    list.push_back('\'');
    list.append(shown);
    list.append("' ");
  }
  return Concat({"unknown command '", CString(name).substr(0, kBudget),
                 "', with args beginning with: ", list});
}

std::string UnknownSubcommand(std::string_view subcommand, std::string_view command) {
  return Concat({"unknown subcommand '", CString(subcommand).substr(0, 128), "'. Try ",
                 Upper(command), " HELP."});
}

std::string SubcommandSyntaxError(std::string_view subcommand, std::string_view command) {
  return Concat({"unknown subcommand or wrong number of arguments for '",
                 CString(subcommand).substr(0, 128), "'. Try ", Upper(command), " HELP."});
}

}  // namespace sluice::resp
