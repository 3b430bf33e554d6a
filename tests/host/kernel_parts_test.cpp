// The kernel parts that run on the host: warp roles, shared-memory plans, derived arrival
// counts, and the debug reports for arrivals (an extra arrival, a release through a claim that
// has ended, a hang report naming the barrier whose signal is missing).
import linpipe;

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <utility>

namespace {

using Roles = linpipe::WarpRoles<1, 4>;           // 1 producer warp, 4 consumer warps
using GroupRoles = linpipe::WarpRoles<4, 2, 4>;   // a producer warpgroup, 2 consumer warpgroups

TEST(WarpRoles, SplitsTheBlockIntoProducerAndConsumers) {
  static_assert(Roles::threads == 160 && Roles::consumer_warps == 4 && !Roles::warpgroup_aligned);
  static_assert(GroupRoles::threads == 384 && GroupRoles::consumer_threads == 256 &&
                GroupRoles::warpgroup_aligned);
  const auto producer = Roles::of_thread(5);
  EXPECT_TRUE(producer.is_producer());
  EXPECT_EQ(producer.lane(), 5u);
  EXPECT_FALSE(producer.leader());
  const auto consumer = Roles::of_thread(32 * 3 + 0);
  EXPECT_TRUE(consumer.is_consumer());
  EXPECT_EQ(consumer.warp(), 3u);
  EXPECT_EQ(consumer.consumer(), 2u);
  EXPECT_EQ(consumer.warp_in_role(), 2u);
  EXPECT_TRUE(consumer.leader());

  const auto second_group = GroupRoles::of_thread(128 + 128 + 70);
  EXPECT_TRUE(second_group.is_consumer());
  EXPECT_EQ(second_group.consumer(), 1u);
  EXPECT_EQ(second_group.warp_in_consumer(), 2u);
  EXPECT_EQ(second_group.thread_in_consumer(), 70u);
  EXPECT_EQ(second_group.thread_in_role(), 128u + 70u);
  EXPECT_TRUE(GroupRoles::of_thread(127).is_producer());
  EXPECT_FALSE(GroupRoles::of_thread(128).is_producer());
}

TEST(Arrivals, CountsComeFromTheRolesAndTheReleasePolicy) {
  static_assert(linpipe::Arrivals<Roles, linpipe::ReleaseToCluster<1>>::empty == 4);
  static_assert(linpipe::Arrivals<Roles, linpipe::ReleaseToCluster<2>>::empty == 8);
  static_assert(linpipe::Arrivals<Roles, linpipe::ReleaseStage>::empty == 128);
  static_assert(linpipe::Arrivals<Roles, linpipe::ReleaseStage>::full == 1);
  static_assert(linpipe::Arrivals<GroupRoles, linpipe::ReleaseStage, 2>::full == 2);

  // Four "warps" release lane-guarded through ReleaseToCluster<1>: lane 0 arrives for each,
  // and the derived count makes exactly one phase complete.
  using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;
  Pipeline::Barriers signals;
  Pipeline(signals).init_mbars(linpipe::Arrivals<Roles, linpipe::ReleaseToCluster<1>>{});
  Pipeline producer(signals, "derived");
  {
    auto stage = producer.acquire_producer();
    stage.mbar().arrive();
    stage.release();
  }
  // The producer's next use of slot 0 is lap 2: it may refill once the phase completes.
  for (std::uint32_t warp = 0; warp < 4; ++warp) {
    Pipeline consumer(signals, "derived");
    for (std::uint32_t lane = 0; lane < 2; ++lane) {  // two lanes of each warp hold the stage
      auto stage = consumer.acquire_consumer();
      linpipe::ReleaseToCluster<1>{lane}(std::move(stage));
      EXPECT_EQ(producer.backend().try_empty(0, 2), warp == 3)
          << "warp " << warp << " lane " << lane << ": only the fourth warp's lane 0 completes it";
      consumer.start_consumer_at(0, 0);  // the next "lane" claims the same stage
    }
  }
}

TEST(Arrivals, ReleaseByConsumerArrivesOncePerConsumer) {
  static_assert(linpipe::Arrivals<Roles, linpipe::ReleaseByConsumer>::empty == 4);
  static_assert(linpipe::Arrivals<GroupRoles, linpipe::ReleaseByConsumer>::empty == 2);

  // Two consumer warpgroups of GroupRoles: every thread ends its claim through the policy, and
  // only each group's first thread arrives, so the phase completes with the second group's.
  using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;
  Pipeline::Barriers signals;
  Pipeline(signals).init_mbars(linpipe::Arrivals<GroupRoles, linpipe::ReleaseByConsumer>{});
  Pipeline producer(signals, "per-consumer");
  {
    auto stage = producer.acquire_producer();
    stage.mbar().arrive();
    stage.release();
  }
  for (std::uint32_t consumer = 0; consumer < 2; ++consumer) {
    Pipeline pipe(signals, "per-consumer");
    for (const std::uint32_t thread : {5u, 0u, 127u}) {  // the leader is not the first to release
      const auto me = GroupRoles::of_thread(GroupRoles::producer_threads + 128 * consumer + thread);
      auto stage = pipe.acquire_consumer();
      linpipe::ReleaseByConsumer{me.thread_in_consumer() == 0}(std::move(stage));
      EXPECT_EQ(producer.backend().try_empty(0, 2), consumer == 1 && thread != 5)
          << "consumer " << consumer << " thread " << thread;
      pipe.start_consumer_at(0, 0);
    }
  }
}

struct Layout {
  using Pipeline = linpipe::ProducerConsumerPipeline<3, linpipe::HostBackend<3>>;
  struct alignas(128) Row {
    std::uint16_t v[64];
  };
  alignas(256) float weight[100];
  std::uint64_t counters[3];
};
using Plan = linpipe::SharedPlan<Layout>;

TEST(SharedPlan, OneNumberForTheLaunchAndAnAlignedPlacement) {
  static_assert(Plan::launch_bytes() == sizeof(Layout) + alignof(Layout) - 16);
  alignas(16) static std::byte raw[Plan::launch_bytes() + 16];
  for (std::size_t offset : {0u, 16u}) {  // a dynamic shared array is only 16-byte aligned
    Layout& layout = Plan::place(raw + offset);
    const auto address = reinterpret_cast<std::uintptr_t>(&layout);
    EXPECT_EQ(address % alignof(Layout), 0u);
    EXPECT_GE(address, reinterpret_cast<std::uintptr_t>(raw + offset));
    EXPECT_LE(address + sizeof(Layout),
              reinterpret_cast<std::uintptr_t>(raw + offset + Plan::launch_bytes()));
  }
  // A smaller budget is checked the same way (a plan that fits passes).
  static_assert(linpipe::SharedPlan<Layout, 64 * 1024>::launch_bytes() == Plan::launch_bytes());
}

template <std::size_t Bytes>
struct Bytes16 {
  alignas(16) std::byte bytes[Bytes];
};
template <std::size_t Bytes>
using PlanOf = linpipe::SharedPlan<Bytes16<Bytes>>;

// Residency is bounded by whichever SM_90 resource runs out first: shared memory (1 KiB
// reserved per block), threads, the 32 block slots, or the fullest of the four register banks.
TEST(SharedPlan, BlocksPerSmIsTheFirstResourceToRunOut) {
  // Shared memory: 228 KiB / (100 KiB + 1 KiB) = 2 blocks.
  static_assert(PlanOf<100 * 1024>::blocks_per_sm(128, 32) == 2);
  // Threads: 2048 / 1024 = 2 blocks, though shared memory would hold 224.
  static_assert(PlanOf<16>::blocks_per_sm(1024, 32) == 2);
  // Block slots: one warp a block, 32 registers: 32 blocks, not the 64 threads would allow.
  static_assert(PlanOf<16>::blocks_per_sm(32, 32) == 32);
  // Registers: five warps a block at 40 registers; shared memory (20 KiB) holds 10 blocks,
  // threads 12, but 10 blocks put 13 warps in one bank (13 x 32 x 40 > 16K): 9 blocks.
  static_assert(PlanOf<20 * 1024>::blocks_per_sm(160, 40) == 9);
  // A partial warp takes a whole warp's registers and thread slots.
  static_assert(PlanOf<16>::blocks_per_sm(100, 64) == PlanOf<16>::blocks_per_sm(128, 64));
  // A block that fits nowhere twice still gets one (the launch reports what does not fit).
  static_assert(PlanOf<200 * 1024>::blocks_per_sm(1024, 255) == 1);
  SUCCEED();
}

using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;
using Stage = Pipeline::ConsumerStageType;

struct FilledRing {
  Pipeline::Barriers signals;
  explicit FilledRing(std::uint32_t consumers) {
    Pipeline(signals).init_mbars(1, consumers);
    Pipeline producer(signals, "filler");
    producer.producer_signal_and_step();
  }
};

// Every lane of a warp releasing where init_mbars counted one arrival per warp: the second
// arrival completes nothing legitimate, and debug builds stop at it.
TEST(ArrivalReports, AnArrivalPastThePhaseCountIsReported) {
  if (!linpipe::debug_checks) GTEST_SKIP() << "built without debug checks (NDEBUG)";
  EXPECT_DEATH(
      {
        FilledRing ring(/*consumers=*/1);
        Pipeline lane0(ring.signals, "per-warp");
        Pipeline lane1(ring.signals, "per-warp");
        auto first = lane0.acquire_consumer();
        auto second = lane1.acquire_consumer();
        first.release();
        second.release();  // one arrival too many for this phase
      },
      "more arrivals on this stage's empty barrier than one phase expects .*: pipeline "
      "'per-warp' .* stage 0 lap 0 role consumer: arrive once per releasing thread.*"
      "\\(this stage's empty barrier expects 1 arrival per phase\\)");
}

TEST(ArrivalReports, ArrivalsThatMatchTheCountPassSilently) {
  FilledRing ring(/*consumers=*/2);
  Pipeline lane0(ring.signals, "per-lane");
  Pipeline lane1(ring.signals, "per-lane");
  auto first = lane0.acquire_consumer();
  auto second = lane1.acquire_consumer();
  first.release();
  EXPECT_FALSE(lane0.backend().try_empty(0, 2)) << "one of two arrivals must not complete it";
  second.release();
  EXPECT_TRUE(lane0.backend().try_empty(0, 2)) << "the producer may refill slot 0 on lap 2";
}

// A helper that releases a stage it got by reference, then its caller releases it again:
// -Wconsumed cannot see it (the stage is 'unknown' after the call), the runtime does.
void finish(Stage& stage) { stage.release(); }

TEST(ArrivalReports, AReleaseThroughAnEndedClaimIsReported) {
  if (!linpipe::debug_checks) GTEST_SKIP() << "built without debug checks (NDEBUG)";
  EXPECT_DEATH(
      {
        FilledRing ring(/*consumers=*/1);
        Pipeline consumer(ring.signals, "twice");
        auto stage = consumer.acquire_consumer();
        finish(stage);
        stage.release();  // NOLINT(linpipe-linear-stage): the runtime check is under test
      },
      "arrive\\(\\) or release\\(\\) on a stage whose claim has already ended .*: pipeline "
      "'twice' .* stage 0 lap 0 role consumer");
}

// The hang report states the count of the barrier whose signal is missing: a consumer whose
// producer starves because no consumer released names the EMPTY barrier's count.
TEST(ArrivalReports, HangReportNamesTheBarrierWhoseSignalIsMissing) {
  if (!linpipe::debug_checks) GTEST_SKIP() << "built without debug checks (NDEBUG)";
  linpipe::host_wait_budget_ns = 50'000'000;  // 50 ms
  EXPECT_DEATH(
      {
        Pipeline::Barriers signals;
        Pipeline(signals).init_mbars(/*producer=*/1, /*consumers=*/3);
        Pipeline producer(signals, "hoarder");
        Pipeline consumer(signals, "hoarder");
        producer.producer_signal_and_step();
        producer.producer_signal_and_step();
        for (int i = 0; i < 2; ++i) {  // takes both fills, never arrives
          consumer.wait_consumer();
          consumer.consumer_step();
        }
        consumer.wait_consumer();
      },
      "role consumer: the producer is still waiting for this stage's release.*\\(this stage's "
      "empty barrier expects 3 arrivals per phase\\)");
  linpipe::host_wait_budget_ns = 10'000'000'000ull;
}

// A consumer that steps over other consumers' stages (a ping-pong GEMM's warpgroups taking
// alternate tiles) and waits before the producer has filled the slot's previous lap: the
// barrier's parity matches a phase two laps old, so the wait passes at once on stale data.
// Debug builds report it at the claim, naming the slot and lap.
TEST(LapReports, AConsumerWaitingTwoLapsAheadOfTheProducerIsReported) {
  if (!linpipe::debug_checks) GTEST_SKIP() << "built without debug checks (NDEBUG)";
  EXPECT_DEATH(
      {
        Pipeline::Barriers signals;
        Pipeline(signals).init_mbars(1, 1);
        Pipeline producer(signals, "stepped");
        Pipeline consumer(signals, "stepped");
        auto filled = producer.acquire_producer();  // slot 0, the consumers' lap 0
        filled.mbar().arrive();
        filled.release();
        consumer.consumer_step(4);  // slot 0, lap 2: two fills of slot 0 still to come
        auto stale = consumer.acquire_consumer();
        stale.release();
      },
      "a consumer's wait on this stage passed on a phase two laps old.*: pipeline 'stepped' .* "
      "stage 0 lap 2 role consumer: wait on a slot only once the producer has filled its "
      "previous lap");
}

// The same step taken in order: the consumer that stepped over the other's two stages waits
// on slot 0's second fill only after the producer has made it, and nothing is reported.
TEST(LapReports, AConsumerSteppingOverStagesTheProducerFilledPassesSilently) {
  Pipeline::Barriers signals;
  Pipeline(signals).init_mbars(1, 1);
  Pipeline producer(signals, "stepped");
  Pipeline first(signals, "stepped");
  Pipeline second(signals, "stepped");
  for (int i = 0; i < 2; ++i) {  // the first consumer's two stages, filled and read
    auto stage = producer.acquire_producer();
    stage.mbar().arrive();
    stage.release();
    auto read = first.acquire_consumer();
    read.release();
  }
  auto refill = producer.acquire_producer();  // slot 0's second fill (the consumers' lap 1)
  refill.mbar().arrive();
  refill.release();
  second.consumer_step(2);
  auto read = second.acquire_consumer();
  EXPECT_EQ(read.index(), 0u);
  EXPECT_EQ(read.lap(), 1u);
  read.release();
}

// Ping-pong consumers on one ring, as the ping-pong GEMM's warpgroups: tiles of 7 stages on a
// 3-stage ring, dealt to two consumers in turn, each stepping over the other's stages and
// waiting on its own only after the other has claimed every stage of the tile before. Every
// consumer reads every stage of its tiles whole, and (debug builds) nothing is reported: the
// laps-ahead check has no false alarm on the pattern it exists for.
TEST(LapReports, PingPongConsumersTakingTurnsReadEveryStageOfTheirTiles) {
  constexpr int stages_per_tile = 7, tiles = 9;
  using Ring3 = linpipe::ProducerConsumerPipeline<3, linpipe::HostBackend<3>>;
  Ring3::Barriers signals;
  Ring3(signals).init_mbars(1, 1);
  std::array<int, 3> payload{};
  std::atomic<int> turn{0};  // the tile whose consumer may wait on its stages
  std::thread producer([&] {
    Ring3 pipe(signals, "ping-pong");
    for (int i = 0; i < tiles * stages_per_tile; ++i) {
      auto stage = pipe.acquire_producer();
      payload[stage.index()] = i;
      stage.mbar().arrive();
      stage.release();
    }
    pipe.drain();
  });
  std::array<int, 2> wrong{}, read{};
  std::array<std::thread, 2> consumers;
  for (int me = 0; me < 2; ++me) {
    consumers[me] = std::thread([&, me] {
      Ring3 pipe(signals, "ping-pong");
      for (int tile = 0; tile < tiles; ++tile) {
        if (tile % 2 != me) {
          pipe.consumer_step(stages_per_tile);
          continue;
        }
        while (turn.load(std::memory_order_acquire) != tile) std::this_thread::yield();
        for (int k = 0; k < stages_per_tile; ++k) {
          auto stage = pipe.acquire_consumer();
          if (payload[stage.index()] != tile * stages_per_tile + k) ++wrong[me];
          ++read[me];
          if (k == stages_per_tile - 1) turn.store(tile + 1, std::memory_order_release);
          stage.release();
        }
      }
    });
  }
  producer.join();
  for (std::thread& t : consumers) t.join();
  EXPECT_EQ(wrong[0] + wrong[1], 0);
  EXPECT_EQ(read[0], 5 * stages_per_tile);  // tiles 0, 2, 4, 6, 8
  EXPECT_EQ(read[1], 4 * stages_per_tile);
}

}  // namespace
