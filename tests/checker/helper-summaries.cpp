// Helpers whose bodies the translation unit has: what each does to a stage it is lent by
// reference (released, signalled, arrived on, stored) is applied at the call. Opaque helpers
// (declared only) still borrow.
// RUN: %check_linpipe -checks='-*,linpipe-*' %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
#include "stage_types.h"
#include <vector>
using namespace lp;

void finish(ConsumerStage &stage) { stage.release(); }
void finishQuietly(ConsumerStage &stage) { stage.release_without_signal(); }
void signal(const ConsumerStage &stage) { stage.arrive(); }
void peek(const ConsumerStage &stage) { work(stage.index()); }
void finishVia(ConsumerStage &stage) { finish(stage); }
void finishSometimes(ConsumerStage &stage) {
  if (done())
    stage.release();
}
void keep(ConsumerStage &stage, std::vector<ConsumerStage> &kept) {
  kept.push_back(hand_off(std::move(stage)));
}
void passOn(ConsumerStage &stage) { take_consumer(std::move(stage)); }
void recurse(ConsumerStage &stage, int depth) {
  if (depth > 0)
    recurse(stage, depth - 1);
}
struct Finisher {
  void operator()(ConsumerStage &stage) const { stage.release(); }
};

// Bad: the helper released it, and the caller releases it again.
void releasedByHelperThenAgain(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  finish(stage);
  stage.release();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'stage' released twice [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-3]]:10: note: 'stage' released here
}

// Bad: two levels down, the same.
void releasedTwoLevelsDownThenAgain(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  finishVia(stage);
  stage.release();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'stage' released twice [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-3]]:13: note: 'stage' released here
}

// Bad: a member call operator releases it; then the stage is used.
void usedAfterAFunctionObjectReleasedIt(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  Finisher{}(stage);
  work(stage.index());
  // CHECK-NOTES: :[[@LINE-1]]:8: warning: 'stage' used after it was released [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-3]]:14: note: 'stage' released here
}

// Bad: the helper releases on some paths only; the caller releases again.
void mayBeReleasedTwice(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  finishSometimes(stage);
  stage.release();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'stage' released twice [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-3]]:19: note: 'stage' released here
}

// Bad: the helper ends it without a signal, and nothing signalled before the call.
void helperReleasesWithoutASignal(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  finishQuietly(stage);
  // CHECK-NOTES: :[[@LINE-1]]:17: warning: 'stage' is released by 'finishQuietly' but no path before it signals its barrier [linpipe-stage-protocol]
  // CHECK-NOTES: :[[@LINE-3]]:8: note: 'stage' acquired here
  // CHECK-NOTES: :[[@LINE-3]]:17: note: call mbar() or arrive() before 'finishQuietly', or release it with release(), which arrives
}

// Bad: the caller arrived, and the helper's release() arrives again.
void arrivedThenHelperReleases(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  stage.arrive();
  finish(stage);
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'stage' arrives on its barrier twice: 'finish' arrives again after an earlier arrival [linpipe-stage-protocol]
  // CHECK-NOTES: :[[@LINE-3]]:3: note: first arrival here
  // CHECK-NOTES: :[[@LINE-3]]:10: note: after an explicit arrival, end with release_without_signal(), which does not arrive
}

// Bad: the helper borrowed it; the caller still owes the release.
void borrowedAndLeaked(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  peek(stage);
}
// CHECK-NOTES: :[[@LINE-1]]:1: warning: 'stage' is not released on this path [linpipe-linear-stage]
// CHECK-NOTES: :[[@LINE-4]]:8: note: 'stage' acquired here
// CHECK-NOTES: :[[@LINE-3]]:1: note: the scope of 'stage' ends here
// CHECK-NOTES: :[[@LINE-4]]:1: note: call release() or release_without_signal() before leaving the scope

// Good: the helper's release is the only one.
void releasedByHelper(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  work(stage.index());
  finish(stage);
}

// Good: a helper signals through a const reference, then the caller ends it quietly.
void signalledByHelper(Pipeline &pipe, int lane) {
  auto stage = pipe.acquire_consumer();
  if (lane == 0)
    signal(stage);
  stage.release_without_signal();
}

// Good: signalled here, ended quietly by the helper.
void signalledThenHelperEndsIt(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  stage.arrive();
  finishQuietly(stage);
}

// Good: borrowed, then released.
void borrowedThenReleased(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  peek(stage);
  stage.release();
}

// Good: the helper passes it on or stores it on purpose: the caller is done with it.
void passedOnByHelper(Pipeline &pipe, std::vector<ConsumerStage> &kept) {
  auto first = pipe.acquire_consumer();
  passOn(first);
  auto second = pipe.acquire_consumer();
  keep(second, kept);
}

// Good: a recursive helper stays opaque (a borrow), and an opaque helper borrows as before.
void recursiveAndOpaqueHelpers(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  recurse(stage, 3);
  borrow(stage);
  stage.release();
}

// Good: a lambda lent the stage releases it.
void lambdaReleases(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  auto end = [](ConsumerStage &s) { s.release(); };
  end(stage);
}

// Good: a virtual member may be overridden (here by one that only looks), so it stays opaque:
// a borrow, and the caller's release is the release.
struct Retirer {
  virtual void retire(ConsumerStage &stage) { stage.release(); }
};
struct Looker : Retirer {
  void retire(ConsumerStage &stage) override { work(stage.index()); }
};
void throughAVirtualMember(Pipeline &pipe, Retirer &retirer) {
  auto stage = pipe.acquire_consumer();
  retirer.retire(stage);
  stage.release();
}
