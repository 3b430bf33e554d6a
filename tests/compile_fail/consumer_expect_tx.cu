// Transaction bytes are counted on a slot's full barrier. A consumer stage's mbar() is the
// empty barrier: expect-tx there would leave its phase waiting for bytes no copy delivers, and
// the producer would hang. It must not compile.
// EXPECT: expect-tx / complete-tx on a consumer stage's EMPTY barrier
// EXPECT: call it on the producer's stage (ProducerStage::mbar())
#include <cstdint>
import linpipe;

using Pipeline = linpipe::ProducerConsumerPipeline<2>;

__device__ void announce_tile(Pipeline& pipe) {
#ifdef LINPIPE_FIXED
  auto stage = pipe.acquire_producer();
  stage.mbar().arrive_expect_tx(4096);
  stage.release();
#else
  auto stage = pipe.acquire_consumer();
  stage.mbar().arrive_expect_tx(4096);
  stage.release_without_signal();
#endif
}
