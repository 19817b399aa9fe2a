#include "server/commands/commands.h"

namespace sluice::server {

void RegisterAllCommands(CommandTable& table) {
  RegisterConnectionCommands(table);
  RegisterClientCommands(table);
  RegisterServerCommands(table);
  RegisterLogRewriteCommands(table);
  RegisterIntrospectionCommands(table);
  RegisterSlowLogCommands(table);
  RegisterLatencyCommands(table);
  RegisterClusterCommands(table);
  RegisterModuleCommands(table);
  RegisterPubSubCommands(table);
  RegisterKeyCommands(table);
  RegisterDumpCommands(table);
  RegisterObjectCommands(table);
  RegisterMemoryCommands(table);
  RegisterStringCommands(table);
  RegisterBitmapCommands(table);
  RegisterBitfieldCommands(table);
  RegisterHyperLogLogCommands(table);
  RegisterLcsCommands(table);
  RegisterHashCommands(table);
  RegisterZSetCommands(table);
  RegisterZSetAlgebraCommands(table);
  RegisterZSetPopCommands(table);
  RegisterGeoCommands(table);
  RegisterListCommands(table);
  RegisterSetCommands(table);
  RegisterSetAlgebraCommands(table);
  RegisterSortCommands(table);
  RegisterDebugCommands(table);
  RegisterTransactionCommands(table);
  RegisterLimiterCommands(table);
  RegisterPolicyCommands(table);
  RegisterScriptingCommands(table);
  RegisterAclCommands(table);
  RegisterFunctionCommands(table);
}

}  // namespace sluice::server
