// RUN: %check_linpipe -checks='-*,linpipe-linear-stage' %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
#include "stage_types.h"
using namespace lp;

void ignoresParameter(ConsumerStage stage) {
  work(stage.index());
}
// CHECK-NOTES: :[[@LINE-1]]:1: warning: by-value parameter 'stage' is neither released nor moved on this path [linpipe-linear-stage]
// CHECK-NOTES: :[[@LINE-4]]:37: note: 'stage' received here
// CHECK-NOTES: :[[@LINE-3]]:1: note: the function ends here
// CHECK-NOTES: :[[@LINE-4]]:1: note: call release() or release_without_signal(), or move 'stage' on, before leaving the function

void releasesOnOneBranch(ProducerStage stage, bool c) {
  if (c)
    stage.release();
}
// CHECK-NOTES: :[[@LINE-1]]:1: warning: by-value parameter 'stage' is neither released nor moved on this path
// CHECK-NOTES: :[[@LINE-5]]:40: note: 'stage' received here
// CHECK-NOTES: :[[@LINE-3]]:1: note: the function ends here
// CHECK-NOTES: :[[@LINE-4]]:1: note: call release(), or move 'stage' on, before leaving the function

int returnsEarly(ConsumerStage stage) {
  if (stage.index() == 0)
    return 0;
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: by-value parameter 'stage' is neither released nor moved on this path
  // CHECK-NOTES: :[[@LINE-4]]:32: note: 'stage' received here
  // CHECK-NOTES: :[[@LINE-3]]:5: note: 'return' leaves the scope here
  // CHECK-NOTES: :[[@LINE-4]]:5: note: call release() or release_without_signal(), or move 'stage' on, before leaving the function
  stage.release();
  return 1;
}

struct Consumer {
  void operator()(ConsumerStage stage) const { work(stage.index()); }
  // CHECK-NOTES: :[[@LINE-1]]:69: warning: by-value parameter 'stage' is neither released nor moved on this path
  // CHECK-NOTES: :[[@LINE-2]]:33: note: 'stage' received here
  // CHECK-NOTES: :[[@LINE-3]]:69: note: the function ends here
  // CHECK-NOTES: :[[@LINE-4]]:69: note: call release() or release_without_signal(), or move 'stage' on, before leaving the function
};

// Accepted: consumed, passed on, returned, or borrowed (a reference is not an obligation).
void releases(ConsumerStage stage) { stage.release(); }
void passesOn(ConsumerStage stage) { take_consumer(std::move(stage)); }
ConsumerStage returns(ConsumerStage stage) { return stage; }
ConsumerStage returnsMoved(ConsumerStage stage) { return std::move(stage); }
void borrows(ConsumerStage &stage) { work(stage.index()); }
void releasesOrPassesOn(ConsumerStage stage, bool c) {
  if (c)
    take_consumer_rvalue(std::move(stage));
  else
    stage.release();
}
void unnamedUnused(int, bool) {}

// A throwing path does not return to the caller: not reported (exceptions are not modelled).
void throwsBeforeRelease(ConsumerStage stage, bool bad) {
  if (bad)
    throw 1;
  stage.release();
}

// A class derived from a linear class is linear, with its base's consuming members.
struct DerivedStage : ConsumerStage {
  DerivedStage(DerivedStage &&other) noexcept;
};
void derivedIgnored(DerivedStage stage) {}
// CHECK-NOTES: :[[@LINE-1]]:42: warning: by-value parameter 'stage' is neither released nor moved on this path
// CHECK-NOTES: :[[@LINE-2]]:34: note: 'stage' received here
// CHECK-NOTES: :[[@LINE-3]]:42: note: the function ends here
// CHECK-NOTES: :[[@LINE-4]]:42: note: call release() or release_without_signal(), or move 'stage' on, before leaving the function

// An unnamed parameter cannot be released: reported under its position.
void unnamedStage(int, ConsumerStage) {}
// CHECK-NOTES: :[[@LINE-1]]:40: warning: by-value parameter '<unnamed #2>' is neither released nor moved on this path
// CHECK-NOTES: :[[@LINE-2]]:37: note: '<unnamed #2>' received here
// CHECK-NOTES: :[[@LINE-3]]:40: note: the function ends here
// CHECK-NOTES: :[[@LINE-4]]:40: note: call release() or release_without_signal(), or move '<unnamed #2>' on, before leaving the function
