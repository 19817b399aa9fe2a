#pragma once

#include <string>

namespace sluice::storage {

// A sorted set's member with its score.
struct ScoredMember {
  std::string member;
  double score = 0;
};

}  // namespace sluice::storage
