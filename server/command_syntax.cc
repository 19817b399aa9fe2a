#include "server/command_syntax.h"

#include <algorithm>
#include <charconv>
#include <utility>

#include "common/ascii.h"

namespace sluice::server {
namespace {

constexpr std::string_view kWordEnds = " []()|#";

struct TypeName {
  DocArgType type;
  std::string_view name;
};

constexpr TypeName kTypeNames[] = {
    {DocArgType::kString, "string"},        {DocArgType::kInteger, "integer"},
    {DocArgType::kDouble, "double"},        {DocArgType::kKey, "key"},
    {DocArgType::kPattern, "pattern"},      {DocArgType::kUnixTime, "unix-time"},
    {DocArgType::kPureToken, "pure-token"}, {DocArgType::kOneof, "oneof"},
    {DocArgType::kBlock, "block"},
};

// A token without a name of its own, or with its #name; or a whole argument.
struct Unit {
  bool bare_token = false;
  std::optional<std::string> label;  // a bare token's #name
  DocArg arg;
};

Unit ArgUnit(DocArg arg) {
  Unit unit;
  unit.arg = std::move(arg);
  return unit;
}

bool IsGroup(const DocArg& arg) {
  return arg.type == DocArgType::kOneof || arg.type == DocArgType::kBlock;
}

// "..." or "...+" at the end of `word`, taken off it: the flags it sets on `arg`.
void ApplyRepeat(std::string_view suffix, DocArg& arg) {
  if (suffix.empty()) return;
  arg.multiple = true;
  if (suffix == "...+") arg.multiple_token = true;
}

// The repeat marks, the longer first.
constexpr std::string_view kRepeatMarks[] = {"...+", "..."};

std::string_view TakeRepeat(std::string_view& word) {
  for (std::string_view suffix : kRepeatMarks) {
    if (word.size() > suffix.size() && word.ends_with(suffix)) {
      word.remove_suffix(suffix.size());
      return suffix;
    }
  }
  return {};
}

bool IsTokenWord(std::string_view word) {
  if (word == "\"\"") return true;
  return !word.ends_with("...") &&
         std::none_of(word.begin(), word.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

class SyntaxParser {
 public:
  explicit SyntaxParser(std::string_view text) : text_(text) {}

  StatusOr<std::vector<DocArg>> Parse() {
    std::vector<Unit> units = Sequence("");
    if (error_.ok() && pos_ < text_.size())
      Fail("unexpected '" + std::string(1, text_[pos_]) + "'");
    std::vector<DocArg> args = Bind(std::move(units));
    if (!error_.ok()) return error_;
    return args;
  }

 private:
  void Fail(std::string what) {
    if (!error_.ok()) return;
    error_ = Err("command syntax: " + what + " at " + std::to_string(pos_) + " in '" +
                 std::string(text_) + "'");
  }

  char Peek() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }

  std::string_view Word() {
    const size_t end = std::min(text_.find_first_of(kWordEnds, pos_), text_.size());
    std::string_view word = text_.substr(pos_, end - pos_);
    pos_ = end;
    return word;
  }

  // "#name" after a token or a group; an empty optional if there is none.
  std::optional<std::string> Label(std::string_view* repeat) {
    if (pos_ >= text_.size() || text_[pos_] != '#') return std::nullopt;
    ++pos_;
    std::string_view name = Word();
    *repeat = TakeRepeat(name);
    if (name.empty()) Fail("empty #name");
    return std::string(name);
  }

  // The units up to one of `stops` (or the end), tokens not yet bound.
  std::vector<Unit> Sequence(std::string_view stops) {
    std::vector<Unit> units;
    while (error_.ok()) {
      const char c = Peek();
      if (c == '\0' || stops.find(c) != std::string_view::npos) break;
      if (c == '[' || c == '(') {
        units.push_back(ArgUnit(Group()));
        continue;
      }
      std::string_view word = Word();
      if (word.empty()) {
        Fail(std::string("unexpected '") + c + "'");
        break;
      }
      if (IsTokenWord(word)) {
        Unit unit;
        unit.bare_token = true;
        unit.arg.token = word == "\"\"" ? std::string() : std::string(word);
        std::string_view repeat;
        unit.label = Label(&repeat);
        if (!repeat.empty()) Fail("a pure token cannot repeat");
        units.push_back(std::move(unit));
      } else {
        units.push_back(ArgUnit(Atom(word)));
      }
    }
    return units;
  }

  DocArg Atom(std::string_view word) {
    DocArg arg;
    ApplyRepeat(TakeRepeat(word), arg);
    if (const size_t at = word.rfind('@'); at != std::string_view::npos) {
      std::string_view digits = word.substr(at + 1);
      auto [end, ec] =
          std::from_chars(digits.data(), digits.data() + digits.size(), arg.key_spec_index);
      if (ec != std::errc() || end != digits.data() + digits.size()) Fail("bad key spec index");
      word = word.substr(0, at);
    }
    if (const size_t colon = word.rfind(':'); colon != std::string_view::npos) {
      std::string_view type = word.substr(colon + 1);
      for (const TypeName& t : kTypeNames) {
        if (t.name == type && t.type <= DocArgType::kUnixTime) {
          arg.type = t.type;
          word = word.substr(0, colon);
          break;
        }
      }
    }
    if (arg.type == DocArgType::kKey && arg.key_spec_index < 0) arg.key_spec_index = next_key_++;
    if (word.empty()) Fail("an argument needs a name");
    if (pos_ < text_.size() && text_[pos_] == '#') Fail("only tokens and groups take a #name");
    arg.name = std::string(word);
    return arg;
  }

  DocArg Group() {
    const char open = text_[pos_++];
    const char close = open == '[' ? ']' : ')';
    const std::string stops{'|', close};
    std::vector<std::vector<Unit>> alternatives;
    alternatives.push_back(Sequence(stops));
    while (error_.ok() && Peek() == '|') {
      ++pos_;
      alternatives.push_back(Sequence(stops));
    }
    DocArg group;
    if (!error_.ok()) return group;
    if (Peek() != close) {
      Fail(std::string("expected '") + close + "'");
      return group;
    }
    ++pos_;
    std::string_view repeat;
    std::optional<std::string> label = Label(&repeat);
    if (repeat.empty()) repeat = TakeGroupRepeat();
    group.optional = open == '[';
    if (alternatives.size() == 1) {
      std::vector<Unit> units = std::move(alternatives.front());
      std::optional<std::string> token;
      if (!units.empty() && units.front().bare_token && !units.front().label &&
          units.size() >= (label ? 2u : 3u)) {
        token = std::move(units.front().arg.token);
        units.erase(units.begin());
      }
      std::vector<DocArg> args = Bind(std::move(units));
      if (args.empty()) {
        Fail("empty group");
        return group;
      }
      if (!label && !token && args.size() == 1) {  // just the argument, optional or repeated
        DocArg arg = std::move(args.front());
        arg.optional = arg.optional || group.optional;
        ApplyRepeat(repeat, arg);
        return arg;
      }
      group.type = DocArgType::kBlock;
      group.name = label ? *label : token ? AsciiLowered(*token) : std::string();
      if (group.name.empty()) Fail("a block needs a #name");
      group.token = std::move(token);
      group.arguments = std::move(args);
    } else {
      group.type = DocArgType::kOneof;
      group.name = label.value_or("");  // or its token's, when one is bound to it
      for (std::vector<Unit>& alternative : alternatives) {
        std::vector<DocArg> args = Bind(std::move(alternative));
        if (args.size() != 1) Fail("each alternative must be one argument");
        if (!args.empty()) group.arguments.push_back(std::move(args.front()));
      }
    }
    ApplyRepeat(repeat, group);
    return group;
  }

  std::string_view TakeGroupRepeat() {
    for (std::string_view suffix : kRepeatMarks) {
      if (text_.substr(pos_).starts_with(suffix)) {
        pos_ += suffix.size();
        return suffix;
      }
    }
    return {};
  }

  // Bare tokens become the tokens of what follows them, or pure tokens.
  std::vector<DocArg> Bind(std::vector<Unit> units) {
    std::vector<DocArg> args;
    for (size_t i = 0; i < units.size(); ++i) {
      Unit& unit = units[i];
      if (!unit.bare_token) {
        args.push_back(std::move(unit.arg));
      } else if (!unit.label && i + 1 < units.size() && !units[i + 1].bare_token) {
        DocArg next = std::move(units[++i].arg);
        if (next.token) Fail("two tokens for one argument");
        if (next.name.empty()) next.name = AsciiLowered(*unit.arg.token);
        next.token = std::move(unit.arg.token);
        args.push_back(std::move(next));
      } else {
        DocArg token = std::move(unit.arg);
        token.type = DocArgType::kPureToken;
        token.name = unit.label ? *unit.label : AsciiLowered(*token.token);
        if (token.name.empty()) Fail("an empty token needs a #name");
        args.push_back(std::move(token));
      }
      if (IsGroup(args.back()) && args.back().name.empty()) Fail("a oneof needs a #name");
    }
    return args;
  }

  std::string_view text_;
  size_t pos_ = 0;
  int next_key_ = 0;
  Status error_;
};

}  // namespace

std::string_view DocArgTypeName(DocArgType type) {
  for (const TypeName& t : kTypeNames) {
    if (t.type == type) return t.name;
  }
  return "string";
}

StatusOr<std::vector<DocArg>> ParseCommandSyntax(std::string_view syntax) {
  return SyntaxParser(syntax).Parse();
}

}  // namespace sluice::server
