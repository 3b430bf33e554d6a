// RUN: %check_linpipe -checks='-*,linpipe-linear-stage' %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
#include "stage_types.h"
using namespace lp;

//===----------------------------------------------------------------------===//
// Stored where the analysis cannot follow it
//===----------------------------------------------------------------------===//

struct Holder {
  ConsumerStage held;
  std::optional<ConsumerStage> maybe;

  void storeIntoMember(Pipeline &pipe) {
    auto stage = pipe.acquire_consumer();
    held = std::move(stage);
    // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'stage' escapes into a member and its release can no longer be checked [linpipe-linear-stage]
    // CHECK-NOTES: :[[@LINE-2]]:10: note: release it first, or hand it over on purpose through a function annotated 'linpipe::hand_off' such as linpipe::hand_off()
  }

  void storeTemporaryIntoMember(Pipeline &pipe) {
    held = pipe.acquire_consumer();
    // CHECK-NOTES: :[[@LINE-1]]:10: warning: the value returned by 'acquire_consumer' escapes into a member and its release can no longer be checked
    // CHECK-NOTES: :[[@LINE-2]]:10: note: release it first, or hand it over on purpose through a function annotated 'linpipe::hand_off' such as linpipe::hand_off()
  }

  void storeIntoOptional(ConsumerStage stage) {
    maybe = std::move(stage);
    // CHECK-NOTES: :[[@LINE-1]]:11: warning: 'stage' escapes into a standard container or wrapper and its release can no longer be checked
    // CHECK-NOTES: :[[@LINE-2]]:11: note: release it first, or hand it over on purpose through a function annotated 'linpipe::hand_off' such as linpipe::hand_off()
  }

  Holder(ConsumerStage stage) : held(std::move(stage)) {}
  // CHECK-NOTES: :[[@LINE-1]]:33: warning: 'stage' escapes into a member and its release can no longer be checked
  // CHECK-NOTES: :[[@LINE-2]]:33: note: release it first, or hand it over on purpose through a function annotated 'linpipe::hand_off' such as linpipe::hand_off()

  // The escape hatch: no warning, the receiver owns the obligation.
  void handOffIntoMember(ConsumerStage stage) { held = hand_off(std::move(stage)); }
  Holder(ConsumerStage stage, int) : held(hand_off(std::move(stage))) {}
};

void storeIntoArray(Pipeline &pipe, ConsumerStage *slots) {
  auto stage = pipe.acquire_consumer();
  slots[0] = std::move(stage);
  // CHECK-NOTES: :[[@LINE-1]]:12: warning: 'stage' escapes into an array element and its release can no longer be checked
  // CHECK-NOTES: :[[@LINE-2]]:12: note: release it first, or hand it over on purpose through a function annotated 'linpipe::hand_off' such as linpipe::hand_off()
}

void storeIntoVector(Pipeline &pipe, std::vector<ConsumerStage> &ring) {
  auto stage = pipe.acquire_consumer();
  ring.push_back(std::move(stage));
  // CHECK-NOTES: :[[@LINE-1]]:8: warning: 'stage' escapes into a standard container or wrapper and its release can no longer be checked
  // CHECK-NOTES: :[[@LINE-2]]:8: note: release it first, or hand it over on purpose through a function annotated 'linpipe::hand_off' such as linpipe::hand_off()
  ring.emplace_back(pipe.acquire_consumer());
  // CHECK-NOTES: :[[@LINE-1]]:8: warning: the value returned by 'acquire_consumer' escapes into a standard container or wrapper and its release can no longer be checked
  // CHECK-NOTES: :[[@LINE-2]]:8: note: release it first, or hand it over on purpose through a function annotated 'linpipe::hand_off' such as linpipe::hand_off()
}

void handOffIntoVector(Pipeline &pipe, std::vector<ConsumerStage> &ring) {
  auto stage = pipe.acquire_consumer();
  ring.push_back(hand_off(std::move(stage)));
  ring.push_back(hand_off(pipe.acquire_consumer()));
}

