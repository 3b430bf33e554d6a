// RUN: %check_linpipe -checks='-*,linpipe-linear-stage' %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
#include "stage_types.h"
using namespace lp;

void releasedTwice(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  stage.release();
  stage.release();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'stage' released twice [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-3]]:3: note: 'stage' released here
}

void releasedWithBothForms(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  stage.arrive();
  std::move(stage).release_without_signal();
  stage.release();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'stage' released twice
  // CHECK-NOTES: :[[@LINE-3]]:13: note: 'stage' released here
}

void producerReleasedTwice(Pipeline &pipe) {
  auto stage = pipe.acquire_producer();
  stage.release();
  stage.release();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'stage' released twice
  // CHECK-NOTES: :[[@LINE-3]]:3: note: 'stage' released here
}

void releasedOnABranchThenAgain(Pipeline &pipe, bool c) {
  auto stage = pipe.acquire_consumer();
  if (c)
    stage.release();
  stage.release();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'stage' released twice
  // CHECK-NOTES: :[[@LINE-3]]:5: note: 'stage' released here
}

void releasedOnEachBranchOnce(Pipeline &pipe, bool c) {
  auto stage = pipe.acquire_consumer();
  if (c)
    stage.release();
  else
    stage.release();
}

void rvalueQualifiedConsumedTwice() {
  Ticket ticket(7);
  std::move(ticket).finish();
  std::move(ticket).finish();
  // CHECK-NOTES: :[[@LINE-1]]:13: warning: 'ticket' released twice
  // CHECK-NOTES: :[[@LINE-3]]:13: note: 'ticket' released here
}

void releasedAfterMove(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  take_consumer(std::move(stage));
  stage.release();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'stage' released after it was moved
  // CHECK-NOTES: :[[@LINE-3]]:27: note: 'stage' moved here
}

void releasedInLoopBody(Pipeline &pipe, int n) {
  auto stage = pipe.acquire_consumer();
  for (int i = 0; i < n; ++i)
    stage.release();
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'stage' released twice
  // CHECK-NOTES: :[[@LINE-2]]:5: note: 'stage' released here in an earlier loop iteration
}
// CHECK-NOTES: :[[@LINE-1]]:1: warning: 'stage' is not released on some paths reaching this point
// CHECK-NOTES: :[[@LINE-7]]:8: note: 'stage' acquired here
// CHECK-NOTES: :[[@LINE-3]]:1: note: the scope of 'stage' ends here
// CHECK-NOTES: :[[@LINE-4]]:1: note: call release() or release_without_signal() before leaving the scope
