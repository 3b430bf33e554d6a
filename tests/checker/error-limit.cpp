// Warnings promoted to errors past clang's error limit (20) end in a fatal "too many errors
// emitted", which the checks' bail-out on broken translation units would take for a real
// error: the checks lift the limit, so all 24 leaks are still reported.
// RUN: not %check_linpipe -checks='-*,linpipe-linear-stage' %s -- %stage_flags \
// RUN:   -Wconsumed -Werror=consumed | FileCheck %s --implicit-check-not="too many errors"
#include "stage_types.h"
using namespace lp;

#define LEAK(N)                                                                                    \
  void leak##N(Pipeline &pipe) { auto stage = pipe.acquire_consumer(); }

LEAK(0)
LEAK(1)
LEAK(2)
LEAK(3)
LEAK(4)
LEAK(5)
LEAK(6)
LEAK(7)
LEAK(8)
LEAK(9)
LEAK(10)
LEAK(11)
LEAK(12)
LEAK(13)
LEAK(14)
LEAK(15)
LEAK(16)
LEAK(17)
LEAK(18)
LEAK(19)
LEAK(20)
LEAK(21)
LEAK(22)
LEAK(23)

// CHECK-COUNT-24: warning: 'stage' is not released on this path [linpipe-linear-stage]
