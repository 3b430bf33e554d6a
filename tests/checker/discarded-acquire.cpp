// RUN: %check_linpipe -checks='-*,linpipe-linear-stage' %s -- %stage_flags -Wno-unused-result \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
#include "stage_types.h"
using namespace lp;

void discardedStatement(Pipeline &pipe) {
  pipe.acquire_consumer();
  // CHECK-NOTES: :[[@LINE-1]]:8: warning: linear value returned by 'acquire_consumer' is discarded without being released [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-2]]:8: note: bind it to a variable and call release() or release_without_signal() on every path
}

void discardedProducer(Pipeline *pipe) {
  pipe->acquire_producer();
  // CHECK-NOTES: :[[@LINE-1]]:9: warning: linear value returned by 'acquire_producer' is discarded without being released
  // CHECK-NOTES: :[[@LINE-2]]:9: note: bind it to a variable and call release() on every path
}

void discardedWithVoidCast(Pipeline &pipe) {
  (void)pipe.acquire_consumer();
  // CHECK-NOTES: :[[@LINE-1]]:14: warning: linear value returned by 'acquire_consumer' is discarded without being released
  // CHECK-NOTES: :[[@LINE-2]]:14: note: bind it to a variable and call release() or release_without_signal() on every path
}

void usedThenDiscarded(Pipeline &pipe) {
  work(pipe.acquire_consumer().index());
  // CHECK-NOTES: :[[@LINE-1]]:13: warning: linear value returned by 'acquire_consumer' is used and then discarded without being released
  // CHECK-NOTES: :[[@LINE-2]]:13: note: bind it to a variable and call release() or release_without_signal() on every path
}

void borrowedThenDiscarded(Pipeline &pipe) {
  inspect(pipe.acquire_consumer());
  // CHECK-NOTES: :[[@LINE-1]]:16: warning: linear value returned by 'acquire_consumer' is used and then discarded without being released
  // CHECK-NOTES: :[[@LINE-2]]:16: note: bind it to a variable and call release() or release_without_signal() on every path
}

void discardedInCommaExpression(Pipeline &pipe) {
  pipe.acquire_consumer(), work(0);
  // CHECK-NOTES: :[[@LINE-1]]:8: warning: linear value returned by 'acquire_consumer' is discarded without being released
  // CHECK-NOTES: :[[@LINE-2]]:8: note: bind it to a variable and call release() or release_without_signal() on every path
}

void discardedConstruction() {
  Ticket(4);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: linear value created by 'Ticket' is discarded without being released
  // CHECK-NOTES: :[[@LINE-2]]:3: note: bind it to a variable and call finish() on every path
}

Slot<2> discardedTemplateResult() {
  make_slot<1>();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: linear value returned by 'make_slot' is discarded without being released
  // CHECK-NOTES: :[[@LINE-2]]:3: note: bind it to a variable and call release() on every path
  return make_slot<2>();
}

// Not discarded: bound, returned, passed on, released at once.
ConsumerStage returned(Pipeline &pipe) { return pipe.acquire_consumer(); }

void boundAndReleased(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  stage.release();
}

void passedOn(Pipeline &pipe) {
  take_consumer(pipe.acquire_consumer());
  take_consumer_rvalue(pipe.acquire_consumer());
}

void releasedAtOnce(Pipeline &pipe) {
  pipe.acquire_consumer().release();
  pipe.acquire_producer().release();
}

void unevaluatedAcquisition(Pipeline &pipe) {
  static_assert(sizeof(pipe.acquire_consumer()) > 0);
  using Stage = decltype(pipe.acquire_consumer());
}

void unreachableAcquisition(Pipeline &pipe) {
  return;
  pipe.acquire_consumer();
}
