// A role may hold NumStages claims at once; a ring that keeps fewer release times would make it
// wait on its drainer for a claim the role itself still holds.
// EXPECT: give the TraceRing at least NumStages release slots
import linpipe;

#ifdef LINPIPE_FIXED
using Ring = linpipe::TraceRing<8, 4>;
#else
using Ring = linpipe::TraceRing<8, 2>;
#endif
using Traced = linpipe::ProducerConsumerPipeline<4, linpipe::HostBackend<4>, linpipe::DrainedTrace<Ring>>;

void traced(Traced::Barriers& signals, Ring& ring) {
  Traced pipe(signals, "ring", linpipe::DrainedTrace<Ring>(&ring));
  auto stage = pipe.acquire_consumer();
  stage.release();
}
