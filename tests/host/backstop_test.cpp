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

// The wrong side used to be blamed: a producer that never signals fills the ring, then hangs
// waiting for a release the consumers cannot give (they never got a fill). The report must
// name the producer's missing signal, and say what the barrier expects.
TEST(Backstop, HungProducerBlamesItsOwnMissingFill) {
  if (!linpipe::debug_checks) GTEST_SKIP() << "built without debug checks (NDEBUG)";
  linpipe::host_wait_budget_ns = 50'000'000;  // 50 ms
  EXPECT_DEATH(
      {
        Ring ring;
        Pipeline producer(ring.signals, "silent");
        for (int i = 0; i < 2; ++i) {  // claims both slots, never arrives on a full barrier
          producer.wait_producer();
          producer.producer_step();
        }
        producer.wait_producer();  // slot 0, lap 2: needs a release of a fill that never came
      },
      "pipeline 'silent' .* stage 0 lap 2 role producer: the consumers are still waiting for "
      "this stage's previous fill: the producer never signalled it.* \\(this stage's full "
      "barrier expects 1 arrival per phase\\)");
  linpipe::host_wait_budget_ns = 10'000'000'000ull;
}

// And the mirror case: consumers that never release starve the producer, and the consumer's
// own next wait must blame the missing release, not the producer.
TEST(Backstop, HungConsumerBlamesTheMissingRelease) {
  if (!linpipe::debug_checks) GTEST_SKIP() << "built without debug checks (NDEBUG)";
  linpipe::host_wait_budget_ns = 50'000'000;  // 50 ms
  EXPECT_DEATH(
      {
        Ring ring;
        Pipeline producer(ring.signals, "hoarder");
        Pipeline consumer(ring.signals, "hoarder");
        producer.producer_signal_and_step();
        producer.producer_signal_and_step();
        for (int i = 0; i < 2; ++i) {  // takes both fills, never arrives on an empty barrier
          consumer.wait_consumer();
          consumer.consumer_step();
        }
        consumer.wait_consumer();  // slot 0, lap 1: the producer waits for the missing release
      },
      "pipeline 'hoarder' .* stage 0 lap 1 role consumer: the producer is still waiting for "
      "this stage's release from the previous lap: a consumer never released it");
  linpipe::host_wait_budget_ns = 10'000'000'000ull;
}

// Forgetting init_mbars hangs a GPU; on the host it is reported at the first wait.
TEST(Backstop, ForgottenInitMbarsIsReportedAtTheFirstWait) {
  if (!linpipe::debug_checks) GTEST_SKIP() << "built without debug checks (NDEBUG)";
  EXPECT_DEATH(
      {
        linpipe::HostSignal signals[linpipe::HostBackend<2>::storage_elems()];
        Pipeline producer(signals, "uninitialised");
        auto stage = producer.acquire_producer();
        stage.release();
      },
      "barriers used before init_mbars: pipeline 'uninitialised' .* stage 0 lap 1 role "
      "producer: call pipeline.init_mbars");
}

// Without init_mbars a host signal never completes a phase, as an mbarrier would not: the
// bounded wait runs out instead of passing (release builds as well as debug ones).
TEST(HostBackend, UninitialisedSignalNeverCompletes) {
  linpipe::HostSignal signals[linpipe::HostBackend<2>::storage_elems()];
  linpipe::HostBackend<2> backend(signals);
  EXPECT_FALSE(backend.initialised(0));
  backend.arrive_full(0);
  EXPECT_FALSE(backend.try_full(0, 0));
  EXPECT_FALSE(backend.wait_full_for(0, 0, 1'000'000));
  EXPECT_FALSE(backend.try_empty(0, 1)) << "even the producer's first wait must not pass";
  backend.init_barriers(1, 1);
  EXPECT_TRUE(backend.initialised(0));
  EXPECT_TRUE(backend.try_empty(0, 1));
  EXPECT_EQ(backend.full_expected_arrivals(0), 1u);
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
