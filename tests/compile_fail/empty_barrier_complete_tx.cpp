// The pipeline's consumer_mbar(stage) is a slot's empty barrier: arrivals only, on every
// backend. complete_tx there is rejected with the fix; arrive() is what consumers do.
// EXPECT: expect-tx / complete-tx on a consumer stage's EMPTY barrier
import linpipe;
using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;

void signal_slot(Pipeline& pipe, unsigned slot) {
#ifdef LINPIPE_FIXED
  pipe.consumer_mbar(slot).arrive();
#else
  pipe.consumer_mbar(slot).complete_tx(64u);
#endif
}