ConsumerStage *storeOnHeap(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  return new ConsumerStage(std::move(stage));
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'stage' escapes into a heap object and its release can no longer be checked
  // CHECK-NOTES: :[[@LINE-2]]:10: note: release it first, or hand it over on purpose through a function annotated 'linpipe::hand_off' such as linpipe::hand_off()
}

std::unique_ptr<ConsumerStage> storeInUniquePtr(ConsumerStage stage) {
  return std::make_unique<ConsumerStage>(std::move(stage));
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'stage' escapes into a heap object and its release can no longer be checked
  // CHECK-NOTES: :[[@LINE-2]]:10: note: release it first, or hand it over on purpose through a function annotated 'linpipe::hand_off' such as linpipe::hand_off()
}

//===----------------------------------------------------------------------===//
// Aliases: addresses, references, captures by reference
//===----------------------------------------------------------------------===//

void addressTaken(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  ConsumerStage *alias = &stage;
  // CHECK-NOTES: :[[@LINE-1]]:26: warning: 'stage' escapes through its address and its release can no longer be checked
  // CHECK-NOTES: :[[@LINE-2]]:26: note: release it first, or hand it over on purpose through a function annotated 'linpipe::hand_off' such as linpipe::hand_off()
  alias->release();
}

void addressOf(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  std::addressof(stage)->release();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'stage' escapes through its address and its release can no longer be checked
  // CHECK-NOTES: :[[@LINE-2]]:3: note: release it first, or hand it over on purpose through a function annotated 'linpipe::hand_off' such as linpipe::hand_off()
}

void boundToReference(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  ConsumerStage &alias = stage;
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: 'stage' escapes through a reference binding and its release can no longer be checked
  // CHECK-NOTES: :[[@LINE-2]]:18: note: release it first, or hand it over on purpose through a function annotated 'linpipe::hand_off' such as linpipe::hand_off()
  alias.release();
}

void capturedByReference(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  auto finish = [&stage] { stage.release(); };
  // CHECK-NOTES: :[[@LINE-1]]:19: warning: 'stage' escapes through a by-reference lambda capture and its release can no longer be checked
  // CHECK-NOTES: :[[@LINE-2]]:19: note: release it first, or hand it over on purpose through a function annotated 'linpipe::hand_off' such as linpipe::hand_off()
  finish();
}

void capturedByDefaultReference(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  auto finish = [&] { stage.release(); };
  // CHECK-NOTES: :[[@LINE-1]]:23: warning: 'stage' escapes through a by-reference lambda capture and its release can no longer be checked
  // CHECK-NOTES: :[[@LINE-2]]:23: note: release it first, or hand it over on purpose through a function annotated 'linpipe::hand_off' such as linpipe::hand_off()
  finish();
}

void storedInStatic(Pipeline &pipe) {
  static ConsumerStage parked = pipe.acquire_consumer();
  // CHECK-NOTES: :[[@LINE-1]]:24: warning: the value returned by 'acquire_consumer' escapes into storage the analysis does not track and its release can no longer be checked
  // CHECK-NOTES: :[[@LINE-2]]:24: note: release it first, or hand it over on purpose through a function annotated 'linpipe::hand_off' such as linpipe::hand_off()
}

// An escaped value is no longer followed: no leak or use-after report for it.
void escapedValueIsNotFollowed(Pipeline &pipe, std::vector<ConsumerStage> &ring) {
  auto stage = pipe.acquire_consumer();
  ring.push_back(std::move(stage));
  // CHECK-NOTES: :[[@LINE-1]]:8: warning: 'stage' escapes into a standard container or wrapper and its release can no longer be checked
  // CHECK-NOTES: :[[@LINE-2]]:8: note: release it first, or hand it over on purpose through a function annotated 'linpipe::hand_off' such as linpipe::hand_off()
  ring.back().release();
}

// Capturing a released value, or moving it into the closure, is not an escape.
void movedIntoClosure(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  auto finish = [owned = std::move(stage)]() mutable { owned.release(); };
  finish();
}
