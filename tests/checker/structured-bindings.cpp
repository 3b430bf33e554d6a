// Stages returned inside an aggregate (std::pair, std::tuple, a struct) travel with it, and
// structured bindings that unpack them each hold one obligation.
// RUN: %check_linpipe -checks='-*,linpipe-*' %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
#include "stage_types.h"
#include <tuple>
#include <utility>
using namespace lp;

struct TwoStages {
  ConsumerStage first;
  ConsumerStage second;
};

std::pair<ConsumerStage, ConsumerStage> acquirePair(Pipeline &pipe) {
  return {pipe.acquire_consumer(), pipe.acquire_consumer()};
}
std::tuple<ConsumerStage, int> acquireTagged(Pipeline &pipe) {
  return std::make_tuple(pipe.acquire_consumer(), 7);
}
TwoStages acquireStruct(Pipeline &pipe) {
  return TwoStages{pipe.acquire_consumer(), pipe.acquire_consumer()};
}

// Bad: one binding of the pair is never released.
void pairBindingLeaked(Pipeline &pipe) {
  auto [a, b] = acquirePair(pipe);
  a.release();
}
// CHECK-NOTES: :[[@LINE-1]]:1: warning: 'b' is not released on this path [linpipe-linear-stage]
// CHECK-NOTES: :[[@LINE-4]]:12: note: 'b' acquired here
// CHECK-NOTES: :[[@LINE-3]]:1: note: the scope of 'b' ends here
// CHECK-NOTES: :[[@LINE-4]]:1: note: call release() or release_without_signal() before leaving the scope

// Bad: a struct's binding released twice.
void structBindingReleasedTwice(Pipeline &pipe) {
  auto [first, second] = acquireStruct(pipe);
  first.release();
  second.release();
  first.release();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'first' released twice [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-4]]:3: note: 'first' released here
}

// Bad: a tuple's stage leaked on an early return.
void tupleBindingLeakedOnReturn(Pipeline &pipe) {
  auto [stage, tag] = acquireTagged(pipe);
  if (tag > 3)
    return;
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'stage' is not released on this path [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-4]]:9: note: 'stage' acquired here
  // CHECK-NOTES: :[[@LINE-3]]:5: note: 'return' leaves the scope here
  // CHECK-NOTES: :[[@LINE-4]]:5: note: call release() or release_without_signal() before leaving the scope
  stage.release();
}

// Good: every binding released (returning the aggregates above is no escape).
void everyBindingReleased(Pipeline &pipe) {
  auto [a, b] = acquirePair(pipe);
  a.release();
  b.release();
  auto [first, second] = acquireStruct(pipe);
  first.release();
  second.release();
  auto [stage, tag] = acquireTagged(pipe);
  work(static_cast<unsigned>(tag));
  stage.release();
}

// Good: bindings of reference type name stages owned elsewhere.
void referenceBindings(ConsumerStage &held) {
  auto [stage, tag] = std::pair<ConsumerStage &, int>(held, 1);
  work(stage.index() + static_cast<unsigned>(tag));
}
