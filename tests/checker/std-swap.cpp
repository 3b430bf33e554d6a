// RUN: %check_linpipe -checks='-*,linpipe-linear-stage' %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
//
// std::swap(a, b) (and std::ranges::swap) between two names the analysis tracks trades what they hold: each
// stage's obligation (and its history: where it was acquired, released) follows the stage
// into the other name. Swapping a released or moved-from stage is not a use. Swapping with
// storage the analysis does not follow (a member, an element) stores the stage there, as
// `member = std::move(s)` does.
#include "stage_types.h"
#include <concepts> // std::ranges::swap
using namespace lp;

// Accepted: two live stages trade places, both are released.
void swapsTwoLiveStages(Pipeline &pipe) {
  ConsumerStage a = pipe.acquire_consumer();
  ConsumerStage b = pipe.acquire_consumer();
  std::swap(a, b);
  a.release();
  b.release();
}

// Accepted: after the swap, `a` holds the live stage and `b` the released one.
void releasesWhatTheSwapBrought(Pipeline &pipe) {
  ConsumerStage a = pipe.acquire_consumer();
  ConsumerStage b = pipe.acquire_consumer();
  a.release();
  std::swap(a, b);
  a.release();
}

// Accepted: the ADL form (`using std::swap; swap(a, b);`) resolves to std::swap.
void swapsThroughUsing(Pipeline &pipe) {
  using std::swap;
  ConsumerStage a = pipe.acquire_consumer();
  ConsumerStage b = pipe.acquire_consumer();
  b.release();
  swap(a, b);
  b.release();
}

// Accepted: std::ranges::swap, a function object, trades the same way.
void swapsThroughRanges(Pipeline &pipe) {
  ConsumerStage a = pipe.acquire_consumer();
  ConsumerStage b = pipe.acquire_consumer();
  b.release();
  std::ranges::swap(a, b);
  b.release();
}

// Accepted: a stage swapped with itself keeps its state.
void swapsWithItself(Pipeline &pipe) {
  ConsumerStage a = pipe.acquire_consumer();
  std::swap(a, a);
  a.release();
}

// Rejected: the live stage moved into `b`; releasing `a` again is a double release, and
// `b` leaves its scope holding the stage acquired into `a`.
void releasesTheWrongName(Pipeline &pipe) {
  ConsumerStage a = pipe.acquire_consumer();
  ConsumerStage b = pipe.acquire_consumer();
  b.release();
  std::swap(a, b);
  a.release();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'a' released twice [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-4]]:3: note: 'a' released here
  // CHECK-NOTES: :[[@LINE-4]]:3: note: 'a' received this stage from another variable through the swap here
}
// CHECK-NOTES: :[[@LINE-1]]:1: warning: 'b' is not released on this path [linpipe-linear-stage]
// CHECK-NOTES: :[[@LINE-10]]:17: note: 'b' acquired here
// CHECK-NOTES: :[[@LINE-8]]:3: note: 'b' received this stage from another variable through the swap here
// CHECK-NOTES: :[[@LINE-4]]:1: note: the scope of 'b' ends here
// CHECK-NOTES: :[[@LINE-5]]:1: note: call release() or release_without_signal() before leaving the scope

// Rejected: only on the path that swapped does `a` hold the released stage.
void swapsOnOnePath(Pipeline &pipe, bool flip) {
  ConsumerStage a = pipe.acquire_consumer();
  ConsumerStage b = pipe.acquire_consumer();
  b.release();
  if (flip)
    std::swap(a, b);
  a.release();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'a' released twice [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-5]]:3: note: 'a' released here
  // CHECK-NOTES: :[[@LINE-4]]:5: note: 'a' received this stage from another variable through the swap here
}
// CHECK-NOTES: :[[@LINE-1]]:1: warning: 'b' is not released on some paths reaching this point [linpipe-linear-stage]
// CHECK-NOTES: :[[@LINE-11]]:17: note: 'b' acquired here
// CHECK-NOTES: :[[@LINE-8]]:5: note: 'b' received this stage from another variable through the swap here
// CHECK-NOTES: :[[@LINE-4]]:1: note: the scope of 'b' ends here
// CHECK-NOTES: :[[@LINE-5]]:1: note: call release() or release_without_signal() before leaving the scope

struct Parking {
  ConsumerStage spare;
  // Accepted: a released stage traded into a member is not a use, and no obligation leaves.
  void trade(Pipeline &pipe) {
    ConsumerStage s = pipe.acquire_consumer();
    s.release();
    std::swap(s, spare);
  }
};

// Rejected (escapes): a trade is followed between two names only; through `c ? a : b` the
// stages go where the analysis cannot say, so each live one is reported as escaping.
void swapsWithAChoice(Pipeline &pipe, bool flip) {
  ConsumerStage t = pipe.acquire_consumer();
  ConsumerStage a = pipe.acquire_consumer();
  ConsumerStage b = pipe.acquire_consumer();
  std::swap(t, flip ? a : b);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'a' escapes into storage the analysis does not track and its release can no longer be checked [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-2]]:3: note: release it first, or hand it over on purpose through a function annotated 'linpipe::hand_off' such as linpipe::hand_off()
  // CHECK-NOTES: :[[@LINE-3]]:3: warning: 'b' escapes into storage the analysis does not track and its release can no longer be checked [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-4]]:3: note: release it first, or hand it over on purpose through a function annotated 'linpipe::hand_off' such as linpipe::hand_off()
  // CHECK-NOTES: :[[@LINE-5]]:3: warning: 't' escapes into storage the analysis does not track and its release can no longer be checked [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-6]]:3: note: release it first, or hand it over on purpose through a function annotated 'linpipe::hand_off' such as linpipe::hand_off()
  t.release();
  a.release();
  b.release();
}

struct Holder {
  ConsumerStage held;
  // Rejected (an escape): the stage goes into a member the analysis does not follow.
  void park(ConsumerStage s) {
    std::swap(held, s);
    // CHECK-NOTES: :[[@LINE-1]]:5: warning: 's' escapes into a member and its release can no longer be checked [linpipe-linear-stage]
    // CHECK-NOTES: :[[@LINE-2]]:5: note: release it first, or hand it over on purpose through a function annotated 'linpipe::hand_off' such as linpipe::hand_off()
  }
};

// Rejected: after std::ranges::swap the released stage is in `a`.
void releasesTheWrongNameAfterRangesSwap(Pipeline &pipe) {
  ConsumerStage a = pipe.acquire_consumer();
  ConsumerStage b = pipe.acquire_consumer();
  b.release();
  std::ranges::swap(a, b);
  a.release();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'a' released twice [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-4]]:3: note: 'a' released here
  // CHECK-NOTES: :[[@LINE-4]]:3: note: 'a' received this stage from another variable through the swap here
}
// CHECK-NOTES: :[[@LINE-1]]:1: warning: 'b' is not released on this path [linpipe-linear-stage]
// CHECK-NOTES: :[[@LINE-10]]:17: note: 'b' acquired here
// CHECK-NOTES: :[[@LINE-8]]:3: note: 'b' received this stage from another variable through the swap here
// CHECK-NOTES: :[[@LINE-4]]:1: note: the scope of 'b' ends here
// CHECK-NOTES: :[[@LINE-5]]:1: note: call release() or release_without_signal() before leaving the scope
