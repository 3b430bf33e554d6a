// linpipe:work_schedule — the sequence of work items a CTA walks, the same for every role.
//
// A warp-specialised kernel walks its tiles twice: the producer loads them, each consumer
// computes them. If the two walks ever differ, the pipeline hangs or a consumer computes the
// wrong tile. A WorkSchedule is one value both walks read: `for (WorkItem item :
// schedule.items())` yields the same items in the same order to every thread of a CTA, each
// with its tile coordinates, its first element and its extent (short on a ragged last tile),
// so the byte count a producer expects and the elements a consumer stores come from one place.
//
// The items are the tiles of a TileSpace (up to three dimensions, x fastest). The Order maps a
// position in the walk to a tile (linear, grouped for L2 reuse, longest first); the Walk hands
// positions to CTAs (strided, or a snake whose rounds alternate direction). A grid with one CTA
// per item is a one-shot launch; fewer CTAs make it persistent. Nothing here reads the clock or
// global state, so the sequence is a pure function of (schedule, CTA, grid size): host tests
// check it exactly.
module;
#include "linpipe_macros.h"
#include <cstdint>
export module linpipe:work_schedule;

export namespace linpipe {

// Three element counts or tile sizes, x fastest.
struct Extent3 {
  std::uint64_t x = 1, y = 1, z = 1;
};

// A space of `elements` cut into tiles of `tile` elements per dimension; the last tile of a
// dimension is short when the tile does not divide it.
struct TileSpace {
  Extent3 elements;
  Extent3 tile;

  LINPIPE_HOST_DEVICE constexpr std::uint64_t tiles_x() const { return ceil_div(elements.x, tile.x); }
  LINPIPE_HOST_DEVICE constexpr std::uint64_t tiles_y() const { return ceil_div(elements.y, tile.y); }
  LINPIPE_HOST_DEVICE constexpr std::uint64_t tiles_z() const { return ceil_div(elements.z, tile.z); }
  LINPIPE_HOST_DEVICE constexpr std::uint64_t count() const { return tiles_x() * tiles_y() * tiles_z(); }

 private:
  LINPIPE_HOST_DEVICE static constexpr std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
    return b == 0 ? 0 : (a + b - 1) / b;
  }
};

// Tiles per dimension (32-bit: the per-item arithmetic stays cheap on the GPU).
struct TileCounts {
  std::uint32_t x = 1, y = 1, z = 1;
  LINPIPE_HOST_DEVICE constexpr std::uint32_t per_plane() const { return x * y; }
  LINPIPE_HOST_DEVICE constexpr std::uint32_t total() const { return x * y * z; }
};

// One tile of the walk: which tile, where it starts and how many elements it covers.
struct WorkItem {
  std::uint32_t position;      // its place in the schedule's order (0..count-1)
  std::uint32_t tile_x, tile_y, tile_z;
  Extent3 origin;              // first element covered in each dimension
  Extent3 extent;              // elements covered (tile size, or less on a ragged last tile)

  LINPIPE_HOST_DEVICE constexpr std::uint64_t elements() const {
    return extent.x * extent.y * extent.z;
  }
  // Bytes of this tile when each element is a T: a producer's expect-tx count for a tile
  // copied whole (and contiguously).
  template <class T>
  LINPIPE_HOST_DEVICE constexpr std::uint32_t bytes() const {
    return static_cast<std::uint32_t>(elements() * sizeof(T));
  }
  // Whether this tile is shorter than a full tile in some dimension.
  LINPIPE_HOST_DEVICE constexpr bool ragged(const TileSpace& space) const {
    return extent.x != space.tile.x || extent.y != space.tile.y || extent.z != space.tile.z;
  }
};

// Orders: which tile the walk visits at each position. Each has `tile_at(space, position) ->
// (x, y, z)`; the schedule holds its order as a value, so an order may carry run-time
// parameters (GroupedRowsOrder) and an empty one costs nothing.

// x fastest, then y, then z (a row of tiles at a time).
struct LinearOrder {
  LINPIPE_HOST_DEVICE static constexpr void tile_at(const TileCounts& t, std::uint32_t p,
                                                    std::uint32_t& x, std::uint32_t& y,
                                                    std::uint32_t& z) {
    x = p % t.x;
    y = p / t.x % t.y;
    z = p / t.per_plane();
  }
};

