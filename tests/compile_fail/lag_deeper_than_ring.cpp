// A lag holds Depth stages while the next is acquired: a ring of Depth stages would deadlock.
// EXPECT: linpipe::StageLag<Stage, Depth>: a lag holds Depth stages while the next one is acquired, so the ring needs at least Depth + 1 stages
import linpipe;
using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;

#ifdef LINPIPE_FIXED
constexpr int depth = 1;
#else
constexpr int depth = 2;
#endif

void lagged(Pipeline& pipe) {
  linpipe::StageLag<Pipeline::ConsumerStageType, depth> lag;
  lag.push(pipe.acquire_consumer());
  lag.flush();
}
