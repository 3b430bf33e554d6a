// RUN: %check_linpipe -checks='-*,linpipe-linear-stage,linpipe-stage-protocol' %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
// Several live stages of one role, a stage held across iterations, and the lag holder.
#include "stage_types.h"
using namespace lp;

//===----------------------------------------------------------------------===//
// Accepted
//===----------------------------------------------------------------------===//

// The Hopper mainloop: keep stage k-1 until group k is issued.
void holdPreviousAcrossIterations(Pipeline &pipe, int n) {
  auto previous = pipe.acquire_consumer();
  for (int i = 1; i < n; ++i) {
    auto current = pipe.acquire_consumer();
    work(current.index());
    previous.release();
    previous = static_cast<ConsumerStage &&>(current);
  }
  previous.release();
}

// Two live stages of one role, released out of acquisition order.
void twoLiveStagesOutOfOrder(Pipeline &pipe) {
  auto first = pipe.acquire_consumer();
  auto second = pipe.acquire_consumer();
  work(first.index() + second.index());
  second.release();
  first.release();
}

// Every stage moved into the lag; the lag flushed once the loop ends.
void streamThroughLag(Pipeline &pipe, int n) {
  Lag lag;
  for (int i = 0; i < n; ++i) {
    auto stage = pipe.acquire_consumer();
    work(stage.index());
    lag.push(static_cast<ConsumerStage &&>(stage));
  }
  lag.flush();
}

// One lag per tile, flushed at the end of each.
void lagPerTile(Pipeline &pipe, int tiles, int k) {
  for (int t = 0; t < tiles; ++t) {
    Lag retiring;
    for (int i = 0; i < k; ++i)
      retiring.push(pipe.acquire_consumer());
    retiring.flush();
  }
}

// A release policy: takes the stage by value and consumes it on every path.
struct LaneGuardedRelease {
  unsigned lane;
  void operator()(ConsumerStage stage) const {
    if (lane == 0)
      stage.arrive();
    stage.release_without_signal();
  }
};

//===----------------------------------------------------------------------===//
// Flagged
//===----------------------------------------------------------------------===//

void lagNeverFlushed(Pipeline &pipe) {
  Lag lag;
  lag.push(pipe.acquire_consumer());
}
// CHECK-NOTES: :[[@LINE-1]]:1: warning: 'lag' is not released on this path [linpipe-linear-stage]
// CHECK-NOTES: :[[@LINE-4]]:7: note: 'lag' acquired here
// CHECK-NOTES: :[[@LINE-3]]:1: note: the scope of 'lag' ends here
// CHECK-NOTES: :[[@LINE-4]]:1: note: call flush() before leaving the scope

void lagFlushedOnOneBranchOnly(Pipeline &pipe, bool early) {
  Lag lag;
  lag.push(pipe.acquire_consumer());
  if (early)
    return;
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'lag' is not released on this path [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-5]]:7: note: 'lag' acquired here
  // CHECK-NOTES: :[[@LINE-3]]:5: note: 'return' leaves the scope here
  // CHECK-NOTES: :[[@LINE-4]]:5: note: call flush() before leaving the scope
  lag.flush();
}

void stageUsedAfterMovedIntoLag(Pipeline &pipe) {
  Lag lag;
  auto stage = pipe.acquire_consumer();
  lag.push(static_cast<ConsumerStage &&>(stage));
  work(stage.index());
  // CHECK-NOTES: :[[@LINE-1]]:8: warning: 'stage' used after it was moved [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-3]]:42: note: 'stage' moved here
  lag.flush();
}

void pushAfterFlush(Pipeline &pipe) {
  Lag lag;
  lag.flush();
  lag.push(pipe.acquire_consumer());
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'lag' used after it was released [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-3]]:3: note: 'lag' released here
}

void previousNotReleasedAfterTheLoop(Pipeline &pipe, int n) {
  auto previous = pipe.acquire_consumer();
  for (int i = 1; i < n; ++i) {
    if (done())
      break;
    auto current = pipe.acquire_consumer();
    previous.release();
    previous = static_cast<ConsumerStage &&>(current);
  }
}
// CHECK-NOTES: :[[@LINE-1]]:1: warning: 'previous' is not released on this path [linpipe-linear-stage]
// CHECK-NOTES: :[[@LINE-10]]:8: note: 'previous' acquired here
// CHECK-NOTES: :[[@LINE-3]]:1: note: the scope of 'previous' ends here
// CHECK-NOTES: :[[@LINE-4]]:1: note: call release() or release_without_signal() before leaving the scope

void previousOverwrittenWhileLive(Pipeline &pipe, int n) {
  auto previous = pipe.acquire_consumer();
  for (int i = 1; i < n; ++i) {
    auto current = pipe.acquire_consumer();
    previous = static_cast<ConsumerStage &&>(current);
    // CHECK-NOTES: :[[@LINE-1]]:14: warning: 'previous' is not released before it is overwritten [linpipe-linear-stage]
    // CHECK-NOTES: :[[@LINE-5]]:8: note: 'previous' acquired here
    // CHECK-NOTES: :[[@LINE-3]]:14: note: the assignment overwrites 'previous' here
    // CHECK-NOTES: :[[@LINE-4]]:14: note: call release() or release_without_signal() before assigning a new value
  }
  previous.release();
}

// A release policy that forgets to release what the lag hands it.
struct ForgetfulRelease {
  void operator()(ConsumerStage stage) const { work(stage.index()); }
  // CHECK-NOTES: :[[@LINE-1]]:69: warning: by-value parameter 'stage' is neither released nor moved on this path [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-2]]:33: note: 'stage' received here
  // CHECK-NOTES: :[[@LINE-3]]:69: note: the function ends here
  // CHECK-NOTES: :[[@LINE-4]]:69: note: call release() or release_without_signal(), or move 'stage' on, before leaving the function
};

void discardedLag() { Lag(); }
// CHECK-NOTES: :[[@LINE-1]]:23: warning: linear value created by 'Lag' is discarded without being released [linpipe-linear-stage]
// CHECK-NOTES: :[[@LINE-2]]:23: note: bind it to a variable and call flush() on every path
