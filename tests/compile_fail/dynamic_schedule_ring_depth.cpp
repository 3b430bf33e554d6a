// A dynamic schedule's ring must have Depth stages: a pipeline of another depth would publish
// positions into slots the followers never read.
// EXPECT: linpipe::DynamicWorkSchedule<Order, Depth, Pipeline>: the pipeline must have Depth stages
import linpipe;

#ifdef LINPIPE_FIXED
using Ring = linpipe::ProducerConsumerPipeline<2>;
#else
using Ring = linpipe::ProducerConsumerPipeline<3>;
#endif
using Schedule = linpipe::DynamicWorkSchedule<linpipe::LinearOrder, 2, Ring>;

int main() {
  linpipe::WorkCounter counter{};
  const Schedule schedule(linpipe::TileSpace{{10, 1, 1}, {1, 1, 1}}, &counter);
  return static_cast<int>(schedule.count());
}
