// Work schedules: every role of a CTA reads one sequence, every tile is visited exactly once
// across the grid, ragged last tiles carry their true extent, and each order and walk keeps
// the promise its comment makes.
import linpipe;

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <vector>

namespace {

using linpipe::Extent3;
using linpipe::TileSpace;
using linpipe::WorkItem;

template <class Schedule>
std::vector<WorkItem> walk(const Schedule& schedule, std::uint32_t cta, std::uint32_t ctas) {
  std::vector<WorkItem> items;
  for (WorkItem item : schedule.items(cta, ctas)) items.push_back(item);
  return items;
}

// Each tile of the space exactly once over all CTAs, with extents that tile the elements.
template <class Schedule>
void expect_exact_cover(const Schedule& schedule, std::uint32_t ctas) {
  const TileSpace& space = schedule.space();
  std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> seen;
  std::uint64_t elements = 0;
  for (std::uint32_t cta = 0; cta < ctas; ++cta) {
    for (const WorkItem& item : walk(schedule, cta, ctas)) {
      EXPECT_TRUE(seen.insert({item.tile_x, item.tile_y, item.tile_z}).second)
          << "tile (" << item.tile_x << "," << item.tile_y << "," << item.tile_z << ") twice";
      EXPECT_EQ(item.origin.x, item.tile_x * space.tile.x);
      EXPECT_EQ(item.origin.y, item.tile_y * space.tile.y);
      EXPECT_LE(item.origin.x + item.extent.x, space.elements.x);
      EXPECT_LE(item.origin.y + item.extent.y, space.elements.y);
      EXPECT_LE(item.origin.z + item.extent.z, space.elements.z);
      elements += item.elements();
    }
  }
  EXPECT_EQ(seen.size(), schedule.count());
  EXPECT_EQ(elements, space.elements.x * space.elements.y * space.elements.z);
}

TEST(WorkSchedule, RowsInTilesOfEightWithARaggedLastTile) {
  // 1003 rows of 4096 bf16 in tiles of 8 rows: 125 full tiles, then one of 3 rows.
  const linpipe::WorkSchedule<> schedule(TileSpace{{4096, 1003, 1}, {4096, 8, 1}});
  ASSERT_EQ(schedule.count(), 126u);
  const WorkItem last = schedule.item(125);
  EXPECT_EQ(last.origin.y, 1000u);
  EXPECT_EQ(last.extent.y, 3u);
  EXPECT_EQ(last.bytes<std::uint16_t>(), 3u * 4096 * 2);
  EXPECT_TRUE(last.ragged(schedule.space()));
  EXPECT_FALSE(schedule.item(0).ragged(schedule.space()));
  EXPECT_EQ(schedule.item(0).bytes<std::uint16_t>(), 8u * 4096 * 2);
  expect_exact_cover(schedule, 1);
  expect_exact_cover(schedule, 7);
  expect_exact_cover(schedule, 132);
  expect_exact_cover(schedule, 500);  // more CTAs than tiles: the extras get nothing
  EXPECT_EQ(schedule.items(200, 500).size(), 0u);
}

TEST(WorkSchedule, OneShotGridGivesEachCtaItsOwnTile) {
  const linpipe::WorkSchedule<> schedule(TileSpace{{100, 30, 2}, {32, 8, 1}});
  const std::uint32_t ctas = schedule.count();  // 4 x 4 x 2
  ASSERT_EQ(ctas, 32u);
  for (std::uint32_t cta = 0; cta < ctas; ++cta) {
    const std::vector<WorkItem> mine = walk(schedule, cta, ctas);
    ASSERT_EQ(mine.size(), 1u);
    EXPECT_EQ(mine[0].position, cta);
  }
  EXPECT_EQ(schedule.item(3).extent.x, 4u);  // 100 = 3 x 32 + 4
  EXPECT_EQ(schedule.item(12).extent.y, 6u);  // 30 = 3 x 8 + 6
}

TEST(WorkSchedule, StridedWalkTakesEveryCtasthPosition) {
  const linpipe::WorkSchedule<> schedule(TileSpace{{64, 64, 1}, {8, 8, 1}});
  const std::vector<WorkItem> mine = walk(schedule, 3, 10);
  ASSERT_EQ(mine.size(), 7u);  // 3, 13, ..., 63
  for (std::size_t i = 0; i < mine.size(); ++i) EXPECT_EQ(mine[i].position, 3 + 10 * i);
}

TEST(WorkSchedule, SnakeWalkRunsOddRoundsBackwards) {
  using Snake = linpipe::WorkSchedule<linpipe::LinearOrder, linpipe::SnakeWalk>;
  const Snake schedule(TileSpace{{40, 1, 1}, {1, 1, 1}});
  const std::vector<WorkItem> first = walk(schedule, 0, 8);
  ASSERT_EQ(first.size(), 5u);
  EXPECT_EQ(first[0].position, 0u);
  EXPECT_EQ(first[1].position, 15u);  // round 1 backwards: CTA 0 takes its last position
  EXPECT_EQ(first[2].position, 16u);
  expect_exact_cover(schedule, 8);
  expect_exact_cover(schedule, 13);  // a last round that only some CTAs reach
}

TEST(WorkSchedule, LongestFirstVisitsTheLargestXFirst) {
  using Causal = linpipe::WorkSchedule<linpipe::LongestFirstOrder, linpipe::SnakeWalk>;
  // 16 query blocks (x) for 6 heads (y) and 2 batches (z).
  const Causal schedule(TileSpace{{16 * 128, 6, 2}, {128, 1, 1}});
  std::uint32_t previous_x = 15;
  for (std::uint32_t p = 0; p < schedule.count(); ++p) {
    const WorkItem item = schedule.item(p);
    EXPECT_LE(item.tile_x, previous_x) << "position " << p;
    previous_x = item.tile_x;
  }
  EXPECT_EQ(schedule.item(0).tile_x, 15u);
  EXPECT_EQ(schedule.item(schedule.count() - 1).tile_x, 0u);
  expect_exact_cover(schedule, 132);

  // Work grows with x: with 8 CTAs, the snake keeps each CTA's total within one tile's work
  // of the mean (a plain stride would give CTA 0 the longest tile of every round).
  const Causal small(TileSpace{{16 * 128, 4, 1}, {128, 1, 1}});
  std::vector<std::uint64_t> totals;
  for (std::uint32_t cta = 0; cta < 8; ++cta) {
    std::uint64_t total = 0;
    for (const WorkItem& item : walk(small, cta, 8)) total += item.tile_x + 1;
    totals.push_back(total);
  }
  const auto [low, high] = std::minmax_element(totals.begin(), totals.end());
  EXPECT_LE(*high - *low, 16u);
}

TEST(WorkSchedule, LongestFirstRowByRowFinishesARowBeforeTheNext) {
  using Causal = linpipe::WorkSchedule<linpipe::LongestFirstOrder, linpipe::SnakeWalk>;
  // 5 query blocks (x, the last one ragged) for 3 heads (y) and 2 batches (z).
  const Causal schedule(TileSpace{{4 * 128 + 7, 3, 2}, {128, 1, 1}},
                        linpipe::LongestFirstOrder{.rows_per_band = 1});
  ASSERT_EQ(schedule.count(), 30u);
  for (std::uint32_t p = 0; p < schedule.count(); ++p) {
    const WorkItem item = schedule.item(p);
    const std::uint32_t row = p / 5;  // head y of batch z, all five blocks in turn
    EXPECT_EQ(item.tile_x, 4 - p % 5) << "position " << p;
    EXPECT_EQ(item.tile_y, row % 3) << "position " << p;
    EXPECT_EQ(item.tile_z, row / 3) << "position " << p;
  }
  EXPECT_EQ(schedule.item(0).extent.x, 7u) << "the first item is the ragged last block";
  expect_exact_cover(schedule, 4);
  expect_exact_cover(schedule, 132);
}

// Bands of rows: 7 rows (heads) in bands of 3, 3 and 1, each walked longest first across its rows before the next
// band starts; one band of every row (0) is the order across the whole space.
TEST(WorkSchedule, LongestFirstBandsFinishTheirRowsBeforeTheNextBand) {
  using Causal = linpipe::WorkSchedule<linpipe::LongestFirstOrder, linpipe::SnakeWalk>;
  const TileSpace space{{5 * 128, 7, 1}, {128, 1, 1}};
  const Causal banded(space, linpipe::LongestFirstOrder{.rows_per_band = 3});
  ASSERT_EQ(banded.count(), 35u);
  for (std::uint32_t p = 0; p < banded.count(); ++p) {
    const WorkItem item = banded.item(p);
    const std::uint32_t band = p < 30 ? p / 15 : 2;  // 15 tiles a full band, 5 in the last
    const std::uint32_t band_rows = band < 2 ? 3 : 1;
    const std::uint32_t in_band = p - 15 * band;
    EXPECT_EQ(item.tile_y, 3 * band + in_band % band_rows) << "position " << p;
    EXPECT_EQ(item.tile_x, 4 - in_band / band_rows) << "position " << p;
  }
  expect_exact_cover(banded, 4);
  expect_exact_cover(banded, 132);
  // A band as large as the space (or larger) is the default order.
  const Causal all(space), wide(space, linpipe::LongestFirstOrder{.rows_per_band = 9});
  for (std::uint32_t p = 0; p < all.count(); ++p) {
    EXPECT_EQ(all.item(p).tile_x, wide.item(p).tile_x);
    EXPECT_EQ(all.item(p).tile_y, wide.item(p).tile_y);
  }
}

TEST(WorkSchedule, GroupedOrderKeepsRunningCtasInOneBandOfRows) {
  using Grouped = linpipe::WorkSchedule<linpipe::GroupedOrder<4>>;
  // 10 rows (y) x 12 columns (x) of GEMM tiles: bands of 4, 4 and 2 rows.
  const Grouped schedule(TileSpace{{12 * 128, 10 * 128, 1}, {128, 128, 1}});
  expect_exact_cover(schedule, 1);
  expect_exact_cover(schedule, 16);
  // The first 16 positions are 4 columns of the first band: 16 CTAs running together read 4
  // row tiles of A and 4 column tiles of B (in linear order, 2 rows and all 12 columns).
  std::set<std::uint32_t> rows, columns;
  for (std::uint32_t p = 0; p < 16; ++p) {
    rows.insert(schedule.item(p).tile_y);
    columns.insert(schedule.item(p).tile_x);
  }
  EXPECT_EQ(rows.size(), 4u);
  EXPECT_EQ(columns.size(), 4u);
  // The short last band is walked whole too.
  const WorkItem last = schedule.item(schedule.count() - 1);
  EXPECT_EQ(last.tile_y, 9u);
  EXPECT_EQ(last.tile_x, 11u);
}

// The band height chosen at run time walks exactly as the same height fixed at compile time,
// and the walks a CTA takes (items()) carry it: a different height gives a different walk.
TEST(WorkSchedule, GroupedRowsOrderWalksAsGroupedOrder) {
  const TileSpace space{{12 * 128, 10 * 128, 2}, {128, 128, 1}};
  const linpipe::WorkSchedule<linpipe::GroupedOrder<3>> fixed(space);
  using Runtime = linpipe::WorkSchedule<linpipe::GroupedRowsOrder>;
  const Runtime three(space, linpipe::GroupedRowsOrder{3});
  expect_exact_cover(three, 7);
  for (std::uint32_t p = 0; p < fixed.count(); ++p) {
    ASSERT_EQ(three.item(p).tile_x, fixed.item(p).tile_x) << "position " << p;
    ASSERT_EQ(three.item(p).tile_y, fixed.item(p).tile_y) << "position " << p;
    ASSERT_EQ(three.item(p).tile_z, fixed.item(p).tile_z) << "position " << p;
  }
  const auto fixed_walk = walk(fixed, 2, 7), runtime_walk = walk(three, 2, 7);
  ASSERT_EQ(runtime_walk.size(), fixed_walk.size());
  for (std::size_t i = 0; i < fixed_walk.size(); ++i) {
    EXPECT_EQ(runtime_walk[i].tile_y, fixed_walk[i].tile_y);
  }
  const Runtime five(space, linpipe::GroupedRowsOrder{5});
  EXPECT_NE(five.item(3).tile_y, three.item(3).tile_y);  // rows 0-4 in a band, not 0-2
  // A height of 0 is taken as 1 (linear down the columns), not a division by zero.
  const Runtime zero(space, linpipe::GroupedRowsOrder{0});
  expect_exact_cover(zero, 3);
  EXPECT_EQ(zero.item(1).tile_x, 1u);
}

TEST(WorkSchedule, EveryRoleReadsTheSameSequence) {
  // A producer and two consumers of one CTA each build their walk from the same schedule
  // value; the sequences are identical by construction, and this is what the kernels rely on.
  using Schedule = linpipe::WorkSchedule<linpipe::GroupedOrder<2>, linpipe::SnakeWalk>;
  const Schedule schedule(TileSpace{{1000, 77, 3}, {64, 8, 1}});
  const auto producer = walk(schedule, 5, 17);
  for (int consumer = 0; consumer < 2; ++consumer) {
    const auto mine = walk(schedule, 5, 17);
    ASSERT_EQ(mine.size(), producer.size());
    for (std::size_t i = 0; i < mine.size(); ++i) {
      EXPECT_EQ(mine[i].position, producer[i].position);
      EXPECT_EQ(mine[i].extent.x, producer[i].extent.x);
    }
  }
}

TEST(WorkSchedule, SpacesTooLargeToNumberAreRefused) {
  const TileSpace huge{{1ull << 40, 1ull << 10, 1}, {1, 1, 1}};
  EXPECT_FALSE(linpipe::WorkSchedule<>::fits(huge));
  EXPECT_EQ(linpipe::WorkSchedule<>(huge).count(), 0u);
  EXPECT_EQ(linpipe::WorkSchedule<>(huge).items(0, 1).size(), 0u);
  EXPECT_TRUE(linpipe::WorkSchedule<>::fits(TileSpace{{1ull << 40, 1, 1}, {1u << 20, 1, 1}}));
  // 2^31 tiles: a walk's positions could pass 2^32 and wrap, so it is refused too.
  EXPECT_FALSE(linpipe::WorkSchedule<>::fits(TileSpace{{1ull << 31, 1, 1}, {1, 1, 1}}));
  EXPECT_TRUE(linpipe::WorkSchedule<>::fits(TileSpace{{(1ull << 31) - 1, 1, 1}, {1, 1, 1}}));
}

}  // namespace
