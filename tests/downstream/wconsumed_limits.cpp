// Correct code that clang's -Wconsumed rejects, in two shapes (README, "What -Wconsumed gets
// wrong"): a stage passed by value to another class's constructor (clang does not follow the
// arguments of such constructors, so the parameter looks leaked), and a StageLag in a loop left
// by `break` (the analysis loses the lag's state across the break). linpipe's own check accepts
// both. A project may lower -Wconsumed for such code (LINPIPE_CONSUMED_AS_ERROR OFF, then its
// own -Wno-consumed); without the opt-out, -Werror=consumed still stops it (run_downstream.cmake
// checks both).
import linpipe;

#include <cstdio>
#include <memory>

constexpr int stages = 3;
using Pipeline = linpipe::ProducerConsumerPipeline<stages, linpipe::HostBackend<stages>>;
using Stage = Pipeline::ConsumerStageType;
struct Ring {
  Pipeline::Barriers signals;
};

// Takes the stage by value and releases it: -Wconsumed flags the caller's argument.
class Finisher {
 public:
  explicit Finisher(Stage stage) : index_(stage.index()) { stage.release(); }
  unsigned index() const { return index_; }

 private:
  unsigned index_;
};

int main() {
  // Barriers on the heap keep their size in their type too.
  auto barriers = std::make_unique<Ring>();
  auto& signals = barriers->signals;
  Pipeline(signals).init_mbars(1, 1);
  Pipeline producer(signals), consumer(signals);
  for (int i = 0; i < 3; ++i) {
    auto stage = producer.acquire_producer();
    stage.mbar().arrive();
    stage.release();
  }
  const Finisher first(consumer.acquire_consumer());

  int taken = 0;
  linpipe::StageLag<Stage, 1> lag;
  for (;;) {
    if (taken == 2) break;
    auto stage = consumer.acquire_consumer();
    ++taken;
    lag.push(std::move(stage));
  }
  lag.flush();
  std::printf("finished stage %u, then took %d stages\n", first.index(), taken);
  return first.index() == 0 && taken == 2 ? 0 : 1;
}
