#include "server/metrics/status_json.h"

#include <algorithm>
#include <vector>

#include "server/limiter_queues.h"
#include "server/metrics/json_writer.h"
#include "server/metrics/limiter_labels.h"

namespace sluice::server {
namespace {

uint64_t Activity(const LimiterCounters& c) { return c.allowed + c.refused + c.timed_out; }

void Counters(JsonWriter& out, const LimiterCounters& counters) {
  for (const ResultField& field : kResultFields) out.Field(field.name, counters.*field.counter);
}

void Series(ServerContext& server, JsonWriter& out) {
  out.Key("series");
  out.BeginArray();
  for (algorithms::AlgorithmTag tag : kCountedAlgorithms) {
    const LimiterCounters& counters = server.ops.ForAlgorithm(tag);
    if (Activity(counters) == 0 && counters.blocked == 0) continue;
    out.BeginObject();
    out.Field("name", "rl." + AlgorithmLabel(tag));
    out.Field("kind", "command");
    out.Field("algorithm", AlgorithmLabel(tag));
    Counters(out, counters);
    out.EndObject();
  }
  std::vector<const PolicyRegistry::Entry*> policies;
  for (const auto& [name, entry] : server.policies.all()) policies.push_back(&entry);
  size_t shown = std::min(policies.size(), kMaxStatusPolicies);
  std::partial_sort(
      policies.begin(), policies.begin() + static_cast<ptrdiff_t>(shown), policies.end(),
      [](const auto* a, const auto* b) { return Activity(a->counters) > Activity(b->counters); });
  for (size_t i = 0; i < shown; ++i) {
    out.BeginObject();
    out.Field("name", policies[i]->definition.name);
    out.Field("kind", "policy");
    out.Field("algorithm", AlgorithmLabel(policies[i]->definition.algorithm));
    Counters(out, policies[i]->counters);
    out.EndObject();
  }
  out.EndArray();
}

void TopThrottled(ServerContext& server, JsonWriter& out) {
  out.Key("top_throttled");
  out.BeginArray();
  for (const TopKeys::Entry& entry : server.ops.throttled_keys.Top(kStatusTopKeys)) {
    out.BeginObject();
    out.Field("key", entry.key);
    out.Field("refused", entry.count);
    out.Field("error", entry.error);
    out.EndObject();
  }
  out.EndArray();
}

void Durability(ServerContext& server, JsonWriter& out) {
  const ServerStats& stats = server.stats;
  out.Key("durability");
  out.BeginObject();
  auto mode = ConfigGet(*server.config, "appendfsync");
  out.Field("appendfsync", mode.empty() ? "" : mode[0].second);
  out.Field("wal_commits", stats.wal_commits);
  out.Field("wal_syncs", stats.wal_syncs);
  out.Field("failed_commits", stats.failed_commits);
  out.Key("background_error");
  Status background = server.engine ? server.engine->BackgroundError() : Status::Ok();
  if (background.ok()) {
    out.Null();
  } else {
    out.String(background.message());
  }
  out.EndObject();
}

}  // namespace

std::string BuildStatusJson(ServerContext& server, const KeyCensus::Figures& keys) {
  JsonWriter out;
  out.BeginObject();
  out.Field("version", SLUICE_VERSION);
  out.Field("time_ms", server.clock->NowMillis());
  out.Field("uptime_s", (server.clock->NowMicros() - server.start_time_us) / 1000000);
  out.Key("clients");
  out.BeginObject();
  out.Field("connected", static_cast<uint64_t>(server.actions->ConnectedClients()));
  out.Field("blocked", static_cast<uint64_t>(server.limiter_queues->waiting()));
  out.Field("maxclients", server.config->maxclients);
  out.EndObject();
  out.Field("commands_processed", server.stats.total_commands_processed);
  out.Field("error_replies", server.stats.errors.total());
  out.Key("keys");
  out.BeginObject();
  out.Field("estimated", keys.estimated);
  if (keys.exact) {
    out.Field("live", keys.exact->keys);
    out.Field("with_ttl", keys.exact->expires);
  }
  out.EndObject();
  out.Key("limiters");
  out.BeginObject();
  Counters(out, server.limiter_totals);
  out.EndObject();
  Series(server, out);
  TopThrottled(server, out);
  Durability(server, out);
  out.EndObject();
  return out.Take();
}

}  // namespace sluice::server
