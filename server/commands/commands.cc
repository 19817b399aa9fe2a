#include "server/commands/commands.h"

namespace sluice::server {

void RegisterAllCommands(CommandTable& table) {
  RegisterConnectionCommands(table);
  RegisterClientCommands(table);
  RegisterServerCommands(table);
  RegisterIntrospectionCommands(table);
  RegisterKeyCommands(table);
  RegisterStringCommands(table);
  RegisterDebugCommands(table);
  RegisterTransactionCommands(table);
  RegisterLimiterCommands(table);
  RegisterPolicyCommands(table);
}

}  // namespace sluice::server
