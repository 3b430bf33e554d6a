// slot<Tile>(stage) names a ring by its tile type; a type the storage does not hold is
// rejected with the fix, not with a template backtrace.
// EXPECT: Tile must be exactly one of the storage's tile types
import linpipe;
using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;
struct Keys {
  int values[16];
};
struct Values {
  float values[16];
};
#ifdef LINPIPE_FIXED
using Storage = linpipe::PipelineStorage<Pipeline, Keys, Values>;
#else
using Storage = linpipe::PipelineStorage<Pipeline, Keys>;
#endif

float first_value(Pipeline& pipe, Storage& storage) {
  auto stage = pipe.acquire_consumer();
  const float first = storage.slot<Values>(stage).values[0];
  stage.release();
  return first;
}
