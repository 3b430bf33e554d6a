// Arrivals through the real module's release policies and StageLag (host flavour): each
// policy says whether it arrives (linpipe::release_arrives), and push()/operator() carry it.
// REQUIRES: linpipe-module
// RUN: %check_linpipe -checks='-*,linpipe-stage-protocol' %s -- %linpipe_cxx_flags \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
import linpipe;

#include <utility>

using Pipeline = linpipe::ProducerConsumerPipeline<3, linpipe::HostBackend<3>>;
using Stage = Pipeline::ConsumerStageType;

struct QuietRelease { // a user policy that does not say it arrives
  template <class S>
  void operator()(S &&stage) const {
    stage.release_without_signal();
  }
};

// Bad: arrived, then pushed into a lag whose ReleaseStage arrives again.
void arrivedThenPushed(Pipeline &pipe) {
  linpipe::StageLag<Stage, 1> lag;
  auto stage = pipe.acquire_consumer();
  stage.arrive();
  lag.push(std::move(stage));
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'stage' arrives on its barrier twice: 'push' arrives again after an earlier arrival [linpipe-stage-protocol]
  // CHECK-NOTES: :[[@LINE-3]]:3: note: first arrival here
  // CHECK-NOTES: :[[@LINE-3]]:22: note: after an explicit arrival, end with release_without_signal(), which does not arrive
  lag.flush();
}

// Bad: arrived on lane 0, then released through ReleaseToCluster, whose lane 0 arrives again.
void arrivedThenReleasedThroughAPolicy(Pipeline &pipe, unsigned lane) {
  auto stage = pipe.acquire_consumer();
  if (lane == 0)
    stage.arrive();
  linpipe::ReleaseToCluster<1>{lane}(std::move(stage));
  // CHECK-NOTES: :[[@LINE-1]]:48: warning: 'stage' arrives on its barrier twice: 'operator()' arrives again after an earlier arrival [linpipe-stage-protocol]
  // CHECK-NOTES: :[[@LINE-3]]:5: note: first arrival here
  // CHECK-NOTES: :[[@LINE-3]]:48: note: after an explicit arrival, end with release_without_signal(), which does not arrive
}

// Good: a lag whose policy does not arrive, after an arrival; a policy release with none.
void quietLagAndPlainPolicy(Pipeline &pipe, unsigned lane) {
  linpipe::StageLag<Stage, 1, QuietRelease> lag;
  auto stage = pipe.acquire_consumer();
  if (lane == 0)
    stage.arrive();
  lag.push(std::move(stage));
  lag.flush();
  linpipe::ReleaseToCluster<1>{lane}(pipe.acquire_consumer());
}
