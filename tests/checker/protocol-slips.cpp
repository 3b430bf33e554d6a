// RUN: %check_linpipe -checks='-*,linpipe-stage-protocol' %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
#include "stage_types.h"
using namespace lp;

//===----------------------------------------------------------------------===//
// release_without_signal() with no signal before it
//===----------------------------------------------------------------------===//

void releaseWithoutAnySignal(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  work(stage.index());
  stage.release_without_signal();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'stage' is released by 'release_without_signal' but no path before it signals its barrier [linpipe-stage-protocol]
  // CHECK-NOTES: :[[@LINE-4]]:8: note: 'stage' acquired here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: call mbar() or arrive() before 'release_without_signal', or release it with release(), which arrives
}

void movedReleaseWithoutSignal(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  std::move(stage).release_without_signal();
  // CHECK-NOTES: :[[@LINE-1]]:13: warning: 'stage' is released by 'release_without_signal' but no path before it signals its barrier
  // CHECK-NOTES: :[[@LINE-3]]:8: note: 'stage' acquired here
  // CHECK-NOTES: :[[@LINE-3]]:13: note: call mbar() or arrive() before 'release_without_signal', or release it with release(), which arrives
}

void temporaryReleasedWithoutSignal(Pipeline &pipe) {
  pipe.acquire_consumer().release_without_signal();
  // CHECK-NOTES: :[[@LINE-1]]:27: warning: the value returned by 'acquire_consumer' is released by 'release_without_signal' but no path before it signals its barrier
  // CHECK-NOTES: :[[@LINE-2]]:27: note: call mbar() or arrive() before 'release_without_signal', or release it with release(), which arrives
}

void signalAfterTheRelease(Pipeline &pipe, int n) {
  for (int i = 0; i < n; ++i) {
    auto stage = pipe.acquire_consumer();
    stage.release_without_signal();
    // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'stage' is released by 'release_without_signal' but no path before it signals its barrier
    // CHECK-NOTES: :[[@LINE-3]]:10: note: 'stage' acquired here
    // CHECK-NOTES: :[[@LINE-3]]:5: note: call mbar() or arrive() before 'release_without_signal', or release it with release(), which arrives
    auto next = pipe.acquire_consumer();
    next.arrive();
    std::move(next).release_without_signal();
  }
}

//===----------------------------------------------------------------------===//
// Accepted: possibly signalled is enough
//===----------------------------------------------------------------------===//

void laneGuardedArrive(Pipeline &pipe, int lane, int cluster_size) {
  auto stage = pipe.acquire_consumer();
  if (lane < cluster_size)
    stage.arrive();
  std::move(stage).release_without_signal();
}

void signalledThroughMbar(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  stage.mbar().arrive();
  stage.release_without_signal();
}

void signalFollowsTheMove(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  stage.arrive();
  auto moved = std::move(stage);
  moved.release_without_signal();
}

void parameterMayBeSignalledByTheCaller(ConsumerStage stage) {
  stage.release_without_signal();
}

void signalledInLoopBeforeRelease(Pipeline &pipe, int peers) {
  auto stage = pipe.acquire_consumer();
  for (int peer = 0; peer < peers; ++peer)
    stage.mbar().arrive();
  stage.release_without_signal();
}

//===----------------------------------------------------------------------===//
// Two arrivals: arrive() then release()
//===----------------------------------------------------------------------===//

void arriveThenRelease(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  stage.arrive();
  stage.release();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'stage' arrives on its barrier twice: 'release' arrives again after an earlier arrival [linpipe-stage-protocol]
  // CHECK-NOTES: :[[@LINE-3]]:3: note: first arrival here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: after an explicit arrival, end with release_without_signal(), which does not arrive
}

void laneGuardedArriveThenRelease(Pipeline &pipe, int lane) {
  auto stage = pipe.acquire_consumer();
  if (lane == 0)
    stage.arrive();
  std::move(stage).release();
  // CHECK-NOTES: :[[@LINE-1]]:13: warning: 'stage' arrives on its barrier twice: 'release' arrives again after an earlier arrival
  // CHECK-NOTES: :[[@LINE-3]]:5: note: first arrival here
  // CHECK-NOTES: :[[@LINE-3]]:13: note: after an explicit arrival, end with release_without_signal(), which does not arrive
}

void arrivalCarriedByMove(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  stage.arrive();
  ConsumerStage moved(std::move(stage));
  moved.release();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'moved' arrives on its barrier twice: 'release' arrives again after an earlier arrival
  // CHECK-NOTES: :[[@LINE-4]]:3: note: first arrival here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: after an explicit arrival, end with release_without_signal(), which does not arrive
}

// mbar() signals but does not arrive on the stage's own barrier count in the model.
void mbarThenRelease(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  stage.mbar().expect_tx(16);
  stage.release();
}

void producerRelease(Pipeline &pipe) {
  auto stage = pipe.acquire_producer();
  stage.mbar().arrive();
  stage.release();
}

void arriveOnOtherStage(Pipeline &pipe) {
  auto first = pipe.acquire_consumer();
  auto second = pipe.acquire_consumer();
  first.arrive();
  second.release();
  first.release_without_signal();
}