namespace detail {
// Bands of `group` rows of tiles, each walked column by column (see GroupedOrder).
LINPIPE_HOST_DEVICE constexpr void grouped_tile_at(const TileCounts& t, std::uint32_t group,
                                                   std::uint32_t p, std::uint32_t& x,
                                                   std::uint32_t& y, std::uint32_t& z) {
  z = p / t.per_plane();
  const std::uint32_t in_plane = p % t.per_plane();
  const std::uint32_t band_tiles = group * t.x;
  const std::uint32_t first_row = in_plane / band_tiles * group;
  const std::uint32_t rows = t.y - first_row < group ? t.y - first_row : group;
  const std::uint32_t in_band = in_plane % band_tiles;
  y = first_row + in_band % rows;
  x = in_band / rows;
}
}  // namespace detail

// Bands of GroupRows rows of tiles (along y), each walked column by column (y fastest inside
// the band): CTAs running at the same time share the band's y tiles and few x tiles, so both
// operands of a GEMM-like kernel stay in L2 (CUTLASS's raster swizzle).
template <std::uint32_t GroupRows>
struct GroupedOrder {
  static_assert(GroupRows >= 1, "linpipe::GroupedOrder<GroupRows>: GroupRows must be >= 1");
  LINPIPE_HOST_DEVICE static constexpr void tile_at(const TileCounts& t, std::uint32_t p,
                                                    std::uint32_t& x, std::uint32_t& y,
                                                    std::uint32_t& z) {
    detail::grouped_tile_at(t, GroupRows, p, x, y, z);
  }
};

// GroupedOrder with the band height chosen at run time (a kernel tuned per problem shape):
// `WorkSchedule<GroupedRowsOrder>(space, GroupedRowsOrder{rows})`. Rows below 1 count as 1.
struct GroupedRowsOrder {
  std::uint32_t rows = 1;
  LINPIPE_HOST_DEVICE constexpr void tile_at(const TileCounts& t, std::uint32_t p,
                                             std::uint32_t& x, std::uint32_t& y,
                                             std::uint32_t& z) const {
    detail::grouped_tile_at(t, rows > 0 ? rows : 1, p, x, y, z);
  }
};

// The tiles of the largest x first (for work that grows with x, such as a causal attention's
// query blocks): the longest tiles start first and the short ones fill the gaps at the end of
// a walk. The rows (y of each plane z, planes after one another) are taken in bands of
// `rows_per_band`, one band after the other, each longest first across its rows (every row's
// last x, then every row's second last, ...). One band of every row (0, the default) evens out
// a persistent walk's CTAs best; a band of one row (row y, largest x first, then the next row)
// keeps the fewest rows in flight, where the hardware evens out a one-shot grid itself; a band
// of a few rows keeps in flight only the rows whose operands fit in L2 (a persistent causal
// attention's heads) while each band still ends with its shortest tiles.
struct LongestFirstOrder {
  std::uint32_t rows_per_band = 0;
  LINPIPE_HOST_DEVICE constexpr void tile_at(const TileCounts& t, std::uint32_t p,
                                             std::uint32_t& x, std::uint32_t& y,
                                             std::uint32_t& z) const {
    const std::uint32_t rows = t.y * t.z;
    const std::uint32_t band = rows_per_band == 0 || rows_per_band > rows ? rows : rows_per_band;
    const std::uint32_t per_band = t.x * band;
    const std::uint32_t first_row = p / per_band * band;
    // The last band may be shorter.
    const std::uint32_t band_rows = rows - first_row < band ? rows - first_row : band;
    const std::uint32_t in_band = p - first_row * t.x;
    const std::uint32_t row = first_row + in_band % band_rows;
    x = t.x - 1 - in_band / band_rows;
    y = row % t.y;
    z = row / t.y;
  }
};

// Walks: which positions CTA `cta` of `ctas` takes. Round r covers positions [r*ctas, (r+1)*ctas).

// CTA c takes c, c + ctas, c + 2*ctas, ...
struct StridedWalk {
  LINPIPE_HOST_DEVICE static constexpr std::uint32_t position(std::uint32_t round, std::uint32_t cta,
                                                              std::uint32_t ctas) {
    return round * ctas + cta;
  }
};

// As StridedWalk, but odd rounds run backwards: with LongestFirstOrder the CTA that took the
// longest tile of one round takes the shortest of the next, which evens out the CTAs' totals.
struct SnakeWalk {
  LINPIPE_HOST_DEVICE static constexpr std::uint32_t position(std::uint32_t round, std::uint32_t cta,
                                                              std::uint32_t ctas) {
    return round * ctas + (round % 2 == 0 ? cta : ctas - 1 - cta);
  }
};

template <class Order = LinearOrder, class Walk = StridedWalk>
class WorkSchedule {
 public:
  class Iterator;
  class Items;

