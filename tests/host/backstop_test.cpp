// The debug-build runtime backstops on the host: each reports the pipeline, stage, lap and
// role and aborts instead of leaking a stage or hanging.
import linpipe;

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

namespace {

using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;

struct Ring {
  linpipe::HostSignal signals[linpipe::HostBackend<2>::storage_elems()];
  Ring() { Pipeline(signals).init_mbars(1, 1); }
};

TEST(Backstop, UnreleasedStageAbortsNamingIt) {
  if (!linpipe::debug_checks) GTEST_SKIP() << "built without debug checks (NDEBUG)";
  EXPECT_DEATH(
      {
        Ring ring;
        Pipeline producer(ring.signals, "leaky");
        Pipeline consumer(ring.signals, "leaky");
        producer.producer_signal_and_step();
        // Deliberately leaked through the escape hatch, so only the runtime backstop sees it.
        auto* stage = new Pipeline::ConsumerStageType(linpipe::hand_off(consumer.acquire_consumer()));
        delete stage;  // destroyed while live: the backstop fires in the destructor
      },
      "stage destroyed without being released: pipeline 'leaky' .* stage 0 lap 0 role consumer");
}

TEST(Backstop, HungWaitAbortsNamingTheWaiter) {
  if (!linpipe::debug_checks) GTEST_SKIP() << "built without debug checks (NDEBUG)";
  linpipe::host_wait_budget_ns = 50'000'000;  // 50 ms
  EXPECT_DEATH(
      {
        Ring ring;
        Pipeline consumer(ring.signals, "starved");
        consumer.wait_consumer();  // no producer ever fills stage 0
      },
      "wait exceeded its budget .*: pipeline 'starved' .* stage 0 lap 0 role consumer: the "
      "producer never filled this stage");
  linpipe::host_wait_budget_ns = 10'000'000'000ull;
}

TEST(Backstop, InitWithZeroArrivalsAborts) {
  if (!linpipe::debug_checks) GTEST_SKIP() << "built without debug checks (NDEBUG)";
  EXPECT_DEATH(
      {
        linpipe::HostSignal signals[4];
        Pipeline(signals, "zero").init_mbars(1, 0);
      },
      "init_mbars with an arrive count of 0: pipeline 'zero'");
}

}  // namespace
