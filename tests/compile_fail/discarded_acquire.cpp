// Acquiring and dropping the stage waits for it, then leaks it.
// EXPECT: invalid invocation of method '~ProducerStage' on a temporary object while it is in the 'unconsumed' state
// EXPECT: ignoring return value of type 'ProducerStage<2, linpipe::HostBackend<2>>' declared with 'nodiscard' attribute
import linpipe;
using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;

void skip_slot(Pipeline& pipe) {
#ifndef LINPIPE_FIXED
  pipe.acquire_producer();
#else
  pipe.acquire_producer().release();
#endif
}
