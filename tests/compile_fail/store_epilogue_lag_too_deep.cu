// A store epilogue holds Lag stages while the next is acquired: with Lag >= NumStages the
// consumer would wait for a slot it holds itself.
// EXPECT: the epilogue holds Lag stages while the next is acquired, so the ring needs at least Lag + 1 stages
import linpipe;

using Pipeline = linpipe::ProducerConsumerPipeline<2>;
#ifdef LINPIPE_FIXED
constexpr int lag = 1;
#else
constexpr int lag = 2;
#endif

__global__ void kernel() {
  using Release = linpipe::ReleaseToCluster<1>;
  linpipe::StoreEpilogue<Pipeline::ConsumerStageType, lag, Release> epilogue(Release{threadIdx.x % 32});
  epilogue.finish();
}