  // A space of more than 2^31 - 1 tiles is cut short to none (count() == 0): check
  // fits(space) on the host first, or use bigger tiles.
  LINPIPE_HOST_DEVICE constexpr explicit WorkSchedule(TileSpace space, Order order = Order{})
      : order_(order),
        space_(space),
        tiles_(fits(space) ? TileCounts{static_cast<std::uint32_t>(space.tiles_x()),
                                        static_cast<std::uint32_t>(space.tiles_y()),
                                        static_cast<std::uint32_t>(space.tiles_z())}
                           : TileCounts{0, 0, 0}) {}

  // Whether the space's tiles can be walked with 32-bit positions: at most 2^31 - 1 tiles, so
  // a walk's last position (under count + CTAs, and a grid holds under 2^31 CTAs) cannot wrap.
  LINPIPE_HOST_DEVICE static constexpr bool fits(const TileSpace& space) {
    return space.count() <= 0x7fffffffull;
  }

  LINPIPE_HOST_DEVICE constexpr const TileSpace& space() const { return space_; }
  LINPIPE_HOST_DEVICE constexpr const TileCounts& tiles() const { return tiles_; }
  // Work items in the whole schedule: the grid of a one-shot launch.
  LINPIPE_HOST_DEVICE constexpr std::uint32_t count() const { return tiles_.total(); }

  // The item at `position` of the order.
  LINPIPE_HOST_DEVICE constexpr WorkItem item(std::uint32_t position) const {
    WorkItem w{};
    w.position = position;
    order_.tile_at(tiles_, position, w.tile_x, w.tile_y, w.tile_z);
    w.origin = {w.tile_x * space_.tile.x, w.tile_y * space_.tile.y, w.tile_z * space_.tile.z};
    w.extent = {clip(space_.elements.x, w.origin.x, space_.tile.x),
                clip(space_.elements.y, w.origin.y, space_.tile.y),
                clip(space_.elements.z, w.origin.z, space_.tile.z)};
    return w;
  }

  // The items CTA `cta` of a grid of `ctas` CTAs takes, in order.
  LINPIPE_HOST_DEVICE constexpr Items items(std::uint32_t cta, std::uint32_t ctas) const {
    return Items(*this, cta, ctas);
  }
#if defined(__CUDA__)
  // The calling CTA's items (blockIdx.x of gridDim.x): every role of the CTA reads this one
  // sequence, so producer and consumers cannot disagree on it.
  LINPIPE_DEVICE Items items() const {
    return Items(*this, __nvvm_read_ptx_sreg_ctaid_x(), __nvvm_read_ptx_sreg_nctaid_x());
  }
#endif

  class Iterator {
   public:
    LINPIPE_HOST_DEVICE constexpr WorkItem operator*() const { return schedule_->item(position_); }
    LINPIPE_HOST_DEVICE constexpr Iterator& operator++() {
      position_ = Walk::position(++round_, cta_, ctas_);
      return *this;
    }
    // Positions only grow from round to round, so the walk ends at the first one past the end.
    LINPIPE_HOST_DEVICE constexpr bool operator!=(const Iterator&) const {
      return position_ < schedule_->count();
    }

   private:
    friend Items;
    LINPIPE_HOST_DEVICE constexpr Iterator(const WorkSchedule* schedule, std::uint32_t cta,
                                           std::uint32_t ctas)
        : schedule_(schedule), cta_(cta), ctas_(ctas), position_(Walk::position(0, cta, ctas)) {}
    const WorkSchedule* schedule_;
    std::uint32_t cta_, ctas_;
    std::uint32_t round_ = 0;
    std::uint32_t position_;
  };

  class Items {
   public:
    LINPIPE_HOST_DEVICE constexpr Iterator begin() const { return Iterator(&schedule_, cta_, ctas_); }
    LINPIPE_HOST_DEVICE constexpr Iterator end() const { return Iterator(&schedule_, cta_, ctas_); }
    // How many items this CTA takes.
    LINPIPE_HOST_DEVICE constexpr std::uint32_t size() const {
      std::uint32_t n = 0;
      for (Iterator it = begin(); it != end(); ++it) ++n;
      return n;
    }

   private:
    friend WorkSchedule;
    LINPIPE_HOST_DEVICE constexpr Items(const WorkSchedule& schedule, std::uint32_t cta,
                                        std::uint32_t ctas)
        : schedule_(schedule), cta_(cta), ctas_(ctas) {}
    WorkSchedule schedule_;  // a copy, so a temporary schedule's items() is safe to walk
    std::uint32_t cta_, ctas_;
  };

 private:
  LINPIPE_HOST_DEVICE static constexpr std::uint64_t clip(std::uint64_t total, std::uint64_t origin,
                                                          std::uint64_t tile) {
    return total - origin < tile ? total - origin : tile;
  }

  [[no_unique_address]] Order order_;
  TileSpace space_;
  TileCounts tiles_;
};

}  // namespace linpipe
