// RUN: %check_linpipe -checks='-*,linpipe-linear-stage' %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
//
// A function that takes a stage by rvalue reference is handed the obligation: its caller's
// `f(std::move(stage))` stops tracking the stage, so the receiver must release it or pass it on
// on every path, exactly like a by-value parameter.
#include "stage_types.h"
using namespace lp;

void onlyReads(ConsumerStage &&stage) { work(stage.index()); }
// CHECK-NOTES: :[[@LINE-1]]:62: warning: rvalue-reference parameter 'stage' is neither released nor moved (its caller handed it over) on this path [linpipe-linear-stage]
// CHECK-NOTES: :[[@LINE-2]]:32: note: 'stage' received here
// CHECK-NOTES: :[[@LINE-3]]:62: note: the function ends here
// CHECK-NOTES: :[[@LINE-4]]:62: note: call release() or release_without_signal(), or move 'stage' on, before leaving the function

void releasesOnOneBranch(ProducerStage &&stage, bool c) {
  if (c)
    stage.release();
}
// CHECK-NOTES: :[[@LINE-1]]:1: warning: rvalue-reference parameter 'stage' is neither released nor moved (its caller handed it over) on this path
// CHECK-NOTES: :[[@LINE-5]]:42: note: 'stage' received here
// CHECK-NOTES: :[[@LINE-3]]:1: note: the function ends here
// CHECK-NOTES: :[[@LINE-4]]:1: note: call release(), or move 'stage' on, before leaving the function

int returnsEarly(ConsumerStage &&stage) {
  if (stage.index() == 0)
    return 0;
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: rvalue-reference parameter 'stage' is neither released nor moved (its caller handed it over) on this path
  // CHECK-NOTES: :[[@LINE-4]]:34: note: 'stage' received here
  // CHECK-NOTES: :[[@LINE-3]]:5: note: 'return' leaves the scope here
  // CHECK-NOTES: :[[@LINE-4]]:5: note: call release() or release_without_signal(), or move 'stage' on, before leaving the function
  stage.release();
  return 1;
}

// A forwarding reference is an rvalue reference in the instantiations that receive an rvalue:
// those are checked; the ones that receive an lvalue only borrow.
template <class Stage>
void peek(Stage &&stage) {
  work(stage.index());
}
// CHECK-NOTES: :[[@LINE-1]]:1: warning: rvalue-reference parameter 'stage' is neither released nor moved (its caller handed it over) on this path
// CHECK-NOTES: :[[@LINE-4]]:19: note: 'stage' received here
// CHECK-NOTES: :[[@LINE-3]]:1: note: the function ends here
// CHECK-NOTES: :[[@LINE-4]]:1: note: call release() or release_without_signal(), or move 'stage' on, before leaving the function

void callers(Pipeline &pipe) {
  ConsumerStage lent = pipe.acquire_consumer();
  peek(lent);             // Stage = ConsumerStage &: a borrow, no obligation in peek
  lent.release();
  ConsumerStage given = pipe.acquire_consumer();
  peek(std::move(given)); // Stage = ConsumerStage: peek owns it now, and drops it
  onlyReads(pipe.acquire_consumer());  // a temporary handed over: the receiver is at fault
}

// Accepted: receivers that release, pass on, or return the stage on every path.
void sinkProducer(ProducerStage stage);  // declared only: a by-value receiver elsewhere
void releases(ConsumerStage &&stage) { stage.release(); }
void passesOnByValue(ConsumerStage &&stage) { take_consumer(std::move(stage)); }
void passesOnByReference(ConsumerStage &&stage) { releases(std::move(stage)); }
ConsumerStage returnsIt(ConsumerStage &&stage) { return std::move(stage); }
void releasesOrPassesOn(ProducerStage &&stage, bool c) {
  if (c)
    stage.release();
  else
    sinkProducer(std::move(stage));
}
template <class Stage>
void forwards(Stage &&stage) {
  releases(std::forward<Stage>(stage));
}
void policies(Pipeline &pipe) {
  auto release = [](ConsumerStage &&stage) { stage.release(); };
  release(pipe.acquire_consumer());
  ConsumerStage held = pipe.acquire_consumer();
  forwards(std::move(held));
  ConsumerStage other = pipe.acquire_consumer();
  passesOnByReference(std::move(other));
}
// A const rvalue reference cannot be released through: it is a borrow.
void readsConst(const ConsumerStage &&stage) { work(stage.index()); }
