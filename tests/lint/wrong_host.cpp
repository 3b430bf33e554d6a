// Compiles cleanly (-Wconsumed cannot follow a stage into a container), but the stage escapes
// where no analysis can prove it is released: the lint gate must stop this build.
#include <utility>
#include <vector>

import linpipe;

using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;

int main() {
  linpipe::HostSignal signals[linpipe::HostBackend<2>::storage_elems()];
  Pipeline(signals).init_mbars(1, 1);
  Pipeline pipe(signals, "lint_gate");
  std::vector<Pipeline::ProducerStageType> parked;
  auto stage = pipe.acquire_producer();
  parked.push_back(std::move(stage));
  parked.back().release();
  return 0;
}
