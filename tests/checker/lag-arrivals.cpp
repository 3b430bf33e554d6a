// A stage pushed into a lag (or an epilogue) whose release policy arrives must not have arrived
// already: the lag's release would be a second arrival for one claim. The arrival state goes
// with the stage into push().
// RUN: %check_linpipe -checks='-*,linpipe-stage-protocol' %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
#include "stage_types.h"
using namespace lp;

// Bad: a lane-guarded arrival, then a push into a lag that arrives.
void arrivedThenPushed(Pipeline &pipe, int lane) {
  ArrivingLag lag;
  auto stage = pipe.acquire_consumer();
  if (lane == 0)
    stage.arrive();
  lag.push(std::move(stage));
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'stage' arrives on its barrier twice: 'push' arrives again after an earlier arrival [linpipe-stage-protocol]
  // CHECK-NOTES: :[[@LINE-3]]:5: note: first arrival here
  // CHECK-NOTES: :[[@LINE-3]]:22: note: after an explicit arrival, end with release_without_signal(), which does not arrive
  lag.flush();
}

// Bad: the policy is a template argument that says it arrives.
void arrivedThenPushedIntoAPolicyLag(Pipeline &pipe) {
  PolicyLag<true> lag;
  auto stage = pipe.acquire_consumer();
  stage.arrive();
  lag.push(std::move(stage));
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'stage' arrives on its barrier twice: 'push' arrives again after an earlier arrival [linpipe-stage-protocol]
  // CHECK-NOTES: :[[@LINE-3]]:3: note: first arrival here
  // CHECK-NOTES: :[[@LINE-3]]:22: note: after an explicit arrival, end with release_without_signal(), which does not arrive
  lag.flush();
}

// Good: pushed without an arrival of its own.
void pushedOnly(Pipeline &pipe) {
  ArrivingLag lag;
  lag.push(pipe.acquire_consumer());
  auto stage = pipe.acquire_consumer();
  work(stage.index());
  lag.push(std::move(stage));
  lag.flush();
}

// Good: a lag whose policy does not arrive takes a stage that arrived.
void arrivedThenPushedIntoASilentLag(Pipeline &pipe, int lane) {
  PolicyLag<false> lag;
  auto stage = pipe.acquire_consumer();
  if (lane == 0)
    stage.arrive();
  lag.push(std::move(stage));
  lag.flush();
}

// Good: a lag whose push says nothing of arrivals (the plain Lag) is not assumed to arrive.
void arrivedThenPushedIntoAPlainLag(Pipeline &pipe) {
  Lag lag;
  auto stage = pipe.acquire_consumer();
  stage.arrive();
  lag.push(std::move(stage));
  lag.flush();
}
