// RUN: %check_linpipe -checks='-*,linpipe-linear-stage' %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
//
// std::exchange(current, std::move(next)) moves between two names the analysis tracks: the
// result takes current's old stage, current takes next's, next is moved-from. It is a
// transfer, followed like an assignment, not an escape into a container.
#include "stage_types.h"
using namespace lp;

// Accepted: every stage released exactly once after the exchange.
void rotates(Pipeline &pipe) {
  ConsumerStage current = pipe.acquire_consumer();
  ConsumerStage next = pipe.acquire_consumer();
  ConsumerStage old = std::exchange(current, std::move(next));
  old.release();
  current.release();
}

void rotatesInALoop(Pipeline &pipe, int n) {
  ConsumerStage held = pipe.acquire_consumer();
  for (int i = 0; i < n; ++i)
    std::exchange(held, pipe.acquire_consumer()).release();
  held.release();
}

// The exchanged-out stage is dropped: its obligation was in the call's result.
void dropsTheOldStage(Pipeline &pipe) {
  ConsumerStage current = pipe.acquire_consumer();
  ConsumerStage next = pipe.acquire_consumer();
  std::exchange(current, std::move(next));
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: linear value returned by 'exchange' is discarded without being released [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-2]]:3: note: bind it to a variable and call release() or release_without_signal() on every path
  current.release();
}

// The source is moved-from after the exchange.
void readsTheSource(Pipeline &pipe) {
  ConsumerStage current = pipe.acquire_consumer();
  ConsumerStage next = pipe.acquire_consumer();
  ConsumerStage old = std::exchange(current, std::move(next));
  work(next.index());
  // CHECK-NOTES: :[[@LINE-1]]:8: warning: 'next' used after it was moved [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-3]]:56: note: 'next' moved here
  old.release();
  current.release();
}

// The target holds the new stage: it must still be released.
void forgetsTheTarget(Pipeline &pipe) {
  ConsumerStage current = pipe.acquire_consumer();
  ConsumerStage next = pipe.acquire_consumer();
  ConsumerStage old = std::exchange(current, std::move(next));
  old.release();
}
// CHECK-NOTES: :[[@LINE-1]]:1: warning: 'current' is not released on this path [linpipe-linear-stage]
// CHECK-NOTES: :[[@LINE-4]]:23: note: 'current' acquired here
// CHECK-NOTES: :[[@LINE-3]]:1: note: the scope of 'current' ends here
// CHECK-NOTES: :[[@LINE-4]]:1: note: call release() or release_without_signal() before leaving the scope

// std::exchange moves out of its first argument, so exchanging into a released stage is a
// use after release, as `auto old = std::move(released)` is (assign to it instead).
void exchangesIntoAReleasedStage(Pipeline &pipe) {
  ConsumerStage current = pipe.acquire_consumer();
  current.release();
  std::exchange(current, pipe.acquire_consumer()).release();
  // CHECK-NOTES: :[[@LINE-1]]:17: warning: 'current' used after it was released [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-3]]:3: note: 'current' released here
  current.release();
}
