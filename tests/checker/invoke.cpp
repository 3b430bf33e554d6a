// std::invoke is a call, not storage: a stage forwarded through it to a sink that takes it by
// value is the sink's, and one lent by reference gets the callee's summary.
// RUN: %check_linpipe -checks='-*,linpipe-*' %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
#include "stage_types.h"
#include <functional>
using namespace lp;

void sink(ConsumerStage stage) { stage.release(); }
void finish(ConsumerStage &stage) { stage.release(); }

template <class F, class... Args>
void dispatch(F &&f, Args &&...args) {
  std::invoke(std::forward<F>(f), std::forward<Args>(args)...);
}

// Good: a fresh stage through std::invoke to a by-value sink.
void freshThroughInvoke(Pipeline &pipe) {
  std::invoke(sink, pipe.acquire_consumer());
  auto stage = pipe.acquire_consumer();
  std::invoke(sink, std::move(stage));
}

// Good: a generic dispatcher forwarding to the sink.
void freshThroughADispatcher(Pipeline &pipe) { dispatch(sink, pipe.acquire_consumer()); }

// Bad: lent through std::invoke to a helper that releases it, then released again.
void lentThroughInvokeThenReleased(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  std::invoke(finish, stage);
  stage.release();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'stage' released twice [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-3]]:23: note: 'stage' released here
}

// Bad: lent through std::invoke to a lambda that only looks at it; then leaked.
void lentToALambdaThenLeaked(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  std::invoke([](const ConsumerStage &s) { work(s.index()); }, stage);
}
// CHECK-NOTES: :[[@LINE-1]]:1: warning: 'stage' is not released on this path [linpipe-linear-stage]
// CHECK-NOTES: :[[@LINE-4]]:8: note: 'stage' acquired here
// CHECK-NOTES: :[[@LINE-3]]:1: note: the scope of 'stage' ends here
// CHECK-NOTES: :[[@LINE-4]]:1: note: call release() or release_without_signal() before leaving the scope

// Bad: arrived, then forwarded through std::invoke to a sink whose release() arrives again.
void arrivedThenInvokedSink(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  stage.arrive();
  std::invoke(sink, std::move(stage));
  // CHECK-NOTES: :[[@LINE-1]]:31: warning: 'stage' arrives on its barrier twice: 'sink' arrives again after an earlier arrival [linpipe-stage-protocol]
  // CHECK-NOTES: :[[@LINE-3]]:3: note: first arrival here
  // CHECK-NOTES: :[[@LINE-3]]:31: note: after an explicit arrival, end with release_without_signal(), which does not arrive
}
