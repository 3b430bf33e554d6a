// A stage owns its slot: one role holding several live stages at once, releasing them in any
// order, the lag holder built on them, and the bounded, token and positioned forms of waiting.
import linpipe;

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

template <int N>
struct Ring {
  using Pipeline = linpipe::ProducerConsumerPipeline<N, linpipe::HostBackend<N>>;
  using ConsumerStage = typename Pipeline::ConsumerStageType;
  linpipe::HostSignal signals[linpipe::HostBackend<N>::storage_elems()];
  std::array<int, N> payload{};
  explicit Ring(std::uint32_t consumers = 1) { Pipeline(signals).init_mbars(1, consumers); }
  Pipeline pipeline() { return Pipeline(signals, "live"); }
};

// The producer fills `count` slots with items first, first + 1, ... through live stages.
template <class Ring, class Pipeline>
void fill(Ring& ring, Pipeline& producer, int first, int count) {
  for (int i = 0; i < count; ++i) {
    auto stage = producer.acquire_producer();
    ring.payload[stage.index()] = first + i;
    stage.mbar().arrive();
    stage.release();
  }
}

template <class T>
class LiveStages : public ::testing::Test {};
using DeepRings = ::testing::Types<std::integral_constant<int, 2>, std::integral_constant<int, 3>,
                                   std::integral_constant<int, 4>, std::integral_constant<int, 8>>;
TYPED_TEST_SUITE(LiveStages, DeepRings);

// Every depth from 2 to N: the held stages get distinct slots and the data in order, and
// releasing them newest first frees each slot for the next lap.
TYPED_TEST(LiveStages, HeldStagesOwnDistinctSlotsInOrder) {
  constexpr int n = TypeParam::value;
  for (int held = 2; held <= n; ++held) {
    Ring<n> ring;
    auto producer = ring.pipeline();
    auto consumer = ring.pipeline();
    int next = 0;
    for (int round = 0; round < 3; ++round) {
      fill(ring, producer, next, held);
      std::vector<typename Ring<n>::ConsumerStage> live;
      for (int i = 0; i < held; ++i) {
        auto stage = consumer.acquire_consumer();
        EXPECT_EQ(ring.payload[stage.index()], next + i) << "held " << held << ", round " << round;
        for (const auto& earlier : live) EXPECT_NE(earlier.index(), stage.index());
        live.push_back(linpipe::hand_off(std::move(stage)));
      }
      next += held;
      // Newest first: out of acquisition order, each release frees its own slot.
      while (!live.empty()) {
        live.back().release();
        live.pop_back();
      }
    }
  }
}

// Out-of-order release arrives on the released stage's own slot, not on the cursor's.
TEST(LiveStages, OutOfOrderReleaseFreesThatSlotOnly) {
  Ring<2> ring;
  auto producer = ring.pipeline();
  auto consumer = ring.pipeline();
  fill(ring, producer, 10, 2);
  auto first = consumer.acquire_consumer();
  auto second = consumer.acquire_consumer();
  EXPECT_EQ(first.index(), 0u);
  EXPECT_EQ(second.index(), 1u);
  second.release();
  EXPECT_FALSE(producer.try_wait_producer()) << "slot 0 is still held by `first`";
  EXPECT_TRUE(producer.backend().try_empty(1, producer.producer_lap())) << "slot 1 was freed";
  first.release();
  EXPECT_TRUE(producer.try_wait_producer());
}

// A helper that takes a stage by (non-const) reference, as kernels' helpers do.
template <class Stage>
std::uint32_t slot_of(Stage& stage) {
  return stage.index();
}

