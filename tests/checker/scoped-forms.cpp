// The scoped forms (consume(), consume_explicit(), produce()) are not linear: their destructor
// releases, so they are never reported as leaked. (A consume_explicit() scope that no path
// signals through is linpipe-stage-protocol's finding: scope-signals.cpp; the one below
// arrives on lane 0.)
// RUN: %check_linpipe -checks='-*,linpipe-*' %s -- %stage_flags \
// RUN:   | FileCheck %s --allow-empty --implicit-check-not="{{warning|error|note}}:"
#include "stage_types.h"
using namespace lp;

void consumeScope(Pipeline &pipe) {
  auto scope = pipe.consume();
  work(scope.index());
}

void consumeScopeEarlyReturn(Pipeline &pipe) {
  auto scope = pipe.consume();
  if (done())
    return;
  work(scope.index());
}

void consumeExplicitScope(Pipeline &pipe, int lane) {
  auto scope = pipe.consume_explicit();
  if (lane == 0)
    scope.arrive();
}

void produceScope(Pipeline &pipe, int n) {
  for (int i = 0; i < n; ++i) {
    auto scope = pipe.produce();
    scope.mbar().expect_tx(128);
    if (done())
      break;
  }
}

void scopeInBlock(Pipeline &pipe) {
  {
    auto scope = pipe.consume();
    work(scope.index());
  }
  pipe.consume();
}

// Other unannotated objects with destructors are ignored too.
void unannotatedObjects() {
  std::vector<int> values(4);
  auto owned = std::make_unique<int>(3);
  if (done())
    return;
  values.push_back(*owned);
}
