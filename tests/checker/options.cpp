// The checks' options: annotation names and ReportEscapes.
//
// Defaults, as --dump-config shows them:
// RUN: %check_linpipe -checks='-*,linpipe-*' --dump-config %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefix=DEFAULTS
// DEFAULTS-DAG: linpipe-linear-stage.LinearAnnotation: 'linpipe::linear'
// DEFAULTS-DAG: linpipe-linear-stage.ConsumeAnnotation: 'linpipe::consume'
// DEFAULTS-DAG: linpipe-linear-stage.ArrivesAnnotation: 'linpipe::arrives'
// DEFAULTS-DAG: linpipe-linear-stage.SignalsAnnotation: 'linpipe::signals'
// DEFAULTS-DAG: linpipe-linear-stage.NeedsSignalAnnotation: 'linpipe::needs_signal'
// DEFAULTS-DAG: linpipe-linear-stage.HandOffAnnotation: 'linpipe::hand_off'
// DEFAULTS-DAG: linpipe-linear-stage.ReportEscapes: 'true'
// DEFAULTS-DAG: linpipe-stage-protocol.NeedsSignalAnnotation: 'linpipe::needs_signal'
//
// ReportEscapes=false: escapes are not reported (the value is still no longer followed).
// RUN: %check_linpipe -checks='-*,linpipe-linear-stage' %s \
// RUN:   -config="{CheckOptions: {linpipe-linear-stage.ReportEscapes: false}}" -- %stage_flags \
// RUN:   | FileCheck %s --check-prefix=NOESC --implicit-check-not="{{warning|error|note}}:"
//
// Other annotation names, set once for both checks (global options): the linpipe::*
// annotations then mean nothing and my::* ones are used.
// RUN: %check_linpipe -checks='-*,linpipe-*' %s \
// RUN:   -config="{CheckOptions: {LinearAnnotation: 'my::owned', ConsumeAnnotation: 'my::drop', ArrivesAnnotation: 'my::arrives', SignalsAnnotation: 'my::signals', NeedsSignalAnnotation: 'my::quiet', HandOffAnnotation: 'my::give'}}" \
// RUN:   -- %stage_flags | FileCheck %s --check-prefix=RENAMED --implicit-check-not="{{warning|error|note}}:"
#include "stage_types.h"
using namespace lp;

void escapeNotReported(Pipeline &pipe, std::vector<ConsumerStage> &ring) {
  auto stage = pipe.acquire_consumer();
  ring.push_back(std::move(stage));
}

void leakStillReported(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
}
// NOESC: :[[@LINE-1]]:1: warning: 'stage' is not released on this path [linpipe-linear-stage]
// NOESC: :[[@LINE-3]]:8: note: 'stage' acquired here
// NOESC: :[[@LINE-3]]:1: note: the scope of 'stage' ends here
// NOESC: :[[@LINE-4]]:1: note: call release() or release_without_signal() before leaving the scope

namespace my {
template <class T>
[[clang::annotate("my::give")]] T &&give(T &&v) noexcept;

class [[clang::annotate("my::owned")]] Lease {
public:
  Lease(Lease &&) noexcept;
  ~Lease();
  [[clang::annotate("my::signals"), clang::annotate("my::arrives")]] void ping() const;
  [[clang::annotate("my::drop"), clang::annotate("my::arrives")]] void drop();
  [[clang::annotate("my::drop"), clang::annotate("my::quiet")]] void drop_quietly();
};
Lease lease();
} // namespace my

void renamedLeak() {
  auto l = my::lease();
  l.ping();
}
// RENAMED: :[[@LINE-1]]:1: warning: 'l' is not released on this path [linpipe-linear-stage]
// RENAMED: :[[@LINE-4]]:8: note: 'l' acquired here
// RENAMED: :[[@LINE-3]]:1: note: the scope of 'l' ends here
// RENAMED: :[[@LINE-4]]:1: note: call drop() or drop_quietly() before leaving the scope

void renamedProtocol() {
  auto l = my::lease();
  l.drop_quietly();
  // RENAMED: :[[@LINE-1]]:3: warning: 'l' is released by 'drop_quietly' but no path before it signals its barrier [linpipe-stage-protocol]
  // RENAMED: :[[@LINE-3]]:8: note: 'l' acquired here
  // RENAMED: :[[@LINE-3]]:3: note: call ping() before 'drop_quietly', or release it with drop(), which arrives
  auto k = my::lease();
  k.ping();
  k.drop();
  // RENAMED: :[[@LINE-1]]:3: warning: 'k' arrives on its barrier twice: 'drop' arrives again after an earlier arrival [linpipe-stage-protocol]
  // RENAMED: :[[@LINE-3]]:3: note: first arrival here
  // RENAMED: :[[@LINE-3]]:3: note: after an explicit arrival, end with drop_quietly(), which does not arrive
}

void renamedHandOff(std::vector<my::Lease> &leases) {
  leases.push_back(my::give(my::lease()));
}
