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

// Helpers the translation unit can see, given the stage to release.
void releaseIt(ConsumerStage stage) { stage.release(); }
void endItQuietly(ConsumerStage &&stage) { stage.release_without_signal(); }
void retire(ArrivingLag &lag, ConsumerStage &&stage) { lag.push(std::move(stage)); }

// Bad: arrived, then given to a sink whose release() arrives again.
void arrivedThenGivenToAReleasingSink(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  stage.arrive();
  releaseIt(std::move(stage));
  // CHECK-NOTES: :[[@LINE-1]]:23: warning: 'stage' arrives on its barrier twice: 'releaseIt' arrives again after an earlier arrival [linpipe-stage-protocol]
  // CHECK-NOTES: :[[@LINE-3]]:3: note: first arrival here
  // CHECK-NOTES: :[[@LINE-3]]:23: note: after an explicit arrival, end with release_without_signal(), which does not arrive
}

// Bad: arrived, then handed to a helper that pushes it into an arriving lag.
void arrivedThenRetiredThroughAHelper(Pipeline &pipe, ArrivingLag &lag, int lane) {
  auto stage = pipe.acquire_consumer();
  if (lane == 0)
    stage.arrive();
  retire(lag, std::move(stage));
  // CHECK-NOTES: :[[@LINE-1]]:25: warning: 'stage' arrives on its barrier twice: 'retire' arrives again after an earlier arrival [linpipe-stage-protocol]
  // CHECK-NOTES: :[[@LINE-3]]:5: note: first arrival here
  // CHECK-NOTES: :[[@LINE-3]]:25: note: after an explicit arrival, end with release_without_signal(), which does not arrive
}

// Good: arrived, then given to a sink that ends it without arriving.
void arrivedThenEndedQuietlyBySink(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  stage.arrive();
  endItQuietly(std::move(stage));
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
