#include "server/client_pause.h"

#include "server/client.h"
#include "server/dispatcher.h"

namespace sluice::server {
namespace {

bool MayChangeData(const CommandSpec& spec, RequestSubcommand named, Args args,
                   const ScriptDeclaresWrites& script_writes) {
  // A script that declares its flags stands for the command's, as in Redis: a no-writes
  // function (a limiter's status read) runs during a WRITE pause.
  if (HasFlag(spec.flags, CommandFlags::kRunsScript) && script_writes) {
    if (std::optional<bool> writes = script_writes(spec, args)) return *writes;
  }
  return IsWriteRequest(spec, named) || HasFlag(spec.flags, CommandFlags::kMayReplicate);
}

}  // namespace

bool PauseHolds(PauseMode mode, const CommandTable& commands, const Client& client,
                const CommandSpec* spec, RequestSubcommand named, Args args,
                const ScriptDeclaresWrites& script_writes) {
  if (mode == PauseMode::kNone || spec == nullptr || !ArityMatches(spec->arity, args.size())) {
    return false;
  }
  if (!client.authenticated && !HasFlag(spec->flags, CommandFlags::kNoAuth)) return false;
  // A monitor is a replica to Redis, which never pauses replicas: its commands answer at once
  // (a keyspace command with "Replica can't interact with the keyspace").
  if (client.monitor) return false;
  // DEBUG, the one command enable-debug-command gates, is a test tool: holding it would leave
  // DEBUG CLOCK unable to end a pause on a frozen clock.
  if (mode == PauseMode::kAll) return !HasFlag(spec->flags, CommandFlags::kProtected);
  // (sluice flags EXEC as a write, for MISCONF; Redis judges it by what it queued.)
  if (!HasFlag(spec->flags, CommandFlags::kRunsTransaction)) {
    return MayChangeData(*spec, named, args, script_writes);
  }
  if (!client.in_multi) return false;
  for (const std::vector<std::string>& queued : client.multi_queue) {
    std::vector<std::string_view> words(queued.begin(), queued.end());
    const CommandSpec* each = commands.Find(words.empty() ? "" : words[0]);
    if (each != nullptr &&
        MayChangeData(*each, LookupRequestSubcommand(each, words), words, script_writes)) {
      return true;
    }
  }
  return false;
}

bool HoldRequest(PauseMode mode, const CommandTable& commands, Client& client, Args args,
                 const ScriptDeclaresWrites& script_writes) {
  const CommandSpec* spec = args.empty() ? nullptr : commands.Find(args[0]);
  const RequestSubcommand named = LookupRequestSubcommand(spec, args);
  if (!PauseHolds(mode, commands, client, spec, named, args, script_writes)) return false;
  NoteLastCommand(client, spec, named);
  return true;
}

}  // namespace sluice::server
