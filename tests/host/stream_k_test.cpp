// Stream-K schedules: every k-step of every tile is computed exactly once across the grid, each
// shared tile has exactly one finisher that names exactly the CTAs holding its other k-steps
// (all of lower index), a CTA publishes at most one partial (its first item) and finishes at
// most one tile (the last of its split run), the runs are even, grids whose waves are already
// even are not split, and a grid finishes with any number of its CTAs resident at once.
import linpipe;

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <thread>
#include <tuple>
#include <vector>

namespace {

using linpipe::GroupedRowsOrder;
using linpipe::LinearOrder;
using linpipe::SplitItem;
using linpipe::StreamKPlan;
using linpipe::StreamKSchedule;
using linpipe::TileSpace;

// A GEMM-like space: tiles_x x tiles_y tiles of 1 x 1 elements.
TileSpace tiles_of(std::uint32_t tiles_x, std::uint32_t tiles_y) {
  return TileSpace{{tiles_x, tiles_y, 1}, {1, 1, 1}};
}

template <class Schedule>
std::vector<SplitItem> walk(const Schedule& schedule, std::uint32_t cta) {
  std::vector<SplitItem> items;
  for (const SplitItem item : schedule.items(cta)) items.push_back(item);
  return items;
}

// Where each tile's k-steps went: for every k-step, the CTA that computed it.
struct TileCover {
  std::vector<int> step_owner;
  int finisher = -1;
  std::uint32_t first_peer = 1, last_peer = 0;
  int whole_by = -1;
};

template <class Order>
void expect_exact_cover(const StreamKSchedule<Order>& schedule) {
  const StreamKPlan& plan = schedule.plan();
  std::map<std::uint32_t, TileCover> tiles;  // by position in the order
  std::uint64_t run_steps_min = ~0ull, run_steps_max = 0;
  for (std::uint32_t cta = 0; cta < plan.ctas; ++cta) {
    const std::vector<SplitItem> items = walk(schedule, cta);
    std::uint64_t split_steps = 0;
    bool in_split_run = true;
    for (std::size_t i = 0; i < items.size(); ++i) {
      const SplitItem& item = items[i];
      const std::uint32_t position = item.tile.position;
      ASSERT_LT(position, plan.tiles);
      ASSERT_EQ(item.k_steps, plan.k_steps);
      ASSERT_LT(item.k_begin, item.k_end) << "an empty item on CTA " << cta;
      ASSERT_LE(item.k_end, item.k_steps);
      TileCover& cover = tiles[position];
      if (cover.step_owner.empty()) cover.step_owner.assign(plan.k_steps, -1);
      for (std::uint32_t k = item.k_begin; k < item.k_end; ++k) {
        EXPECT_EQ(cover.step_owner[k], -1) << "tile " << position << " k-step " << k << " twice";
        cover.step_owner[k] = static_cast<int>(cta);
      }
      const bool split = position < plan.split_tiles;
      // The split run first, then whole tiles only.
      if (!split) in_split_run = false;
      EXPECT_TRUE(split || item.whole()) << "a whole-wave tile cut on CTA " << cta;
      EXPECT_TRUE(in_split_run || !split) << "a split item after a whole tile on CTA " << cta;
      if (split) split_steps += item.steps();
      if (item.publishes()) EXPECT_EQ(i, 0u) << "CTA " << cta << " publishes from a later item";
      if (item.finishes()) {
        EXPECT_EQ(cover.finisher, -1) << "tile " << position << " finished twice";
        cover.finisher = static_cast<int>(cta);
        cover.first_peer = item.first_peer;
        cover.last_peer = item.last_peer;
        // Its last split item: nothing of the split run after it.
        EXPECT_TRUE(i + 1 == items.size() || items[i + 1].tile.position >= plan.split_tiles)
            << "CTA " << cta << " finishes tile " << position << " before the end of its run";
      } else {
        EXPECT_GT(item.first_peer, item.last_peer) << "peers on an item that does not finish";
      }
      if (item.whole()) cover.whole_by = static_cast<int>(cta);
    }
    if (plan.split_tiles > 0) {
      run_steps_min = std::min(run_steps_min, split_steps);
      run_steps_max = std::max(run_steps_max, split_steps);
    }
  }
  ASSERT_EQ(tiles.size(), plan.tiles) << "some tile never visited";
  for (const auto& [position, cover] : tiles) {
    for (std::uint32_t k = 0; k < plan.k_steps; ++k)
      ASSERT_NE(cover.step_owner[k], -1) << "tile " << position << " k-step " << k << " never computed";
    if (cover.whole_by >= 0) {
      EXPECT_EQ(cover.finisher, -1);
      continue;
    }
    // A shared tile: finished by the owner of its last k-step, whose peers own every other
    // k-step (never itself: it would wait for its own slot, which it never publishes), all of
    // lower index (started before it).
    ASSERT_EQ(cover.finisher, cover.step_owner[plan.k_steps - 1]) << "tile " << position;
    ASSERT_LE(cover.first_peer, cover.last_peer) << "tile " << position << ": a finisher with no peers";
    EXPECT_LT(cover.last_peer, static_cast<std::uint32_t>(cover.finisher)) << "tile " << position;
    std::vector<bool> named(plan.ctas, false);
    for (std::uint32_t peer = cover.first_peer; peer <= cover.last_peer; ++peer) named[peer] = true;
    for (std::uint32_t k = 0; k < plan.k_steps; ++k) {
      const int owner = cover.step_owner[k];
      if (owner != cover.finisher) EXPECT_TRUE(named[owner]) << "tile " << position << ": CTA " << owner << " not a peer";
    }
    for (std::uint32_t peer = cover.first_peer; peer <= cover.last_peer; ++peer) {
      bool holds = false;
      for (int owner : cover.step_owner) holds = holds || owner == static_cast<int>(peer);
      EXPECT_TRUE(holds) << "tile " << position << " names CTA " << peer << ", which has none of it";
    }
  }
  if (plan.split_tiles > 0) EXPECT_LE(run_steps_max - run_steps_min, 1u) << "uneven runs";
}

TEST(StreamKPlan, SplitsTheLastPartialWaveAndOneWholeWave) {
  // 512 tiles on 132 CTAs: 3 whole waves and 116 tiles; the last 116 + 132 are split.
  const StreamKPlan plan = StreamKPlan::for_grid(512, 64, 132);
  EXPECT_EQ(plan.split_tiles, 116u + 132u);
  EXPECT_EQ(plan.whole_tiles(), 2u * 132u);
  EXPECT_EQ(plan.run_begin(132), plan.split_steps());
  // Each CTA's run is the same length to a k-step: (248 * 64) / 132 = 120.24.
  EXPECT_EQ(plan.run_begin(1) - plan.run_begin(0), 121u);
  EXPECT_EQ(plan.run_begin(132) - plan.run_begin(131), 120u);
}

TEST(StreamKPlan, SharesTheLastPartialWaveAloneWithNoWholeWave) {
  const StreamKPlan plan = StreamKPlan::for_grid(512, 64, 132, 0);
  EXPECT_EQ(plan.split_tiles, 116u);
  EXPECT_EQ(plan.whole_tiles(), 3u * 132u);
  // Runs of under one tile: (116 * 64) / 132 = 56.24 k-steps.
  EXPECT_EQ(plan.run_begin(1) - plan.run_begin(0), 57u);
  EXPECT_EQ(StreamKPlan::for_grid(512, 64, 132, 7).split_tiles, 116u + 132u);  // more count as 1
}

TEST(StreamKPlan, LeavesEvenWavesFewTilesAndSingleStepsWhole) {
  EXPECT_EQ(StreamKPlan::for_grid(264, 64, 132).split_tiles, 0u);  // two even waves
  EXPECT_EQ(StreamKPlan::for_grid(132, 64, 132).split_tiles, 0u);  // exactly one wave
  EXPECT_EQ(StreamKPlan::for_grid(500, 1, 132).split_tiles, 0u);   // one k-step a tile
  EXPECT_EQ(StreamKPlan::for_grid(500, 64, 0).split_tiles, 0u);    // no grid
  EXPECT_EQ(StreamKPlan::for_grid(133, 2, 132).split_tiles, 133u);
  EXPECT_EQ(StreamKPlan::for_grid(264, 64, 132, 0).split_tiles, 0u);
}

TEST(StreamKPlan, SharesEveryTileUnderOneWave) {
  // 64 tiles of 128 k-steps on 132 CTAs: runs of 62.06 k-steps, each tile on two or three CTAs.
  const StreamKPlan plan = StreamKPlan::for_grid(64, 128, 132);
  EXPECT_EQ(plan.split_tiles, 64u);
  EXPECT_EQ(plan.whole_tiles(), 0u);
  EXPECT_EQ(plan.run_begin(1) - plan.run_begin(0), 63u);
  EXPECT_EQ(StreamKPlan::for_grid(64, 128, 132, 0).split_tiles, 64u);
  EXPECT_EQ(StreamKPlan::for_grid(64, 1, 132).split_tiles, 0u);  // one k-step: nothing to share
}

TEST(StreamKPlan, CtaOfInvertsTheRuns) {
  for (const StreamKPlan plan : {StreamKPlan::for_grid(512, 64, 132), StreamKPlan::for_grid(133, 3, 132),
                                 StreamKPlan::for_grid(1000, 7, 17), StreamKPlan::for_grid(512, 64, 132, 0),
                                 StreamKPlan::for_grid(140, 64, 132, 0)}) {
    for (std::uint32_t cta = 0; cta < plan.ctas; ++cta) {
      for (std::uint64_t step = plan.run_begin(cta); step < plan.run_begin(cta + 1); ++step)
        ASSERT_EQ(plan.cta_of(step), cta) << "step " << step;
    }
  }
}

TEST(StreamKSchedule, CoversEveryKStepOnceWithOneFinisherPerSharedTile) {
  struct Case {
    std::uint32_t tiles_x, tiles_y, k_steps, ctas;
  };
  // The GEMM benchmark's shapes on 132 SMs (4096^3: 16 x 32 tiles of 64 k-steps), a remainder
  // of one tile, tiles of two or three k-steps (runs barely a tile long), runs that do not
  // divide the k-steps evenly, and small grids.
  for (const Case c : {Case{16, 32, 64, 132}, Case{32, 64, 128, 132}, Case{16, 64, 32, 132},
                       Case{7, 19, 2, 132}, Case{133, 1, 3, 132}, Case{10, 10, 7, 3}, Case{5, 5, 64, 7},
                       Case{9, 1, 5, 4}, Case{16, 16, 8, 132}, Case{10, 14, 64, 132},
                       Case{8, 8, 128, 132}, Case{4, 8, 256, 132}, Case{3, 1, 5, 132}, Case{2, 2, 3, 5}}) {
    SCOPED_TRACE(::testing::Message() << c.tiles_x << "x" << c.tiles_y << " tiles, " << c.k_steps
                                      << " k-steps, " << c.ctas << " CTAs");
    for (std::uint32_t shared_waves : {0u, 1u}) {
      SCOPED_TRACE(::testing::Message() << shared_waves << " whole waves shared");
      expect_exact_cover(
          StreamKSchedule<LinearOrder>(tiles_of(c.tiles_x, c.tiles_y), {}, c.k_steps, c.ctas, shared_waves));
      expect_exact_cover(StreamKSchedule<GroupedRowsOrder>(tiles_of(c.tiles_x, c.tiles_y), GroupedRowsOrder{8},
                                                           c.k_steps, c.ctas, shared_waves));
    }
  }
}

// KStepOrder::in_phase: each tile's k-steps are still computed once each (its pieces cover a
// rotation of 0..K-1), and every CTA's largest piece of a tile walks k-step (s mod K) at step s
// of its run, as the whole waves do.
TEST(StreamKSchedule, InPhaseRotatesEachTileAndKeepsItsLargestShareInStep) {
  using linpipe::KStepOrder;
  for (const std::uint32_t shared_waves : {0u, 1u}) {
    for (const auto [tiles_x, tiles_y, k_steps] : {std::tuple{16u, 32u, 64u}, std::tuple{8u, 8u, 128u},
                                                   std::tuple{7u, 19u, 5u}, std::tuple{4u, 8u, 256u}}) {
      SCOPED_TRACE(::testing::Message() << tiles_x << "x" << tiles_y << " tiles, " << k_steps << " k-steps, "
                                        << shared_waves << " whole waves shared");
      const StreamKSchedule<GroupedRowsOrder> schedule(tiles_of(tiles_x, tiles_y), GroupedRowsOrder{16}, k_steps,
                                                       132, shared_waves, KStepOrder::in_phase);
      const StreamKPlan& plan = schedule.plan();
      std::map<std::uint32_t, std::vector<int>> real_owner;  // tile -> CTA of each real k-step
      std::map<std::uint32_t, std::pair<std::uint32_t, bool>> largest;  // tile -> (steps, in step)
      std::uint64_t split_steps = 0, in_step = 0;
      for (std::uint32_t cta = 0; cta < 132; ++cta) {
        std::uint64_t step = 0;  // of this CTA's run
        for (const SplitItem item : schedule.items(cta)) {
          if (item.tile.position >= plan.split_tiles) {
            EXPECT_EQ(item.k_rotation, 0u) << "a whole-wave tile rotated";
            continue;
          }
          std::vector<int>& owner = real_owner[item.tile.position];
          if (owner.empty()) owner.assign(k_steps, -1);
          bool all_in_step = true;
          for (std::uint32_t j = item.k_begin; j < item.k_end; ++j, ++step) {
            const std::uint32_t k = item.k_step(j);
            ASSERT_LT(k, k_steps);
            EXPECT_EQ(owner[k], -1) << "tile " << item.tile.position << " k-step " << k << " twice";
            owner[k] = static_cast<int>(cta);
            all_in_step = all_in_step && k == step % k_steps;
            in_step += k == step % k_steps ? 1 : 0;
            ++split_steps;
          }
          auto& [steps, stepped] = largest[item.tile.position];
          if (item.steps() >= steps) {
            steps = item.steps();
            stepped = all_in_step;
          }
        }
      }
      for (const auto& [position, owner] : real_owner) {
        for (std::uint32_t k = 0; k < k_steps; ++k)
          ASSERT_NE(owner[k], -1) << "tile " << position << " k-step " << k << " never computed";
        EXPECT_TRUE(largest[position].second) << "tile " << position << ": its largest share is out of step";
      }
      // At least each tile's largest share in step: over half of every tile shared by two.
      std::uint64_t largest_steps = 0;
      for (const auto& [position, share] : largest) largest_steps += share.first;
      EXPECT_GE(in_step, largest_steps);
      EXPECT_GT(largest_steps, 0u);
      EXPECT_LE(in_step, split_steps);
    }
  }
}

TEST(StreamKSchedule, EvenWavesWalkAsTheWorkSchedule) {
  // 264 tiles on 132 CTAs: nothing split, each CTA's tiles those of the strided walk.
  const TileSpace space = tiles_of(24, 11);
  const StreamKSchedule<GroupedRowsOrder> split(space, GroupedRowsOrder{4}, 16, 132);
  const linpipe::WorkSchedule<GroupedRowsOrder> whole(space, GroupedRowsOrder{4});
  ASSERT_EQ(split.plan().split_tiles, 0u);
  for (std::uint32_t cta = 0; cta < 132; ++cta) {
    std::vector<std::uint32_t> expected, got;
    for (const linpipe::WorkItem item : whole.items(cta, 132)) expected.push_back(item.position);
    for (const SplitItem item : split.items(cta)) {
      EXPECT_TRUE(item.whole());
      got.push_back(item.tile.position);
    }
    EXPECT_EQ(got, expected) << "CTA " << cta;
  }
}

TEST(StreamKSchedule, CtasPastThePlansGridTakeNothing) {
  const StreamKSchedule<LinearOrder> schedule(tiles_of(20, 20), {}, 8, 132);
  EXPECT_TRUE(walk(schedule, 132).empty());
  EXPECT_TRUE(walk(schedule, 1000).empty());
}

TEST(StreamKSchedule, FinishersPeersStartTheirRunsOnTheTile) {
  // Why the finisher rarely waits: each peer's run starts with its share of the finisher's tile
  // (the peer's first item), while the finisher reaches the tile at the end of its run.
  const StreamKSchedule<LinearOrder> schedule(tiles_of(32, 16), {}, 64, 132);
  for (std::uint32_t cta = 0; cta < 132; ++cta) {
    for (const SplitItem item : schedule.items(cta)) {
      if (!item.finishes()) continue;
      for (std::uint32_t peer = item.first_peer; peer <= item.last_peer; ++peer) {
        const std::vector<SplitItem> peer_items = walk(schedule, peer);
        ASSERT_FALSE(peer_items.empty());
        EXPECT_EQ(peer_items.front().tile.position, item.tile.position) << "peer " << peer;
      }
    }
  }
}

// Plays a grid on `resident` SMs: CTAs start one at a time as an SM frees up (in index order,
// as the hardware starts a 1-D grid, or in reverse to show what the order is worth), each
// walks its items in order, a publishing item sets its CTA's flag and a finishing one waits
// until each peer's flag is set. Returns the CTAs left waiting when none can move (empty: the
// grid completes).
template <class Order>
std::vector<std::uint32_t> stuck_ctas(const StreamKSchedule<Order>& schedule, std::uint32_t resident,
                                      bool in_index_order = true) {
  const std::uint32_t ctas = schedule.plan().ctas;
  std::vector<std::vector<SplitItem>> items(ctas);
  for (std::uint32_t cta = 0; cta < ctas; ++cta) items[cta] = walk(schedule, cta);
  std::vector<std::size_t> next(ctas, 0);
  std::vector<bool> published(ctas, false);
  std::vector<std::uint32_t> running;
  std::uint32_t started = 0;
  for (;;) {
    while (running.size() < resident && started < ctas) {
      running.push_back(in_index_order ? started : ctas - 1 - started);
      ++started;
    }
    bool moved = false;
    for (auto it = running.begin(); it != running.end();) {
      const std::uint32_t cta = *it;
      while (next[cta] < items[cta].size()) {
        const SplitItem& item = items[cta][next[cta]];
        bool ready = true;
        if (item.finishes()) {
          for (std::uint32_t peer = item.first_peer; peer <= item.last_peer; ++peer) ready = ready && published[peer];
        }
        if (!ready) break;
        if (item.publishes()) published[cta] = true;
        ++next[cta];
        moved = true;
      }
      if (next[cta] == items[cta].size()) {
        it = running.erase(it);
        moved = true;
      } else {
        ++it;
      }
    }
    if (running.empty() && started == ctas) return {};
    if (!moved) return running;
  }
}

// A finisher waits only for CTAs that started before it, and they publish before they wait for
// anything: the grid completes with any number of SMs free (another stream's kernel holding
// the rest, or two stream-K launches side by side), not only when all of it is resident.
TEST(StreamKSchedule, CompletesWithAnyNumberOfCtasResident) {
  using linpipe::KStepOrder;
  struct Case {
    std::uint32_t tiles_x, tiles_y, k_steps, ctas;
  };
  for (const Case c : {Case{16, 32, 64, 132}, Case{8, 8, 128, 132}, Case{4, 8, 256, 132}, Case{3, 1, 5, 132},
                       Case{7, 19, 2, 132}, Case{10, 14, 64, 132}, Case{10, 10, 7, 3}, Case{2, 2, 3, 5}}) {
    for (const std::uint32_t shared_waves : {0u, 1u}) {
      for (const KStepOrder k_order : {KStepOrder::from_zero, KStepOrder::in_phase}) {
        const StreamKSchedule<GroupedRowsOrder> schedule(tiles_of(c.tiles_x, c.tiles_y), GroupedRowsOrder{8},
                                                         c.k_steps, c.ctas, shared_waves, k_order);
        for (const std::uint32_t resident : {1u, 2u, 5u, c.ctas / 2 + 1, c.ctas}) {
          EXPECT_TRUE(stuck_ctas(schedule, resident).empty())
              << c.tiles_x << "x" << c.tiles_y << " tiles, " << c.k_steps << " k-steps, " << c.ctas << " CTAs, "
              << shared_waves << " whole waves shared, " << resident << " resident";
        }
      }
    }
  }
}

// The order the CTAs start in is what the schedule relies on: started from the highest index,
// a finisher that takes the only SM waits for peers that cannot start (the simulation above
// can fail), while with every CTA resident the order does not matter.
TEST(StreamKSchedule, NeedsItsCtasStartedInIndexOrderWhenFewAreResident) {
  const StreamKSchedule<LinearOrder> schedule(tiles_of(8, 8), {}, 128, 132);  // every tile shared
  EXPECT_FALSE(stuck_ctas(schedule, 1, /*in_index_order=*/false).empty());
  EXPECT_TRUE(stuck_ctas(schedule, 132, /*in_index_order=*/false).empty());
}

// PartialFlags: a partial written before publish() is what the finisher reads after wait()
// returns, and the wait leaves the flag at zero for the next launch. Host threads play the CTAs.
TEST(PartialFlags, HandsEachPartialOverAndLeavesTheFlagsAtRest) {
  constexpr std::uint32_t slots = 8;
  std::vector<std::uint32_t> flags(slots, 0);
  std::vector<std::uint64_t> partials(slots, 0);
  const linpipe::PartialFlags board(flags.data());
  for (int launch = 0; launch < 50; ++launch) {
    std::vector<std::thread> publishers;
    for (std::uint32_t slot = 0; slot < slots; ++slot) {
      publishers.emplace_back([&, slot] {
        partials[slot] = 1000u * launch + slot;  // plain write, ordered by the publish
        board.publish(slot);
      });
    }
    std::uint64_t sum = 0;
    for (std::uint32_t slot = slots; slot-- > 0;) {  // the finisher's peer order, any order works
      board.wait(slot);
      sum += partials[slot];
    }
    for (std::thread& t : publishers) t.join();
    EXPECT_EQ(sum, 1000u * launch * slots + slots * (slots - 1) / 2) << "launch " << launch;
    for (std::uint32_t slot = 0; slot < slots; ++slot) {
      EXPECT_EQ(flags[slot], 0u) << "slot " << slot << " left set after launch " << launch;
      EXPECT_FALSE(board.published(slot));
    }
  }
}

TEST(PartialFlags, UnpublishedSlotReportsInsteadOfHanging) {
  if (!linpipe::debug_checks) GTEST_SKIP() << "built without debug checks (NDEBUG)";
  linpipe::host_wait_budget_ns = 50'000'000;  // 50 ms
  EXPECT_DEATH(
      {
        std::uint32_t flags[4] = {};
        linpipe::PartialFlags(flags, "gemm stream-K").wait(3);
      },
      "wait for a shared tile's partial sum exceeded its budget .*: partial flags 'gemm stream-K' "
      "\\(0x[0-9a-f]+\\) slot 3: run the grid the StreamKSchedule was made for");
  linpipe::host_wait_budget_ns = 10'000'000'000ull;
}

}  // namespace
