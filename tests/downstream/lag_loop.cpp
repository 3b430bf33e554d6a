// Correct code that clang's -Wconsumed rejects: a StageLag in a loop left by `break` (the
// analysis loses the lag's state across the break). A project that lowers -Wconsumed for such
// code must be able to (LINPIPE_CONSUMED_AS_ERROR OFF, then its own -Wno-consumed); without
// the opt-out linpipe's -Werror=consumed still stops it (run_downstream.cmake checks both).
import linpipe;

#include <cstdio>
#include <memory>

int main() {
  constexpr int stages = 3;
  using Pipeline = linpipe::ProducerConsumerPipeline<stages, linpipe::HostBackend<stages>>;
  auto signals = std::make_unique<linpipe::HostSignal[]>(linpipe::HostBackend<stages>::storage_elems());
  Pipeline(signals.get()).init_mbars(1, 1);
  Pipeline producer(signals.get()), consumer(signals.get());
  for (int i = 0; i < 2; ++i) {
    auto stage = producer.acquire_producer();
    stage.mbar().arrive();
    stage.release();
  }
  int taken = 0;
  linpipe::StageLag<Pipeline::ConsumerStageType, 1> lag;
  for (;;) {
    if (taken == 2) break;
    auto stage = consumer.acquire_consumer();
    ++taken;
    lag.push(std::move(stage));
  }
  lag.flush();
  std::printf("took %d stages\n", taken);
  return taken == 2 ? 0 : 1;
}
