// RUN: %check_linpipe -checks='-*,linpipe-*' %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
#include "stage_types.h"
using namespace lp;

//===----------------------------------------------------------------------===//
// Templates: instantiations are analysed, each finding reported once
//===----------------------------------------------------------------------===//

template <int N>
void leakInTemplate() {
  auto slot = make_slot<N>();
  if (slot.value() > N)
    return;
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'slot' is not released on this path [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-4]]:8: note: 'slot' acquired here
  // CHECK-NOTES: :[[@LINE-3]]:5: note: 'return' leaves the scope here
  // CHECK-NOTES: :[[@LINE-4]]:5: note: call release() before leaving the scope
  slot.release();
}

void instantiateTwice() {
  leakInTemplate<1>();
  leakInTemplate<2>();
}

// Never instantiated: a dependent body is not analysed.
template <class Stage>
void neverInstantiated(Stage stage) {
  work(stage.index());
}

// Linear only in some instantiations: T = int is not linear.
template <class T>
void sinkAnything(T value) {}
// CHECK-NOTES: :[[@LINE-1]]:29: warning: by-value parameter 'value' is neither released nor moved on this path
// CHECK-NOTES: :[[@LINE-2]]:21: note: 'value' received here
// CHECK-NOTES: :[[@LINE-3]]:29: note: the function ends here
// CHECK-NOTES: :[[@LINE-4]]:29: note: call release() or release_without_signal(), or move 'value' on, before leaving the function

void instantiateSink(Pipeline &pipe) {
  sinkAnything(3);
  sinkAnything(pipe.acquire_consumer());
}

// An explicit specialisation of an annotated template is linear without repeating the
// attribute.
template <>
class Slot<7> {
public:
  Slot(Slot &&) noexcept;
  ~Slot();
  [[clang::annotate("linpipe::consume")]] void release();
};

void explicitSpecialisation(Slot<7> slot) {}
// CHECK-NOTES: :[[@LINE-1]]:44: warning: by-value parameter 'slot' is neither released nor moved on this path
// CHECK-NOTES: :[[@LINE-2]]:37: note: 'slot' received here
// CHECK-NOTES: :[[@LINE-3]]:44: note: the function ends here
// CHECK-NOTES: :[[@LINE-4]]:44: note: call release(), or move 'slot' on, before leaving the function

template <class Stage>
struct Relay {
  void pass(Stage stage) { take_consumer(std::move(stage)); }
  void drop(Stage stage) { stage.release(); }
};
template struct Relay<ConsumerStage>;

//===----------------------------------------------------------------------===//
// Lambdas: each body is a function of its own
//===----------------------------------------------------------------------===//

void lambdaBodyLeaks(Pipeline &pipe) {
  auto body = [&pipe] {
    auto stage = pipe.acquire_consumer();
    work(stage.index());
  };
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'stage' is not released on this path
  // CHECK-NOTES: :[[@LINE-4]]:10: note: 'stage' acquired here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: the scope of 'stage' ends here
  // CHECK-NOTES: :[[@LINE-4]]:3: note: call release() or release_without_signal() before leaving the scope
  body();
}

void lambdaParameter() {
  auto consumer = [](ConsumerStage stage) { stage.release(); };
  auto forgetful = [](ConsumerStage stage) { work(stage.index()); };
  // CHECK-NOTES: :[[@LINE-1]]:67: warning: by-value parameter 'stage' is neither released nor moved on this path
  // CHECK-NOTES: :[[@LINE-2]]:37: note: 'stage' received here
  // CHECK-NOTES: :[[@LINE-3]]:67: note: the function ends here
  // CHECK-NOTES: :[[@LINE-4]]:67: note: call release() or release_without_signal(), or move 'stage' on, before leaving the function
  (void)consumer;
  (void)forgetful;
}

void genericLambda(Pipeline &pipe) {
  auto finish = [](auto stage, bool c) {
    if (c)
      stage.release();
  };
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: by-value parameter 'stage' is neither released nor moved on this path
  // CHECK-NOTES: :[[@LINE-5]]:25: note: 'stage' received here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: the function ends here
  // CHECK-NOTES: :[[@LINE-4]]:3: note: call release(), or move 'stage' on, before leaving the function
  finish(pipe.acquire_producer(), true);
  finish(make_slot<3>(), false);
}

template <int N>
void lambdaInTemplate(Pipeline &pipe) {
  auto run = [&] {
    auto stage = pipe.acquire_consumer();
    stage.release();
    stage.release();
    // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'stage' released twice
    // CHECK-NOTES: :[[@LINE-3]]:5: note: 'stage' released here
  };
  run();
}
template void lambdaInTemplate<1>(Pipeline &);
template void lambdaInTemplate<2>(Pipeline &);

void lambdaProtocolSlip(Pipeline &pipe) {
  [&pipe] {
    auto stage = pipe.acquire_consumer();
    stage.release_without_signal();
    // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'stage' is released by 'release_without_signal' but no path before it signals its barrier [linpipe-stage-protocol]
    // CHECK-NOTES: :[[@LINE-3]]:10: note: 'stage' acquired here
    // CHECK-NOTES: :[[@LINE-3]]:5: note: call mbar() or arrive() before 'release_without_signal', or release it with release(), which arrives
  }();
}
