// Warnings promoted to errors (-Werror=consumed) do not stop the analysis:
// RUN: not %check_linpipe -checks='-*,linpipe-linear-stage' %s -- %stage_flags \
// RUN:   -Wconsumed -Werror=consumed | FileCheck %s --check-prefix=WERROR
//
// A real compile error anywhere in the translation unit makes the checks say nothing,
// not even about the functions that did compile:
// RUN: not %check_linpipe -checks='-*,linpipe-*' %s -- %stage_flags -DBROKEN \
// RUN:   | FileCheck %s --check-prefix=BROKEN --implicit-check-not="[linpipe-"
#include "stage_types.h"
using namespace lp;

void leak(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
}
// WERROR: :[[@LINE-1]]:1: warning: 'stage' is not released on this path [linpipe-linear-stage]
// WERROR: :[[@LINE-2]]:1: error: invalid invocation of method '~ConsumerStage' on object 'stage' while it is in the 'unconsumed' state [clang-diagnostic-consumed]

#ifdef BROKEN
void broken(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  stage.relase();
}
// BROKEN: :[[@LINE-2]]:9: error: no member named 'relase' in 'lp::ConsumerStage'
#endif
