// Correct code: moves, returns and calls transfer the obligation; nothing is reported.
// RUN: %check_linpipe -checks='-*,linpipe-*' %s -- %stage_flags \
// RUN:   | FileCheck %s --allow-empty --implicit-check-not="{{warning|error|note}}:"
#include "stage_types.h"
using namespace lp;

void moveToLocal(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  auto owner = std::move(stage);
  owner.release();
}

void moveAssignIntoReleased(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  auto owner = pipe.acquire_consumer();
  owner.release();
  owner = std::move(stage);
  owner.release();
}

ConsumerStage returnByValue(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  work(stage.index());
  return stage;
}

ConsumerStage returnMoved(Pipeline &pipe, bool c) {
  auto first = pipe.acquire_consumer();
  auto second = pipe.acquire_consumer();
  if (c) {
    second.release();
    return first;
  }
  first.release();
  return std::move(second);
}

ConsumerStage returnTemporary(Pipeline &pipe) { return pipe.acquire_consumer(); }

void passByValue(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  take_consumer(std::move(stage));
}

void passByRvalueReference(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  take_consumer_rvalue(std::move(stage));
}

template <class Stage>
void forwardTo(Stage &&stage) {
  take_consumer(std::forward<Stage>(stage));
}

void passThroughForwardingReference(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  forwardTo(std::move(stage));
}

void borrowThenRelease(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  inspect(stage);
  borrow(stage);
  forwardTo(pipe.acquire_consumer());
  stage.release();
}

void moveIntoClosure(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  auto finish = [owned = std::move(stage)]() mutable { owned.release(); };
  finish();
}

void rvalueQualifiedConsume() {
  Ticket ticket(1);
  work(static_cast<unsigned>(ticket.id()));
  std::move(ticket).finish();
}

void conditionalInitialiser(Pipeline &pipe, Pipeline &other, bool c) {
  auto stage = c ? pipe.acquire_consumer() : other.acquire_consumer();
  stage.release();
}

void staticCastMove(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  take_consumer(static_cast<ConsumerStage &&>(stage));
}

void unevaluatedUses(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  stage.release();
  static_assert(sizeof(stage) > 0);
  using T = decltype(std::move(stage));
  (void)noexcept(stage.index());
  (void)sizeof(pipe.acquire_consumer());
}

struct Worker {
  ConsumerStage stage;
  // Moving out of a member into a local makes it this function's obligation.
  void finish() {
    auto local = std::move(stage);
    local.release();
  }
};

void perLaneWork(Pipeline &pipe, int lanes) {
  for (int lane = 0; lane < lanes; ++lane) {
    auto stage = pipe.acquire_consumer();
    if (lane % 2 == 0) {
      stage.release();
      continue;
    }
    take_consumer(std::move(stage));
  }
}
