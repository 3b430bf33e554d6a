// The seed of robustness.test: a translation unit with findings in every construct the
// analysis handles. mutate.py breaks it (and stage_types.h) in many ways.
#include "stage_types.h"
using namespace lp;

void leakOnReturn(Pipeline &pipe, bool c) {
  auto stage = pipe.acquire_consumer();
  if (c)
    return;
  stage.release();
}

void loopWithBreak(Pipeline &pipe, int n) {
  for (int i = 0; i < n; ++i) {
    auto stage = pipe.acquire_producer();
    if (done())
      break;
    stage.mbar().expect_tx(64);
    stage.release();
  }
}

template <int N>
void templated() {
  auto slot = make_slot<N>();
  slot.release();
  slot.release();
}
template void templated<3>();

void lambdas(Pipeline &pipe, std::vector<ConsumerStage> &ring) {
  auto run = [&pipe](ConsumerStage extra) {
    auto stage = pipe.acquire_consumer();
    stage.arrive();
    stage.release();
  };
  run(pipe.acquire_consumer());
  ring.push_back(pipe.acquire_consumer());
  pipe.acquire_consumer();
}

void protocol(Pipeline &pipe, int lane) {
  auto stage = pipe.acquire_consumer();
  if (lane == 0)
    stage.arrive();
  std::move(stage).release_without_signal();
  auto other = pipe.acquire_consumer();
  other.release_without_signal();
}