// Stages passed by reference to a helper, or swapped, then released: this file builds with
// -Werror=consumed, for which such a stage is 'unknown' afterwards (the build is half the test),
// and the swap trades slots, so releasing each name frees the slot it holds now.
TEST(LiveStages, StagesPassedByReferenceOrSwappedStillRelease) {
  Ring<2> ring;
  auto producer = ring.pipeline();
  auto consumer = ring.pipeline();
  fill(ring, producer, 10, 2);
  auto first = consumer.acquire_consumer();
  auto second = consumer.acquire_consumer();
  EXPECT_EQ(slot_of(first), 0u);
  std::swap(first, second);
  EXPECT_EQ(first.index(), 1u);
  EXPECT_EQ(second.index(), 0u);
  first.release();
  EXPECT_FALSE(producer.try_wait_producer()) << "slot 0 is still held, now by `second`";
  second.release();
  EXPECT_TRUE(producer.try_wait_producer());
}

// A stage kept across loop iterations (the Hopper mainloop: release k-1 once k is issued).
TEST(LiveStages, PreviousStageHeldAcrossIterations) {
  Ring<3> ring;
  auto producer = ring.pipeline();
  auto consumer = ring.pipeline();
  std::vector<int> seen;
  std::thread filler([&] { fill(ring, producer, 0, 30); });
  auto previous = consumer.acquire_consumer();
  seen.push_back(ring.payload[previous.index()]);
  for (int i = 1; i < 30; ++i) {
    auto current = consumer.acquire_consumer();
    seen.push_back(ring.payload[current.index()]);
    previous.release();
    previous = std::move(current);
  }
  previous.release();
  filler.join();
  for (int i = 0; i < 30; ++i) EXPECT_EQ(seen[i], i);
}

// Counts the releases a lag makes, and which slots they free.
struct CountingRelease {
  std::vector<std::uint32_t>* released;
  template <class Stage>
  void operator()(Stage&& stage) const {
    released->push_back(stage.index());
    stage.release();
  }
};

TEST(StageLag, ReleasesTheOldestOncePastDepthThenFlushesInOrder) {
  Ring<4> ring;
  auto producer = ring.pipeline();
  auto consumer = ring.pipeline();
  fill(ring, producer, 0, 4);
  std::vector<std::uint32_t> released;
  linpipe::StageLag<Ring<4>::ConsumerStage, 2, CountingRelease> lag(CountingRelease{&released});
  EXPECT_EQ(lag.size(), 0);
  lag.push(consumer.acquire_consumer());
  lag.push(consumer.acquire_consumer());
  EXPECT_EQ(lag.size(), 2);
  EXPECT_TRUE(released.empty()) << "nothing leaves before Depth stages are held";
  lag.push(consumer.acquire_consumer());
  EXPECT_EQ(released, (std::vector<std::uint32_t>{0}));
  EXPECT_TRUE(producer.try_wait_producer()) << "slot 0 freed for lap 2";
  lag.push(consumer.acquire_consumer());
  EXPECT_EQ(released, (std::vector<std::uint32_t>{0, 1}));
  lag.flush();
  EXPECT_EQ(released, (std::vector<std::uint32_t>{0, 1, 2, 3}));
  for (std::uint32_t s = 0; s < 4; ++s)
    EXPECT_TRUE(producer.backend().try_empty(s, producer.producer_lap())) << "slot " << s;
}

// A lag lent to a helper inside a loop, and a loop left by `break`: correct code that builds
// with -Werror=consumed (as every host test does) and releases every stage.
template <class Lag, class Stage>
void retire(Lag& lag, Stage&& stage) {
  lag.push(std::move(stage));
}
TEST(StageLag, LentToAHelperInsideALoopAndLeftByBreak) {
  Ring<3> ring;
  auto producer = ring.pipeline();
  auto consumer = ring.pipeline();
  fill(ring, producer, 0, 2);
  linpipe::StageLag<Ring<3>::ConsumerStage, 1> retiring;
  int taken = 0;
  for (;;) {
    if (taken == 2) break;
    retire(retiring, consumer.acquire_consumer());
    ++taken;
  }
  EXPECT_TRUE(producer.backend().try_empty(0, 2)) << "slot 0 left the lag when slot 1 came";
  EXPECT_FALSE(producer.backend().try_empty(1, 2)) << "slot 1 is still held";
  retiring.flush();
  EXPECT_TRUE(producer.backend().try_empty(1, 2));
}

