// Deliberately wrong (tests/clangd), CUDA flavour, device code: an explicit arrive() followed by
// release(), which arrives again. Only linpipe-stage-protocol sees it.
import linpipe;

#include <cstdint>

__global__ void arrives_twice() { __shared__ linpipe::ProducerConsumerPipeline<2>::Barriers barriers;
  using Pipeline = linpipe::ProducerConsumerPipeline<2>;
  Pipeline pipe(barriers, "clangd_test");
  auto stage = pipe.acquire_consumer();
  stage.arrive();
  stage.release(); // linpipe-stage-protocol: release() arrives a second time
}
