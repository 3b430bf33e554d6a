// Both checks share one analysis per function: each still reports exactly its own findings,
// alone or together, and a check with other options (ReportEscapes) gets its own analysis.
// RUN: %check_linpipe -checks='-*,linpipe-*' %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefixes=LINEAR,PROTOCOL,ESCAPE --implicit-check-not="warning:"
// RUN: %check_linpipe -checks='-*,linpipe-stage-protocol' %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefix=PROTOCOL --implicit-check-not="warning:"
// RUN: %check_linpipe -checks='-*,linpipe-linear-stage' %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefixes=LINEAR,ESCAPE --implicit-check-not="warning:"
// RUN: %check_linpipe -checks='-*,linpipe-*' \
// RUN:   -config="{CheckOptions: {linpipe-linear-stage.ReportEscapes: false}}" %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefixes=LINEAR,PROTOCOL --implicit-check-not="warning:"
#include "stage_types.h"
#include <vector>
using namespace lp;

void oneOfEach(Pipeline &pipe, std::vector<ConsumerStage> &kept) {
  auto leaked = pipe.acquire_consumer();
  auto quiet = pipe.acquire_consumer();
  quiet.release_without_signal();
  // PROTOCOL: :[[@LINE-1]]:3: warning: 'quiet' is released by 'release_without_signal' but no path before it signals its barrier [linpipe-stage-protocol]
  kept.push_back(pipe.acquire_consumer());
  // ESCAPE: :[[@LINE-1]]:8: warning: the value returned by 'acquire_consumer' escapes into a standard container or wrapper
}
// LINEAR: :[[@LINE-1]]:1: warning: 'leaked' is not released on this path [linpipe-linear-stage]
