// Deliberately wrong (tests/clangd), CUDA flavour: a `continue` in a device loop skips the
// release. -Werror=consumed in the compile command turns the typestate finding into an error,
// which is what clangd-22 --check prints.
import linpipe;

#include <cstdint>

__global__ void consume_odd(const int *ring, int *out, int count) { __shared__ linpipe::ProducerConsumerPipeline<2>::Barriers barriers;
  using Pipeline = linpipe::ProducerConsumerPipeline<2>;
  Pipeline pipe(barriers, "clangd_test");
  int sum = 0;
  for (int i = 0; i < count; ++i) {
    auto stage = pipe.acquire_consumer();
    const int value = ring[stage.index()];
    if (value % 2 == 0)
      continue; // leaks `stage`
    sum += value;
    stage.release();
  }
  *out = sum;
}
