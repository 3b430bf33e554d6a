// RUN: %check_linpipe -checks='-*,linpipe-linear-stage' %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
#include "stage_types.h"
using namespace lp;

//===----------------------------------------------------------------------===//
// Accepted: loops solved to a fixpoint
//===----------------------------------------------------------------------===//

void acquirePerIteration(Pipeline &pipe, int n) {
  for (int i = 0; i < n; ++i) {
    auto stage = pipe.acquire_consumer();
    work(stage.index());
    stage.release();
  }
}

void acquiredBeforeLoopReleasedOnTheWayOut(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  while (true) {
    if (done()) {
      stage.release();
      break;
    }
    work(stage.index());
  }
}

void acquiredBeforeLoopReleasedOnReturn(Pipeline &pipe, int n) {
  auto stage = pipe.acquire_consumer();
  for (int i = 0;; ++i) {
    if (i == n) {
      stage.release();
      return;
    }
  }
}

void rotateThroughTheLoop(Pipeline &pipe, int n) {
  auto stage = pipe.acquire_consumer();
  for (int i = 0; i < n; ++i) {
    work(stage.index());
    stage.release();
    stage = pipe.acquire_consumer();
  }
  stage.release();
}

void doWhileEveryIteration(Pipeline &pipe) {
  do {
    auto stage = pipe.acquire_producer();
    stage.mbar().expect_tx(64);
    stage.release();
  } while (!done());
}

void nestedLoopsWithContinue(Pipeline &pipe, int n) {
  for (int i = 0; i < n; ++i) {
    auto stage = pipe.acquire_consumer();
    for (int j = 0; j < n; ++j) {
      if (j == i)
        continue;
      work(stage.index());
    }
    stage.release();
  }
}

//===----------------------------------------------------------------------===//
// Flagged
//===----------------------------------------------------------------------===//

void releasedOnlyInsideLoop(Pipeline &pipe, int n) {
  auto stage = pipe.acquire_consumer();
  while (n-- > 0) {
    if (done()) {
      stage.release();
      break;
    }
  }
}
// CHECK-NOTES: :[[@LINE-1]]:1: warning: 'stage' is not released on some paths reaching this point [linpipe-linear-stage]
// CHECK-NOTES: :[[@LINE-9]]:8: note: 'stage' acquired here
// CHECK-NOTES: :[[@LINE-3]]:1: note: the scope of 'stage' ends here
// CHECK-NOTES: :[[@LINE-4]]:1: note: call release() or release_without_signal() before leaving the scope

void reacquiredWithoutRelease(Pipeline &pipe, int n) {
  auto stage = pipe.acquire_consumer();
  for (int i = 0; i < n; ++i) {
    work(stage.index());
    stage = pipe.acquire_consumer();
    // CHECK-NOTES: :[[@LINE-1]]:11: warning: 'stage' is not released before it is overwritten
    // CHECK-NOTES: :[[@LINE-5]]:8: note: 'stage' acquired here
    // CHECK-NOTES: :[[@LINE-3]]:11: note: the assignment overwrites 'stage' here
    // CHECK-NOTES: :[[@LINE-4]]:11: note: call release() or release_without_signal() before assigning a new value
  }
  stage.release();
}

void usedInNextIterationAfterRelease(Pipeline &pipe, int n) {
  auto stage = pipe.acquire_consumer();
  for (int i = 0; i < n; ++i) {
    work(stage.index());
    // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'stage' used after it was released
    // CHECK-NOTES: :[[@LINE+2]]:7: note: 'stage' released here in an earlier loop iteration
    if (i == 0)
      stage.release();
    // CHECK-NOTES: :[[@LINE-1]]:7: warning: 'stage' released twice
    // CHECK-NOTES: :[[@LINE-2]]:7: note: 'stage' released here in an earlier loop iteration
  }
}
// CHECK-NOTES: :[[@LINE-1]]:1: warning: 'stage' is not released on some paths reaching this point
// CHECK-NOTES: :[[@LINE-12]]:8: note: 'stage' acquired here
// CHECK-NOTES: :[[@LINE-3]]:1: note: the scope of 'stage' ends here
// CHECK-NOTES: :[[@LINE-4]]:1: note: call release() or release_without_signal() before leaving the scope

void acquiredInLoopLeakedOnBackEdge(Pipeline &pipe, int n) {
  int i = 0;
again:
  auto stage = pipe.acquire_consumer();
  if (++i < n)
    goto again;
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'stage' is not released on this path
  // CHECK-NOTES: :[[@LINE-4]]:8: note: 'stage' acquired here
  // CHECK-NOTES: :[[@LINE-3]]:5: note: 'goto' leaves the scope here
  // CHECK-NOTES: :[[@LINE-4]]:5: note: call release() or release_without_signal() before leaving the scope
  stage.release();
}
