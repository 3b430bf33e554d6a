// The dynamic schedule on the host backend, CTAs played by threads (a leader and two followers
// each) claiming from one counter: every item is taken exactly once, each follower walks
// exactly its leader's sequence, the counter is back at zero after each launch (so a second
// launch on it covers everything again), and a slow CTA takes fewer items than a static
// stride would give it.
import linpipe;

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <set>
#include <thread>
#include <vector>

namespace {

using Schedule = linpipe::DynamicWorkSchedule<linpipe::LinearOrder, 2>;
constexpr std::uint32_t followers = 2;

struct Cta {
  Schedule::Shared shared;
  std::vector<std::uint32_t> led;                    // positions the leader walked
  std::vector<std::uint32_t> followed[followers];    // and each follower
};

// One launch of `ctas` CTAs; CTA 0's leader sleeps `slow` per item.
std::vector<std::unique_ptr<Cta>> launch(const Schedule& schedule, std::uint32_t ctas,
                                         std::chrono::milliseconds slow = {}) {
  std::vector<std::unique_ptr<Cta>> grid;
  for (std::uint32_t c = 0; c < ctas; ++c) {
    grid.push_back(std::make_unique<Cta>());
    Schedule::init(grid.back()->shared, followers);
  }
  std::vector<std::thread> threads;
  for (std::uint32_t c = 0; c < ctas; ++c) {
    Cta* cta = grid[c].get();
    threads.emplace_back([&schedule, cta, c, ctas, slow] {
      for (const linpipe::WorkItem item : schedule.lead(cta->shared, ctas)) {
        cta->led.push_back(item.position);
        if (c == 0) std::this_thread::sleep_for(slow);
      }
    });
    for (std::uint32_t f = 0; f < followers; ++f) {
      threads.emplace_back([&schedule, cta, f] {
        for (const linpipe::WorkItem item : schedule.follow(cta->shared)) cta->followed[f].push_back(item.position);
      });
    }
  }
  for (std::thread& t : threads) t.join();
  return grid;
}

void expect_each_item_once_and_followers_agree(const Schedule& schedule,
                                               const std::vector<std::unique_ptr<Cta>>& grid) {
  std::multiset<std::uint32_t> taken;
  for (const auto& cta : grid) {
    taken.insert(cta->led.begin(), cta->led.end());
    for (const auto& sequence : cta->followed) EXPECT_EQ(sequence, cta->led) << "a follower left its leader's walk";
  }
  ASSERT_EQ(taken.size(), schedule.count());
  std::uint32_t expected = 0;
  for (const std::uint32_t position : taken) EXPECT_EQ(position, expected++) << "an item taken twice or skipped";
}

TEST(DynamicWorkSchedule, EveryItemOnceFollowersWalkTheLeadersSequenceAndTheCounterResets) {
  linpipe::WorkCounter counter{};
  const Schedule schedule(linpipe::TileSpace{{1000, 7, 1}, {64, 1, 1}}, &counter);  // 16 x 7, ragged
  ASSERT_EQ(schedule.count(), 112u);
  for (int round = 0; round < 2; ++round) {
    const auto grid = launch(schedule, 5);
    expect_each_item_once_and_followers_agree(schedule, grid);
    EXPECT_EQ(counter.next, 0u) << "round " << round << ": the last CTA sets the counter back";
    EXPECT_EQ(counter.finished, 0u);
  }
}

TEST(DynamicWorkSchedule, ItemsCarryTheOrdersTilesAndRaggedExtents) {
  linpipe::WorkCounter counter{};
  const linpipe::TileSpace space{{100, 3, 1}, {32, 1, 1}};
  const Schedule schedule(space, &counter);
  const linpipe::WorkSchedule<> same_order(space);
  const auto grid = launch(schedule, 2);
  for (const auto& cta : grid) {
    for (const std::uint32_t position : cta->led) {
      const linpipe::WorkItem dynamic = schedule.item(position);
      const linpipe::WorkItem fixed = same_order.item(position);
      EXPECT_EQ(dynamic.tile_x, fixed.tile_x);
      EXPECT_EQ(dynamic.tile_y, fixed.tile_y);
      EXPECT_EQ(dynamic.extent.x, fixed.extent.x);
    }
  }
  EXPECT_EQ(schedule.item(3).extent.x, 4u) << "the ragged last tile of a row: 100 - 96";
}

TEST(DynamicWorkSchedule, SlowCtaTakesFewerItemsThanAStaticStride) {
  linpipe::WorkCounter counter{};
  const Schedule schedule(linpipe::TileSpace{{40, 1, 1}, {1, 1, 1}}, &counter);
  const auto grid = launch(schedule, 4, std::chrono::milliseconds(20));
  expect_each_item_once_and_followers_agree(schedule, grid);
  EXPECT_LT(grid[0]->led.size(), 10u) << "a static stride gives each of 4 CTAs 10 of 40 items";
}

TEST(DynamicWorkSchedule, EmptySpaceWalksNothing) {
  linpipe::WorkCounter counter{};
  const Schedule schedule(linpipe::TileSpace{{0, 1, 1}, {8, 1, 1}}, &counter);
  const auto grid = launch(schedule, 3);
  for (const auto& cta : grid) {
    EXPECT_TRUE(cta->led.empty());
    for (const auto& sequence : cta->followed) EXPECT_TRUE(sequence.empty());
  }
  EXPECT_EQ(counter.next, 0u);
}

}  // namespace
