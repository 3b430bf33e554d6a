// consume() already arrives when the scope ends; a second arrive would complete the phase early.
// EXPECT: a consume() scope arrives on the empty barrier when it ends
import linpipe;
using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;

void signal_early(Pipeline& pipe) {
#ifndef LINPIPE_FIXED
  auto scope = pipe.consume();
#else
  auto scope = pipe.consume_explicit();
#endif
  scope.arrive();
}
