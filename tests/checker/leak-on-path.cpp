// RUN: %check_linpipe -checks='-*,linpipe-linear-stage' %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
#include "stage_types.h"
using namespace lp;

//===----------------------------------------------------------------------===//
// General tests
//===----------------------------------------------------------------------===//

void neverReleased(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  work(stage.index());
}
// CHECK-NOTES: :[[@LINE-1]]:1: warning: 'stage' is not released on this path [linpipe-linear-stage]
// CHECK-NOTES: :[[@LINE-4]]:8: note: 'stage' acquired here
// CHECK-NOTES: :[[@LINE-3]]:1: note: the scope of 'stage' ends here
// CHECK-NOTES: :[[@LINE-4]]:1: note: call release() or release_without_signal() before leaving the scope

void producerNeverReleased(Pipeline &pipe) {
  ProducerStage stage = pipe.acquire_producer();
  stage.mbar().expect_tx(128);
}
// CHECK-NOTES: :[[@LINE-1]]:1: warning: 'stage' is not released on this path
// CHECK-NOTES: :[[@LINE-4]]:17: note: 'stage' acquired here
// CHECK-NOTES: :[[@LINE-3]]:1: note: the scope of 'stage' ends here
// CHECK-NOTES: :[[@LINE-4]]:1: note: call release() before leaving the scope

void releasedOnEveryPath(Pipeline &pipe, bool early) {
  auto stage = pipe.acquire_consumer();
  if (early) {
    stage.release();
    return;
  }
  work(stage.index());
  stage.release();
}

//===----------------------------------------------------------------------===//
// Exits: return, break, continue, goto, switch, end of a branch
//===----------------------------------------------------------------------===//

void earlyReturn(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  if (done())
    return;
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'stage' is not released on this path
  // CHECK-NOTES: :[[@LINE-4]]:8: note: 'stage' acquired here
  // CHECK-NOTES: :[[@LINE-3]]:5: note: 'return' leaves the scope here
  // CHECK-NOTES: :[[@LINE-4]]:5: note: call release() or release_without_signal() before leaving the scope
  stage.release();
}

void releasedOnOneBranch(Pipeline &pipe, bool c) {
  auto stage = pipe.acquire_consumer();
  if (c)
    stage.release();
}
// CHECK-NOTES: :[[@LINE-1]]:1: warning: 'stage' is not released on some paths reaching this point
// CHECK-NOTES: :[[@LINE-5]]:8: note: 'stage' acquired here
// CHECK-NOTES: :[[@LINE-3]]:1: note: the scope of 'stage' ends here
// CHECK-NOTES: :[[@LINE-4]]:1: note: call release() or release_without_signal() before leaving the scope

void breakOutOfLoop(Pipeline &pipe, int n) {
  for (int i = 0; i < n; ++i) {
    auto stage = pipe.acquire_consumer();
    if (done())
      break;
    // CHECK-NOTES: :[[@LINE-1]]:7: warning: 'stage' is not released on this path
    // CHECK-NOTES: :[[@LINE-4]]:10: note: 'stage' acquired here
    // CHECK-NOTES: :[[@LINE-3]]:7: note: 'break' leaves the scope here
    // CHECK-NOTES: :[[@LINE-4]]:7: note: call release() or release_without_signal() before leaving the scope
    stage.release();
  }
}

void continueInLoop(Pipeline &pipe, int n) {
  for (int i = 0; i < n; ++i) {
    auto stage = pipe.acquire_consumer();
    if (stage.index() == 0)
      continue;
    // CHECK-NOTES: :[[@LINE-1]]:7: warning: 'stage' is not released on this path
    // CHECK-NOTES: :[[@LINE-4]]:10: note: 'stage' acquired here
    // CHECK-NOTES: :[[@LINE-3]]:7: note: 'continue' leaves the scope here
    // CHECK-NOTES: :[[@LINE-4]]:7: note: call release() or release_without_signal() before leaving the scope
    stage.release();
  }
}

void gotoOut(Pipeline &pipe) {
  {
    auto stage = pipe.acquire_consumer();
    if (done())
      goto out;
    // CHECK-NOTES: :[[@LINE-1]]:7: warning: 'stage' is not released on this path
    // CHECK-NOTES: :[[@LINE-4]]:10: note: 'stage' acquired here
    // CHECK-NOTES: :[[@LINE-3]]:7: note: 'goto' leaves the scope here
    // CHECK-NOTES: :[[@LINE-4]]:7: note: call release() or release_without_signal() before leaving the scope
    stage.release();
  }
out:
  work(0);
}

