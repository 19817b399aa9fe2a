#include "server/keyspace_event_flags.h"

namespace sluice::server {
namespace {

struct ClassLetter {
  char letter;
  uint32_t flag;
};

// Every letter but A, in the order CONFIG GET prints them: the classes, then K, E and m.
constexpr ClassLetter kLetters[] = {
    {'g', kNotifyGeneric},  {'$', kNotifyString},  {'l', kNotifyList},    {'s', kNotifySet},
    {'h', kNotifyHash},     {'z', kNotifyZset},    {'x', kNotifyExpired}, {'e', kNotifyEvicted},
    {'t', kNotifyStream},   {'d', kNotifyModule},  {'n', kNotifyNew},     {'K', kNotifyKeyspace},
    {'E', kNotifyKeyevent}, {'m', kNotifyKeyMiss},
};

}  // namespace

std::optional<uint32_t> ParseKeyspaceEvents(std::string_view classes) {
  uint32_t flags = 0;
  for (char c : classes) {
    if (c == '\0') break;
    if (c == 'A') {
      flags |= kNotifyAll;
      continue;
    }
    uint32_t flag = 0;
    for (const ClassLetter& each : kLetters) {
      if (each.letter == c) flag = each.flag;
    }
    if (flag == 0) return std::nullopt;
    flags |= flag;
  }
  return flags;
}

std::string FormatKeyspaceEvents(uint32_t flags) {
  // With every class of A, Redis 7.0 prints "A" and no other class letter: not even n, which
  // A does not include (so "AnKE" reads back "AKE", and still sends "new").
  const bool all = (flags & kNotifyAll) == kNotifyAll;
  constexpr uint32_t kChannelsAndMisses = kNotifyKeyspace | kNotifyKeyevent | kNotifyKeyMiss;
  std::string text = all ? "A" : "";
  for (const ClassLetter& each : kLetters) {
    const bool shown = !all || (each.flag & kChannelsAndMisses) != 0;
    if (shown && (flags & each.flag) != 0) text += each.letter;
  }
  return text;
}

}  // namespace sluice::server
