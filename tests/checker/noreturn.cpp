// Paths that end in a [[noreturn]] call (abort, trap, terminate) leak nothing.
// RUN: %check_linpipe -checks='-*,linpipe-linear-stage' %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
#include "stage_types.h"
#include <cstdlib>
#include <exception>
using namespace lp;

[[noreturn]] void fail(const char *why);

void abortOnError(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  if (stage.index() > 8)
    std::abort();
  stage.release();
}

__device__ void trapOnError(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  if (stage.index() > 8)
    __trap();
  stage.release();
}

void builtinTrap(Pipeline &pipe) {
  auto stage = pipe.acquire_producer();
  if (done())
    __builtin_trap();
  stage.release();
}

void terminateOnError(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  if (done())
    std::terminate();
  stage.release();
}

void userNoreturn(ConsumerStage stage) {
  if (stage.index() == 0)
    fail("empty");
  stage.release();
}

void exitOnError(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  if (done())
    std::exit(1);
  stage.release();
}

void unreachableAfterTrap(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  __builtin_trap();
}

// A path that does return is still checked.
void trapOnOneBranchOnly(Pipeline &pipe, int k) {
  auto stage = pipe.acquire_consumer();
  if (k == 0)
    __builtin_trap();
  if (k == 1)
    return;
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'stage' is not released on this path [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-6]]:8: note: 'stage' acquired here
  // CHECK-NOTES: :[[@LINE-3]]:5: note: 'return' leaves the scope here
  // CHECK-NOTES: :[[@LINE-4]]:5: note: call release() or release_without_signal() before leaving the scope
  stage.release();
}
