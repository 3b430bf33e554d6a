// consume_explicit() scopes end their claim without arriving: some path must signal through
// the scope (arrive(), mbar()) before it ends, or the slot is never handed back.
// RUN: %check_linpipe -checks='-*,linpipe-*' %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
#include "stage_types.h"
using namespace lp;

void lendScope(const StageScope &scope);

// Bad: never signalled.
void neverSignalled(Pipeline &pipe) {
  auto scope = pipe.consume_explicit();
  work(scope.index());
}
// CHECK-NOTES: :[[@LINE-1]]:1: warning: scope 'scope' ends its claim without arriving, and no path before this point signals its barrier [linpipe-stage-protocol]
// CHECK-NOTES: :[[@LINE-4]]:8: note: 'scope' acquired here
// CHECK-NOTES: :[[@LINE-3]]:1: note: the scope of 'scope' ends here
// CHECK-NOTES: :[[@LINE-4]]:1: note: call 'scope.arrive()' (from the lane that signals) before the scope ends, or use consume(), whose end arrives

// Bad: an early return before the arrival.
void returnsBeforeTheArrival(Pipeline &pipe, int lane) {
  auto scope = pipe.consume_explicit();
  if (done())
    return;
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: scope 'scope' ends its claim without arriving, and no path before this point signals its barrier [linpipe-stage-protocol]
  // CHECK-NOTES: :[[@LINE-4]]:8: note: 'scope' acquired here
  // CHECK-NOTES: :[[@LINE-3]]:5: note: 'return' leaves the scope here
  // CHECK-NOTES: :[[@LINE-4]]:5: note: call 'scope.arrive()' (from the lane that signals) before the scope ends, or use consume(), whose end arrives
  if (lane == 0)
    scope.arrive();
}

// Bad: inside a loop, one iteration's scope is left by `continue` before its arrival.
void continuesBeforeTheArrival(Pipeline &pipe, int n) {
  for (int i = 0; i < n; ++i) {
    auto scope = pipe.consume_explicit();
    if (i % 2)
      continue;
    // CHECK-NOTES: :[[@LINE-1]]:7: warning: scope 'scope' ends its claim without arriving, and no path before this point signals its barrier [linpipe-stage-protocol]
    // CHECK-NOTES: :[[@LINE-4]]:10: note: 'scope' acquired here
    // CHECK-NOTES: :[[@LINE-3]]:7: note: 'continue' leaves the scope here
    // CHECK-NOTES: :[[@LINE-4]]:7: note: call 'scope.arrive()' (from the lane that signals) before the scope ends, or use consume(), whose end arrives
    scope.arrive();
  }
}

// Good: a lane-guarded arrival (the other lanes' paths skip it: some path signals).
void laneGuardedArrival(Pipeline &pipe, int lane) {
  auto scope = pipe.consume_explicit();
  if (lane == 0)
    scope.arrive();
}

// Good: a remote arrival through the scope's barrier.
void signalledThroughItsBarrier(Pipeline &pipe, int lane) {
  auto scope = pipe.consume_explicit();
  if (lane < 2)
    scope.mbar().arrive();
}

// Good: lent to a function the analysis cannot see into, which may signal.
void lentToAnOpaqueHelper(Pipeline &pipe) {
  auto scope = pipe.consume_explicit();
  lendScope(scope);
}

// Good: consume() and produce() scopes need no signal of their own.
void otherScopes(Pipeline &pipe) {
  auto consumed = pipe.consume();
  auto produced = pipe.produce();
  work(consumed.index() + produced.index());
}