// The default release arrives on the empty barrier; a lag flushed early holds fewer.
TEST(StageLag, DefaultReleaseArrivesAndFlushOfAPartialLag) {
  Ring<3> ring;
  auto producer = ring.pipeline();
  auto consumer = ring.pipeline();
  fill(ring, producer, 0, 1);
  linpipe::StageLag<Ring<3>::ConsumerStage, 2> lag;
  lag.push(consumer.acquire_consumer());
  EXPECT_EQ(lag.size(), 1);
  EXPECT_FALSE(producer.backend().try_empty(0, 2)) << "still held";
  lag.flush();
  EXPECT_TRUE(producer.backend().try_empty(0, 2)) << "flushed: slot 0 released";
}

// A lag per tile and a streaming loop through it, with a producer thread: every item arrives
// once and in order, and the consumer never holds more than Depth + 1 stages.
TEST(StageLag, StreamsThroughARingWithAProducerThread) {
  constexpr int items = 20000;
  Ring<3> ring;
  auto producer = ring.pipeline();
  auto consumer = ring.pipeline();
  std::thread filler([&] { fill(ring, producer, 0, items); });
  long long sum = 0;
  int expected = 0;
  bool in_order = true;
  linpipe::StageLag<Ring<3>::ConsumerStage, 2> lag;
  for (int i = 0; i < items; ++i) {
    auto stage = consumer.acquire_consumer();
    const int item = ring.payload[stage.index()];
    in_order &= item == expected++;
    sum += item;
    lag.push(std::move(stage));
  }
  lag.flush();
  filler.join();
  EXPECT_TRUE(in_order);
  EXPECT_EQ(sum, static_cast<long long>(items) * (items - 1) / 2);
}

TEST(Acquire, FromASuccessfulTryWaitDoesNotWaitAgain) {
  Ring<2> ring;
  auto producer = ring.pipeline();
  auto consumer = ring.pipeline();
  const linpipe::WaitStatus empty = producer.try_wait_producer();
  ASSERT_TRUE(empty.ready);
  auto filled = producer.acquire_producer(empty);
  EXPECT_EQ(filled.index(), 0u);
  filled.mbar().arrive();
  filled.release();
  const linpipe::WaitStatus full = consumer.try_wait_consumer();
  ASSERT_TRUE(full.ready);
  auto stage = consumer.acquire_consumer(full);
  EXPECT_EQ(stage.index(), 0u);
  stage.release();
}

TEST(Acquire, FromAFailedTryWaitWaitsForTheProducer) {
  Ring<2> ring;
  auto producer = ring.pipeline();
  auto consumer = ring.pipeline();
  const linpipe::WaitStatus token = consumer.try_wait_consumer();
  EXPECT_FALSE(token.ready);
  std::thread filler([&] { fill(ring, producer, 7, 1); });
  auto stage = consumer.acquire_consumer(token);  // waits: the poll said not ready
  EXPECT_EQ(ring.payload[stage.index()], 7);
  stage.release();
  filler.join();
}

TEST(BoundedWaits, ReportNotReadyWhenTheBudgetRunsOutAndReadyOtherwise) {
  Ring<2> ring;
  auto producer = ring.pipeline();
  auto consumer = ring.pipeline();
  constexpr std::uint64_t ms = 1'000'000;
  EXPECT_FALSE(consumer.wait_consumer_for(5 * ms)) << "nothing produced";
  EXPECT_EQ(consumer.consumer_stage(), 0u) << "a failed wait changes nothing";
  fill(ring, producer, 0, 2);
  EXPECT_FALSE(producer.wait_producer_for(5 * ms)) << "ring full";
  EXPECT_TRUE(consumer.wait_consumer_for(5 * ms));
  auto stage = consumer.acquire_consumer(linpipe::WaitStatus{true});
  EXPECT_FALSE(producer.drain_for(5 * ms)) << "a consumer still holds slot 0";
  stage.release();
  consumer.consumer_signal_and_step();  // slot 1 through the raw cursor API
  EXPECT_TRUE(producer.drain_for(5 * ms)) << "both slots released; the failed drain moved nothing";
}

