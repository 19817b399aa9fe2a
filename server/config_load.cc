// Loading the configuration: redis.conf-style text (ApplyConfigText), the command line over the
// config file (LoadConfig), and the one-line messages that stop the daemon at start.

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/ascii.h"
#include "common/split_at.h"
#include "resp/inline_args.h"
#include "server/config.h"
#include "server/config_directives.h"
#include "server/config_file_io.h"

namespace sluice::server {
namespace {

using config_internal::Directive;
using config_internal::FindDirective;
using config_internal::kInFile;
using config_internal::kUnlimited;
using config_internal::SplitMultiArgValue;
using config_internal::ValueError;
using config_internal::Values;

// --- Messages -------------------------------------------------------------------------------

// A value as it may appear inside a one-line message: control bytes escaped, long values cut.
std::string Printable(std::string_view s) {
  constexpr size_t kMaxShown = 120;
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i == kMaxShown) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string Join(Values values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) out += (i ? " " : "") + values[i];
  return out;
}

std::string ArgCountText(const Directive& d, size_t got) {
  std::string expects;
  if (d.max_args == kUnlimited) {
    expects = "at least " + std::to_string(d.min_args);
  } else if (d.min_args == d.max_args) {
    expects = std::to_string(d.min_args);
  } else {
    expects = std::to_string(d.min_args) + " to " + std::to_string(d.max_args);
  }
  return "wrong number of arguments for '" + std::string(d.name) + "' (expects " + expects +
         (d.max_args == 1 || (d.max_args == kUnlimited && d.min_args == 1) ? " value" : " values") +
         ", got " + std::to_string(got) + ")";
}

// Applies one `name values...` from the config file or the command line. Returns the problem,
// without its location, or nullopt.
std::optional<std::string> ApplyDirective(Config& config, std::string_view name,
                                          std::vector<std::string> values) {
  const Directive* d = FindDirective(name);
  if (d == nullptr || !(d->flags & kInFile)) {
    return "unknown directive '" + Printable(name) + "'";
  }
  if (!SplitMultiArgValue(*d, &values)) {
    return "unbalanced quotes in the value of '" + std::string(d->name) + "': '" +
           Printable(values[0]) + "'";
  }
  if (values.size() < d->min_args || values.size() > d->max_args) {
    return ArgCountText(*d, values.size());
  }
  if (std::optional<ValueError> error = d->set(config, values)) {
    return "'" + std::string(d->name) + "' " + error->expect + ", got '" + Printable(Join(values)) +
           "'";
  }
  return std::nullopt;
}

StatusOr<std::string> ReadFile(const std::string& path) {
  StatusOr<std::string> text = config_internal::ReadWholeFile(path);
  if (!text.ok()) {
    return Err("can't read config file '" + Printable(path) + "': " + text.status().message());
  }
  return text;
}

}  // namespace

std::optional<std::vector<std::string>> SplitArgs(std::string_view line) {
  std::string storage;
  std::vector<resp::ArgSpan> spans;
  if (!resp::SplitInlineArgs(line, &storage, &spans)) return std::nullopt;
  std::vector<std::string> words;
  words.reserve(spans.size());
  for (const resp::ArgSpan& span : spans) words.emplace_back(storage, span.offset, span.length);
  return words;
}

Status ApplyConfigText(std::string_view text, Config* config) {
  Config result = *config;
  const std::vector<std::string_view> lines = SplitAt(text, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = TrimChars(lines[i]);
    if (line.empty() || line[0] == '#') continue;
    const std::string where = "config line " + std::to_string(i + 1) + ": ";
    std::optional<std::vector<std::string>> words = SplitArgs(line);
    if (!words) return Err(where + "unbalanced quotes in '" + Printable(line) + "'");
    if (words->empty()) continue;
    std::vector<std::string> values(std::make_move_iterator(words->begin() + 1),
                                    std::make_move_iterator(words->end()));
    if (std::optional<std::string> error =
            ApplyDirective(result, words->front(), std::move(values))) {
      return Err(where + *error);
    }
  }
  *config = std::move(result);
  return Status::Ok();
}

StatusOr<Config> LoadConfig(int argc, const char* const* argv, StartAction* action) {
  *action = StartAction::kRun;
  std::vector<std::string_view> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i] != nullptr ? argv[i] : "");

  if (!args.empty() && (args[0] == "-v" || args[0] == "--version")) {
    *action = StartAction::kPrintVersion;
    return Config{};
  }
  if (!args.empty() && (args[0] == "-h" || args[0] == "--help")) {
    *action = StartAction::kPrintHelp;
    return Config{};
  }

  size_t next = 0;
  std::string config_file;
  if (!args.empty() && !args[0].empty() && args[0][0] != '-') {
    config_file = std::string(args[0]);
    next = 1;
  }

  // Group the options first, so --version/--help anywhere answer before any file is read.
  struct Option {
    std::string name;
    std::vector<std::string> values;
  };
  std::vector<Option> options;
  bool wants_value = false;  // the last --name has no value yet: the next word is its value
  for (size_t i = next; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (!wants_value && arg.starts_with("--")) {
      std::optional<std::vector<std::string>> words = SplitArgs(arg.substr(2));
      if (!words || words->empty()) {
        return Err("command line: bad option '" + Printable(arg) + "'");
      }
      Option option{std::move(words->front()), {}};
      option.values.assign(std::make_move_iterator(words->begin() + 1),
                           std::make_move_iterator(words->end()));
      if (option.values.empty() && (option.name == "version" || option.name == "help")) {
        *action = option.name == "version" ? StartAction::kPrintVersion : StartAction::kPrintHelp;
        return Config{};
      }
      wants_value = option.values.empty();
      options.push_back(std::move(option));
    } else if (options.empty()) {
      return Err("command line: unexpected argument '" + Printable(arg) +
                 "' (expected [CONFIG_FILE] [--directive value ...])");
    } else {
      options.back().values.emplace_back(arg);
      wants_value = false;
    }
  }

  Config config;
  if (!config_file.empty()) {
    StatusOr<std::string> text = ReadFile(config_file);
    if (!text.ok()) return text.status();
    SLUICE_RETURN_IF_ERROR(ApplyConfigText(*text, &config));
  }
  for (Option& option : options) {
    if (std::optional<std::string> error =
            ApplyDirective(config, option.name, std::move(option.values))) {
      return Err("command line: " + *error);
    }
  }
  return config;
}

std::string UsageText(std::string_view program) {
  const std::string p(program.empty() ? "sluiced" : program);
  return "Usage: " + p + " [/path/to/sluice.conf] [--directive value ...]\n" + "       " + p +
         " -v or --version\n" + "       " + p + " -h or --help\n\n" +
         "Directives are those of the config file (port, bind, dir, requirepass, policy ...);\n" +
         "command-line options override the file. Examples:\n" + "       " + p +
         " /etc/sluice/sluice.conf\n" + "       " + p + " --port 7777 --dir /var/lib/sluice\n" +
         "       " + p + " /etc/sluice/sluice.conf --bind 127.0.0.1 ::1 --loglevel verbose\n";
}

}  // namespace sluice::server
