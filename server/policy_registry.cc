#include "server/policy_registry.h"

#include "server/limiter_call.h"

namespace sluice::server {

std::string PolicyDefinition::Canonical() const {
  std::string text(algorithms::AlgorithmName(algorithm));
  for (const std::string& arg : args) {
    text += ' ';
    text += arg;
  }
  return text;
}

StatusOr<PolicyDefinition> ParsePolicyDefinition(std::string_view name,
                                                 std::span<const std::string_view> words) {
  if (name.empty()) return Err("policy name must not be empty");
  if (words.empty()) return Err("syntax error");
  auto algorithm = algorithms::ParseAlgorithmName(words[0]);
  if (!algorithm || *algorithm == algorithms::AlgorithmTag::kSmooth ||
      *algorithm == algorithms::AlgorithmTag::kPolicySet) {
    return Err("unknown algorithm '" + std::string(words[0]) +
               "': use FIXEDWINDOW, SLIDINGLOG, SLIDINGWINDOW, TOKENBUCKET, LEAKYBUCKET or GCRA");
  }
  std::span<const std::string_view> params = words.subspan(1);
  if (params.size() != LimiterParamCount(*algorithm)) {
    return Err("wrong number of arguments for algorithm " +
               std::string(algorithms::AlgorithmName(*algorithm)));
  }
  // Validate exactly as the RL.* command would.
  auto call = MakeLimiterCall(*algorithm, params, 1);
  if (!call.ok()) return call.status();
  PolicyDefinition definition{std::string(name), *algorithm, {}};
  for (std::string_view p : params) definition.args.emplace_back(p);
  return definition;
}

StatusOr<PolicyDefinition> ParseCanonicalPolicy(std::string_view name, std::string_view text) {
  std::vector<std::string_view> words;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start) words.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return ParsePolicyDefinition(name, words);
}

Status PolicyRegistry::Set(PolicyDefinition definition) {
  auto it = policies_.find(definition.name);
  if (it != policies_.end()) {
    it->second.definition = std::move(definition);
    return Status::Ok();
  }
  if (policies_.size() >= kMaxPolicies) {
    return Err("too many policies (at most " + std::to_string(kMaxPolicies) + ")");
  }
  std::string name = definition.name;
  policies_.emplace(std::move(name), Entry{std::move(definition), {}});
  return Status::Ok();
}

bool PolicyRegistry::Delete(std::string_view name) {
  auto it = policies_.find(name);
  if (it == policies_.end()) return false;
  policies_.erase(it);
  return true;
}

const PolicyRegistry::Entry* PolicyRegistry::Find(std::string_view name) const {
  auto it = policies_.find(name);
  return it == policies_.end() ? nullptr : &it->second;
}

PolicyRegistry::Entry* PolicyRegistry::FindMutable(std::string_view name) {
  auto it = policies_.find(name);
  return it == policies_.end() ? nullptr : &it->second;
}

std::vector<std::string> PolicyRegistry::Names() const {
  std::vector<std::string> names;
  names.reserve(policies_.size());
  for (const auto& [name, entry] : policies_) names.push_back(name);
  return names;
}

}  // namespace sluice::server