// Ping-pong consumers: each takes every other stage, starting one apart.
TEST(Positions, PingPongConsumersStartApartAndStepOverTheOther) {
  Ring<4> ring;
  auto producer = ring.pipeline();
  fill(ring, producer, 100, 4);
  auto even = ring.pipeline();
  auto odd = ring.pipeline();
  odd.start_consumer_at(1, 0);
  for (int i = 0; i < 2; ++i) {
    auto a = even.acquire_consumer();
    auto b = odd.acquire_consumer();
    EXPECT_EQ(ring.payload[a.index()], 100 + 2 * i);
    EXPECT_EQ(ring.payload[b.index()], 101 + 2 * i);
    a.release();
    b.release();
    even.consumer_step(1);  // over the other consumer's stage
    odd.consumer_step(1);
  }
  EXPECT_EQ(even.consumer_stage(), 0u);
  EXPECT_EQ(even.consumer_lap(), 1u);
  EXPECT_EQ(odd.consumer_stage(), 1u);
  EXPECT_EQ(odd.consumer_lap(), 1u);
  auto far = ring.pipeline();
  far.start_consumer_at(6, 3);  // a stage past the ring's end wraps into the lap
  EXPECT_EQ(far.consumer_stage(), 2u);
  EXPECT_EQ(far.consumer_lap(), 4u);
  far.consumer_step(9);
  EXPECT_EQ(far.consumer_stage(), 3u);
  EXPECT_EQ(far.consumer_lap(), 6u);
}

// A pipeline object is one role's cursor: it cannot be duplicated by accident.
static_assert(!std::is_copy_constructible_v<Ring<2>::Pipeline>);
static_assert(!std::is_copy_assignable_v<Ring<2>::Pipeline>);
static_assert(!std::is_move_constructible_v<Ring<2>::Pipeline>);

// Debug builds: acquiring a slot the role still holds is a certain deadlock, reported at once.
TEST(LiveStagesBackstop, OverAcquiringConsumerReportsInsteadOfHanging) {
  if (!linpipe::debug_checks) GTEST_SKIP() << "built without debug checks (NDEBUG)";
  EXPECT_DEATH(
      {
        Ring<2> ring;
        auto producer = ring.pipeline();
        auto consumer = ring.pipeline();
        fill(ring, producer, 0, 2);
        auto a = consumer.acquire_consumer();
        auto b = consumer.acquire_consumer();
        auto c = consumer.acquire_consumer();  // slot 0 again, lap 1: `a` still holds it
        c.release();
        b.release();
        a.release();
      },
      "acquired a slot this role still holds .*: pipeline 'live' .* stage 0 lap 1 role consumer: "
      "release the oldest live stage");
}

TEST(LiveStagesBackstop, OverAcquiringProducerReportsInsteadOfHanging) {
  if (!linpipe::debug_checks) GTEST_SKIP() << "built without debug checks (NDEBUG)";
  EXPECT_DEATH(
      {
        Ring<1> ring;
        auto producer = ring.pipeline();
        auto held = producer.acquire_producer();
        auto again = producer.acquire_producer();  // the ring's only slot, still held
        again.release();
        held.release();
      },
      "acquired a slot this role still holds .*: pipeline 'live' .* stage 0 lap 2 role producer");
}

using OneDeepLag = linpipe::StageLag<Ring<2>::ConsumerStage, 1>;

TEST(LiveStagesBackstop, UnflushedLagTripsTheHeldStagesBackstop) {
  if (!linpipe::debug_checks) GTEST_SKIP() << "built without debug checks (NDEBUG)";
  EXPECT_DEATH(
      {
        Ring<2> ring;
        auto producer = ring.pipeline();
        auto consumer = ring.pipeline();
        fill(ring, producer, 0, 1);
        auto* lag = new OneDeepLag;  // NOLINT(linpipe-linear-stage)
        lag->push(consumer.acquire_consumer());
        delete lag;  // never flushed
      },
      "stage destroyed without being released: pipeline 'live' .* stage 0 lap 0 role consumer");
}

}  // namespace
