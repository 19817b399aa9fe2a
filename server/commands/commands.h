#pragma once

// One Register function per command family; RegisterAllCommands calls them all.

#include "server/command_table.h"

namespace sluice::server {

void RegisterConnectionCommands(CommandTable& table);  // connection.cc
void RegisterClientCommands(CommandTable& table);      // client.cc
void RegisterServerCommands(CommandTable& table);      // server_admin.cc, info.cc
void RegisterLogRewriteCommands(CommandTable& table);  // log_rewrite.cc
void RegisterIntrospectionCommands(CommandTable& table);  // introspection.cc (COMMAND, CONFIG)
void RegisterSlowLogCommands(CommandTable& table);        // slowlog.cc
void RegisterLatencyCommands(CommandTable& table);        // latency.cc
void RegisterClusterCommands(CommandTable& table);        // cluster.cc (cluster disabled)
void RegisterModuleCommands(CommandTable& table);         // modules.cc (no modules)
void RegisterPubSubCommands(CommandTable& table);         // pubsub.cc
void RegisterKeyCommands(CommandTable& table);         // keys.cc
void RegisterDumpCommands(CommandTable& table);        // dump.cc (DUMP, RESTORE)
void RegisterObjectCommands(CommandTable& table);      // objects.cc (OBJECT)
void RegisterMemoryCommands(CommandTable& table);      // memory.cc (MEMORY)
void RegisterStringCommands(CommandTable& table);      // strings.cc
void RegisterBitmapCommands(CommandTable& table);      // bitmaps.cc
void RegisterBitfieldCommands(CommandTable& table);    // bitfield.cc
void RegisterHyperLogLogCommands(CommandTable& table);  // hyperloglog.cc
void RegisterLcsCommands(CommandTable& table);         // lcs.cc
void RegisterGeoCommands(CommandTable& table);          // geo.cc
void RegisterHashCommands(CommandTable& table);        // hashes.cc
void RegisterZSetCommands(CommandTable& table);        // zsets.cc
void RegisterZSetAlgebraCommands(CommandTable& table);  // zset_algebra.cc
void RegisterZSetPopCommands(CommandTable& table);      // zset_pops.cc
void RegisterListCommands(CommandTable& table);        // lists.cc
void RegisterSetCommands(CommandTable& table);         // sets.cc
void RegisterSetAlgebraCommands(CommandTable& table);  // set_algebra.cc
void RegisterSortCommands(CommandTable& table);        // sort.cc
void RegisterDebugCommands(CommandTable& table);       // debug.cc
void RegisterTransactionCommands(CommandTable& table); // transactions.cc
void RegisterLimiterCommands(CommandTable& table);     // limiters.cc
void RegisterPolicyCommands(CommandTable& table);      // policies.cc
void RegisterScriptingCommands(CommandTable& table);   // scripting.cc
void RegisterAclCommands(CommandTable& table);         // acl.cc
void RegisterFunctionCommands(CommandTable& table);    // functions.cc

void RegisterAllCommands(CommandTable& table);

}  // namespace sluice::server
