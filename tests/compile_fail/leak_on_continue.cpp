// A `continue` that skips the release leaks the stage on every skipped iteration.
// EXPECT: invalid invocation of method '~ConsumerStage' on object 'stage' while it is in the 'unconsumed' state
import linpipe;
using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;

int sum_odd(Pipeline& pipe, const int* ring, int count) {
  int sum = 0;
  for (int i = 0; i < count; ++i) {
    auto stage = pipe.acquire_consumer();
    const int value = ring[stage.index()];
#ifndef LINPIPE_FIXED
    if (value % 2 == 0) continue;
#else
    if (value % 2 == 0) {
      stage.release();
      continue;
    }
#endif
    sum += value;
    stage.release();
  }
  return sum;
}
