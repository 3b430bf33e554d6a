// RUN: %check_linpipe -checks='-*,linpipe-linear-stage' %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
#include "stage_types.h"
using namespace lp;

void useAfterMoveToLocal(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  auto other = std::move(stage);
  work(stage.index());
  // CHECK-NOTES: :[[@LINE-1]]:8: warning: 'stage' used after it was moved [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-3]]:26: note: 'stage' moved here
  other.release();
}

void useAfterPassByValue(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  take_consumer(std::move(stage));
  inspect(stage);
  // CHECK-NOTES: :[[@LINE-1]]:11: warning: 'stage' used after it was moved
  // CHECK-NOTES: :[[@LINE-3]]:27: note: 'stage' moved here
}

void useAfterPassByRvalue(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  take_consumer_rvalue(std::move(stage));
  work(stage.index());
  // CHECK-NOTES: :[[@LINE-1]]:8: warning: 'stage' used after it was moved
  // CHECK-NOTES: :[[@LINE-3]]:34: note: 'stage' moved here
}

void releaseAfterMoveAssign(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  auto other = pipe.acquire_consumer();
  other.release();
  other = std::move(stage);
  stage.release();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'stage' released after it was moved
  // CHECK-NOTES: :[[@LINE-3]]:21: note: 'stage' moved here
  other.release();
}

void useAfterMoveIntoLambda(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  auto later = [owned = std::move(stage)]() mutable { owned.release(); };
  work(stage.index());
  // CHECK-NOTES: :[[@LINE-1]]:8: warning: 'stage' used after it was moved
  // CHECK-NOTES: :[[@LINE-3]]:35: note: 'stage' moved here
  later();
}

void useAfterMoveOnOneBranch(Pipeline &pipe, bool c) {
  auto stage = pipe.acquire_consumer();
  if (c) {
    take_consumer(std::move(stage));
    return;
  }
  work(stage.index());
  stage.release();
}

void moveThenReacquire(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  take_consumer(std::move(stage));
  stage = pipe.acquire_consumer();
  stage.release();
}

void rvalueConsumeIsNotAMove() {
  Ticket ticket(3);
  work(static_cast<unsigned>(std::move(ticket).id()));
  std::move(ticket).finish();
}
