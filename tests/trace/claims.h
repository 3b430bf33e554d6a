// What the trace tests check of a role's slice read back in time order: its claims and
// releases, and how many events break the claim rule (an acquire of a slot and lap the role
// already holds, a release of one it does not, or a claim never released). Include after
// `import linpipe;`.
#pragma once

#include <cstdint>
#include <map>
#include <utility>

struct ClaimCounts {
  std::uint32_t acquires = 0;
  std::uint32_t releases = 0;
  std::uint32_t unmatched = 0;
};

inline ClaimCounts count_claims(const linpipe::TraceSlice& slice) {
  ClaimCounts counts;
  std::map<std::pair<int, std::uint32_t>, int> held;
  for (const auto& r : slice.events) {
    if (r.event == linpipe::TraceEvent::acquire) {
      ++counts.acquires;
      counts.unmatched += held[{r.stage, r.lap}]++ != 0;
    } else if (r.event == linpipe::TraceEvent::release) {
      ++counts.releases;
      counts.unmatched += held[{r.stage, r.lap}]-- != 1;
    }
  }
  for (const auto& [claim, count] : held) counts.unmatched += count != 0;
  return counts;
}
