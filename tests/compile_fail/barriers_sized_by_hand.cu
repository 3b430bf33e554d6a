// Barrier storage sized by hand (`2 * Stages` words) is too small whenever the backend keeps
// words of its own (debug builds' init token and arrival counters): it must fail to compile
// with the declaration to use instead, not overflow into the ring at run time.
// EXPECT: the barrier array has the wrong size; declare it as `Pipeline::Barriers barriers;`
#include <cstdint>
import linpipe;

template <int Stages>
__global__ void relay() {
  using Pipeline = linpipe::ProducerConsumerPipeline<Stages>;
#ifdef LINPIPE_FIXED
  __shared__ typename Pipeline::Barriers barriers;
#else
  __shared__ std::uint64_t barriers[2 * Stages];
#endif
  if (threadIdx.x == 0) Pipeline(barriers).init_mbars(1, 1);
}
template __global__ void relay<4>();
