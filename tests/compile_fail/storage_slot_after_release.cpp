// storage[stage] names the slot a live stage owns; after release() the producer may already be
// refilling it, so reading through the released stage is rejected like any use after release.
// EXPECT: argument not in expected state; expected 'unconsumed', observed 'consumed'
import linpipe;
using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;
struct Tile {
  int values[16];
};
using Storage = linpipe::PipelineStorage<Pipeline, Tile>;

int read_first(Pipeline& pipe, Storage& storage) {
  auto stage = pipe.acquire_consumer();
#ifdef LINPIPE_FIXED
  const int first = storage[stage].values[0];
  stage.release();
#else
  stage.release();
  const int first = storage[stage].values[0];
#endif
  return first;
}
