// The real linpipe module (plain C++ flavour, HostBackend): the annotations on its stage
// types drive both checks. Needs the module's BMIs, passed by the top-level CMake as
// LINPIPE_CHECKER_CXX_FLAGS, e.g. -std=c++20 -fprebuilt-module-path=<dir of linpipe*.pcm>
// (or one absolute -fmodule-file=NAME=PATH per module unit).
// REQUIRES: linpipe-module
// RUN: %check_linpipe -checks='-*,linpipe-*' %s -- %linpipe_cxx_flags \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
import linpipe;

#include <utility>
#include <vector>

using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;
using ConsumerStage = Pipeline::ConsumerStageType;

void consumerLeaks(Pipeline &pipe, bool stop) {
  auto stage = pipe.acquire_consumer();
  if (stop)
    return;
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'stage' is not released on this path [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-4]]:8: note: 'stage' acquired here
  // CHECK-NOTES: :[[@LINE-3]]:5: note: 'return' leaves the scope here
  // CHECK-NOTES: :[[@LINE-4]]:5: note: call release() or release_without_signal() before leaving the scope
  stage.release();
}

void producerReleasedTwice(Pipeline &pipe) {
  auto stage = pipe.acquire_producer();
  stage.mbar().arrive();
  stage.release();
  stage.release();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'stage' released twice [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-3]]:3: note: 'stage' released here
}

void discarded(Pipeline &pipe) {
  (void)pipe.acquire_consumer();
  // CHECK-NOTES: :[[@LINE-1]]:14: warning: linear value returned by 'acquire_consumer' is discarded without being released [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-2]]:14: note: bind it to a variable and call release() or release_without_signal() on every path
}

void protocolSlips(Pipeline &pipe) {
  auto silent = pipe.acquire_consumer();
  silent.release_without_signal();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'silent' is released by 'release_without_signal' but no path before it signals its barrier [linpipe-stage-protocol]
  // CHECK-NOTES: :[[@LINE-3]]:8: note: 'silent' acquired here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: call mbar() or arrive() before 'release_without_signal', or release it with release(), which arrives
  auto twice = pipe.acquire_consumer();
  twice.arrive();
  twice.release();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'twice' arrives on its barrier twice: 'release' arrives again after an earlier arrival [linpipe-stage-protocol]
  // CHECK-NOTES: :[[@LINE-3]]:3: note: first arrival here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: after an explicit arrival, end with release_without_signal(), which does not arrive
}

// Accepted.
void laneGuarded(Pipeline &pipe, int lane) {
  auto stage = pipe.acquire_consumer();
  if (lane < 2)
    stage.arrive();
  std::move(stage).release_without_signal();
}

void scopes(Pipeline &pipe) {
  {
    auto scope = pipe.consume();
    (void)scope.index();
  }
  auto scope = pipe.produce();
  scope.mbar().arrive();
}

void handOff(Pipeline &pipe, std::vector<ConsumerStage> &parked) {
  parked.push_back(linpipe::hand_off(pipe.acquire_consumer()));
}

ConsumerStage passOn(Pipeline &pipe) { return pipe.acquire_consumer(); }

// The real StageLag: linear from its (default) construction, pushing transfers a stage.
using Lag = linpipe::StageLag<ConsumerStage, 1>;

void lagFlushed(Pipeline &pipe, int n) {
  Lag lag;
  for (int i = 0; i < n; ++i)
    lag.push(pipe.acquire_consumer());
  lag.flush();
}

void twoLiveStages(Pipeline &pipe) {
  auto first = pipe.acquire_consumer();
  auto second = pipe.acquire_consumer();
  second.release();
  first.release();
}

void lagNotFlushed(Pipeline &pipe) {
  Lag lag;
  auto stage = pipe.acquire_consumer();
  lag.push(std::move(stage));
  stage.release();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'stage' released after it was moved [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-3]]:22: note: 'stage' moved here
}
// CHECK-NOTES: :[[@LINE-1]]:1: warning: 'lag' is not released on this path [linpipe-linear-stage]
// CHECK-NOTES: :[[@LINE-8]]:7: note: 'lag' acquired here
// CHECK-NOTES: :[[@LINE-3]]:1: note: the scope of 'lag' ends here
// CHECK-NOTES: :[[@LINE-4]]:1: note: call flush() before leaving the scope