void switchFallsOut(Pipeline &pipe, int k) {
  auto stage = pipe.acquire_consumer();
  switch (k) {
  case 0:
    stage.release();
    break;
  case 1:
    work(stage.index());
    stage.release();
    break;
  }
}
// CHECK-NOTES: :[[@LINE-1]]:1: warning: 'stage' is not released on some paths reaching this point
// CHECK-NOTES: :[[@LINE-12]]:8: note: 'stage' acquired here
// CHECK-NOTES: :[[@LINE-3]]:1: note: the scope of 'stage' ends here
// CHECK-NOTES: :[[@LINE-4]]:1: note: call release() or release_without_signal() before leaving the scope

void switchEveryCase(Pipeline &pipe, int k) {
  auto stage = pipe.acquire_consumer();
  switch (k) {
  case 0:
    stage.release();
    break;
  default:
    std::move(stage).release_without_signal();
    break;
  }
}

void innerScopeEnds(Pipeline &pipe) {
  {
    auto stage = pipe.acquire_consumer();
    work(stage.index());
  }
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'stage' is not released on this path
  // CHECK-NOTES: :[[@LINE-4]]:10: note: 'stage' acquired here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: the scope of 'stage' ends here
  // CHECK-NOTES: :[[@LINE-4]]:3: note: call release() or release_without_signal() before leaving the scope
  work(1);
}

void conditionVariable(Pipeline &pipe) {
  if (auto stage = pipe.acquire_consumer(); stage.index() == 0)
    stage.release();
}
// CHECK-NOTES: :[[@LINE-2]]:19: warning: 'stage' is not released on some paths reaching this point
// CHECK-NOTES: :[[@LINE-4]]:12: note: 'stage' acquired here
// CHECK-NOTES: :[[@LINE-4]]:19: note: the scope of 'stage' ends here
// CHECK-NOTES: :[[@LINE-5]]:19: note: call release() or release_without_signal() before leaving the scope

//===----------------------------------------------------------------------===//
// Overwriting a live value
//===----------------------------------------------------------------------===//

void overwrittenWhileLive(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  stage = pipe.acquire_consumer();
  // CHECK-NOTES: :[[@LINE-1]]:9: warning: 'stage' is not released before it is overwritten
  // CHECK-NOTES: :[[@LINE-3]]:8: note: 'stage' acquired here
  // CHECK-NOTES: :[[@LINE-3]]:9: note: the assignment overwrites 'stage' here
  // CHECK-NOTES: :[[@LINE-4]]:9: note: call release() or release_without_signal() before assigning a new value
  stage.release();
}

void overwrittenAfterRelease(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  stage.release();
  stage = pipe.acquire_consumer();
  stage.release();
}

void overwrittenByMove(Pipeline &pipe) {
  auto first = pipe.acquire_consumer();
  auto second = pipe.acquire_consumer();
  first = std::move(second);
  // CHECK-NOTES: :[[@LINE-1]]:9: warning: 'first' is not released before it is overwritten
  // CHECK-NOTES: :[[@LINE-4]]:8: note: 'first' acquired here
  // CHECK-NOTES: :[[@LINE-3]]:9: note: the assignment overwrites 'first' here
  // CHECK-NOTES: :[[@LINE-4]]:9: note: call release() or release_without_signal() before assigning a new value
  first.release();
}

//===----------------------------------------------------------------------===//
// Lifetime-extended temporaries and device code
//===----------------------------------------------------------------------===//

void boundToReference(Pipeline &pipe) {
  auto &&stage = pipe.acquire_consumer();
  work(stage.index());
}
// CHECK-NOTES: :[[@LINE-1]]:1: warning: 'stage' is not released on this path
// CHECK-NOTES: :[[@LINE-4]]:10: note: 'stage' acquired here
// CHECK-NOTES: :[[@LINE-3]]:1: note: the scope of 'stage' ends here
// CHECK-NOTES: :[[@LINE-4]]:1: note: call release() or release_without_signal() before leaving the scope

void boundToReferenceReleased(Pipeline &pipe) {
  auto &&stage = pipe.acquire_consumer();
  stage.release();
}

__global__ void kernelEarlyReturn(Pipeline *pipe, int lane) {
  auto stage = pipe->acquire_consumer();
  if (lane != 0)
    return;
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'stage' is not released on this path
  // CHECK-NOTES: :[[@LINE-4]]:8: note: 'stage' acquired here
  // CHECK-NOTES: :[[@LINE-3]]:5: note: 'return' leaves the scope here
  // CHECK-NOTES: :[[@LINE-4]]:5: note: call release() or release_without_signal() before leaving the scope
  stage.release();
}
