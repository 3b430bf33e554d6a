// RUN: %check_linpipe -checks='-*,linpipe-linear-stage' %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
//
// Transfer shapes the flow must follow exactly (each one bad, then good).
#include "stage_types.h"
using namespace lp;

// The arms of ?: name two different stages: only the chosen one moves, on its own path.
void choosesOne(Pipeline &pipe, bool c) {
  ConsumerStage a = pipe.acquire_consumer();
  ConsumerStage b = pipe.acquire_consumer();
  ConsumerStage chosen = c ? std::move(a) : std::move(b);
  chosen.release();
}
// Accepted: the same choice written as one if/else (the analysis does not correlate two
// tests of `c`, so releasing "the other one" under a second `if (c)` is reported).
void choosesOneWithIfElse(Pipeline &pipe, bool c) {
  ConsumerStage a = pipe.acquire_consumer();
  ConsumerStage b = pipe.acquire_consumer();
  if (c) {
    ConsumerStage chosen = std::move(a);
    chosen.release();
    b.release();
  } else {
    ConsumerStage chosen = std::move(b);
    chosen.release();
    a.release();
  }
}

// A self move-assignment moves nothing out: it assigns over a live stage.
void selfMove(Pipeline &pipe) {
  ConsumerStage a = pipe.acquire_consumer();
  a = std::move(a);
  a.release();
}

// A by-value argument is moved when its parameter is built, before later arguments run.
void consumeWithIndex(ConsumerStage stage, unsigned index);
void movedThenRead(Pipeline &pipe) {
  ConsumerStage a = pipe.acquire_consumer();
  consumeWithIndex(std::move(a), a.index());
}
void readThenMoved(Pipeline &pipe) {
  ConsumerStage a = pipe.acquire_consumer();
  const unsigned index = a.index();
  consumeWithIndex(std::move(a), index);
}

// A stage moved into an init-capture is the closure's: its body must release it.
void capturedNotReleased(Pipeline &pipe) {
  ConsumerStage a = pipe.acquire_consumer();
  auto peek = [s = std::move(a)]() mutable { work(s.index()); };
  peek();
}
void capturedReleased(Pipeline &pipe) {
  ConsumerStage a = pipe.acquire_consumer();
  auto finish = [s = std::move(a)]() mutable { s.release(); };
  finish();
}

// A user-defined conversion that yields a stage acquires it (one obligation, not a dropped
// temporary plus a variable).
struct Ticketed {
  operator ConsumerStage() const;
};
void convertedNotReleased(Ticketed t) {
  ConsumerStage a = t;
  work(a.index());
}
void convertedReleased(Ticketed t) {
  ConsumerStage a = t;
  a.release();
}

// Code in catch handlers is analysed (what was live when something threw is not modelled).
void leaksInHandler(Pipeline &pipe) {
  try {
    work(1);
  } catch (...) {
    ConsumerStage a = pipe.acquire_consumer();
    work(a.index());
  }
}
void releasesInHandler(Pipeline &pipe) {
  ConsumerStage outer = pipe.acquire_consumer();
  try {
    work(outer.index());
  } catch (...) {
    ConsumerStage a = pipe.acquire_consumer();
    a.release();
  }
  outer.release();
}

// Findings, in order (kept at the end so the line numbers above stay put):
// CHECK-NOTES: transfer-shapes.cpp:14:1: warning: 'a' is not released on some paths reaching this point [linpipe-linear-stage]
// CHECK-NOTES: transfer-shapes.cpp:10:17: note: 'a' acquired here
// CHECK-NOTES: transfer-shapes.cpp:14:1: note: the scope of 'a' ends here
// CHECK-NOTES: transfer-shapes.cpp:14:1: note: call release() or release_without_signal() before leaving the scope
// CHECK-NOTES: transfer-shapes.cpp:14:1: warning: 'b' is not released on some paths reaching this point [linpipe-linear-stage]
// CHECK-NOTES: transfer-shapes.cpp:11:17: note: 'b' acquired here
// CHECK-NOTES: transfer-shapes.cpp:14:1: note: the scope of 'b' ends here
// CHECK-NOTES: transfer-shapes.cpp:14:1: note: call release() or release_without_signal() before leaving the scope
// CHECK-NOTES: transfer-shapes.cpp:34:5: warning: 'a' is not released before it is overwritten [linpipe-linear-stage]
// CHECK-NOTES: transfer-shapes.cpp:33:17: note: 'a' acquired here
// CHECK-NOTES: transfer-shapes.cpp:34:5: note: the assignment overwrites 'a' here
// CHECK-NOTES: transfer-shapes.cpp:34:5: note: call release() or release_without_signal() before assigning a new value
// CHECK-NOTES: transfer-shapes.cpp:42:34: warning: 'a' used after it was moved [linpipe-linear-stage]
// CHECK-NOTES: transfer-shapes.cpp:42:30: note: 'a' moved here
// CHECK-NOTES: transfer-shapes.cpp:53:63: warning: captured 's' is neither released nor moved by the closure on this path [linpipe-linear-stage]
// CHECK-NOTES: transfer-shapes.cpp:53:16: note: 's' captured here
// CHECK-NOTES: transfer-shapes.cpp:53:63: note: the function ends here
// CHECK-NOTES: transfer-shapes.cpp:53:63: note: call release() or release_without_signal(), or move 's' on, before leaving the function
// CHECK-NOTES: transfer-shapes.cpp:70:1: warning: 'a' is not released on this path [linpipe-linear-stage]
// CHECK-NOTES: transfer-shapes.cpp:68:17: note: 'a' acquired here
// CHECK-NOTES: transfer-shapes.cpp:70:1: note: the scope of 'a' ends here
// CHECK-NOTES: transfer-shapes.cpp:70:1: note: call release() or release_without_signal() before leaving the scope
// CHECK-NOTES: transfer-shapes.cpp:83:3: warning: 'a' is not released on this path [linpipe-linear-stage]
// CHECK-NOTES: transfer-shapes.cpp:81:19: note: 'a' acquired here
// CHECK-NOTES: transfer-shapes.cpp:83:3: note: the scope of 'a' ends here
// CHECK-NOTES: transfer-shapes.cpp:83:3: note: call release() or release_without_signal() before leaving the scope
