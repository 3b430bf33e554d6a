// RUN: %check_linpipe -checks='-*,linpipe-linear-stage' %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
#include "stage_types.h"
using namespace lp;

void indexAfterRelease(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  stage.release();
  work(stage.index());
  // CHECK-NOTES: :[[@LINE-1]]:8: warning: 'stage' used after it was released [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-3]]:3: note: 'stage' released here
}

void mbarAfterRelease(Pipeline &pipe) {
  auto stage = pipe.acquire_producer();
  stage.release();
  stage.mbar().arrive();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'stage' used after it was released
  // CHECK-NOTES: :[[@LINE-3]]:3: note: 'stage' released here
}

void borrowedAfterRelease(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  stage.release();
  inspect(stage);
  // CHECK-NOTES: :[[@LINE-1]]:11: warning: 'stage' used after it was released
  // CHECK-NOTES: :[[@LINE-3]]:3: note: 'stage' released here
}

void onlyTheFirstUseIsReported(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  stage.release();
  work(stage.index());
  // CHECK-NOTES: :[[@LINE-1]]:8: warning: 'stage' used after it was released
  // CHECK-NOTES: :[[@LINE-3]]:3: note: 'stage' released here
  work(stage.index());
  borrow(stage);
}

void useAfterConditionalRelease(Pipeline &pipe, bool c) {
  auto stage = pipe.acquire_consumer();
  if (c)
    stage.release();
  work(stage.index());
  // CHECK-NOTES: :[[@LINE-1]]:8: warning: 'stage' used after it was released
  // CHECK-NOTES: :[[@LINE-3]]:5: note: 'stage' released here
  stage.release();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'stage' released twice
  // CHECK-NOTES: :[[@LINE-6]]:5: note: 'stage' released here
}

void movedAfterRelease(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  stage.release();
  take_consumer(std::move(stage));
  // CHECK-NOTES: :[[@LINE-1]]:27: warning: 'stage' used after it was released
  // CHECK-NOTES: :[[@LINE-3]]:3: note: 'stage' released here
}

void useBeforeReleaseIsFine(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  inspect(stage);
  borrow(stage);
  work(stage.index());
  stage.release();
}

void reacquiredAfterRelease(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  stage.release();
  stage = pipe.acquire_consumer();
  work(stage.index());
  stage.release();
}

void unevaluatedAfterRelease(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  stage.release();
  static_assert(sizeof(stage.index()) == sizeof(unsigned));
  using Index = decltype(stage.index());
  bool nothrow = noexcept(stage.index());
  (void)nothrow;
}
