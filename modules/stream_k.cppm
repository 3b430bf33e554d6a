// linpipe:stream_k — a persistent schedule that evens out its last wave by sharing tiles' k-steps
// among CTAs (Stream-K).
//
// A persistent grid of P CTAs walking T tiles of equal cost runs ceil(T / P) waves; when P does
// not divide T, the last wave leaves SMs idle (T = 512 tiles on 132 SMs: 4 waves for 3.88 waves
// of work, 3% idle). A StreamKSchedule keeps the first waves whole (one CTA a tile, every k-step)
// and cuts the rest, the last partial wave and `shared_waves` whole waves before it (0 or 1,
// as many as there are), into k-steps dealt out in P equal runs: CTA c takes the c-th run of
// those k-steps in order, so a tile may be shared by two or more CTAs, each computing a partial
// sum over its own k-steps.
//
// The cost is locality: CTAs that share an operand block (a GEMM's A rows, B columns) no longer
// read its k-slices at the same time, each run starting at its own k-step, so all of the
// shared tiles' operands must stay in L2 for the split part to run at the whole waves' speed.
// Sharing one whole wave too evens out runs of at least one tile (fewer partials to add); the
// last wave alone keeps fewer tiles' operands in flight.
//
// Of a shared tile's CTAs, the one holding its last k-steps (k_end == K, the highest CTA index
// of them) finishes it: it adds the others' partials to its own and stores the tile. The others
// publish their partial for it. A CTA walks its run's tiles from the last back (each one's
// k-steps forward), so the one item that can stop short of a tile's end, the run's last, comes
// first and is published before the CTA could wait for anything (at most one partial a CTA:
// one workspace slot each); the one item that can start past a tile's first k-step, the run's
// first, comes last, after its other items: the tile it finishes (or, for a run inside one
// tile, its one partial, published).
//
// So a finisher waits only for CTAs of lower index, each publishing its first item without
// waiting first. Nothing needs the grid resident at once: where the hardware starts a 1-D
// grid's CTAs in index order, as it does, every CTA a finisher waits for has started and will
// publish, even with one SM free (two stream-K launches on two streams, or one beside another
// stream's persistent kernel, finish). CUDA's programming model does not promise that order;
// a kernel that must not rely on it can number its CTAs by an atomic ticket taken as each
// starts. Peers' runs start on the finisher's tile while the
// finisher reaches it at the end of its run, so with runs of a tile or more it rarely waits;
// shorter runs publish at their end, about when the finisher gets there.
//
// With fewer tiles than CTAs every tile is shared (runs of T / P tiles' k-steps, split-K in all
// but name); a run shorter than a tile leaves a tile with several peers, and a CTA with no
// k-steps at all (more CTAs than k-steps to share) has no items.
//
// Every role of a CTA reads the same items in the same order (as with WorkSchedule): the split
// items first, then the whole tiles. The sequence is a pure function of (tiles, k-steps, CTA,
// grid size), checked exactly by host tests.
//
//   const StreamKSchedule<GroupedRowsOrder> schedule(space, order, k_steps, gridDim.x);
//   for (const SplitItem item : schedule.items(blockIdx.x)) {
//     ... compute k-step item.k_step(j) of item.tile for j in [item.k_begin, item.k_end) ...
//     if (item.publishes()) ... write the partial to slot blockIdx.x, then publish it ...
//     else if (item.finishes()) ... for peer in [item.first_peer, item.last_peer]: wait, add ...
//     else ... the whole tile: store it ...
//   }
module;
#include "linpipe_macros.h"
#include <cstdint>
export module linpipe:stream_k;
import :work_schedule;

export namespace linpipe {

// In which order a split tile's k-steps are walked. from_zero: 0, 1, ... K - 1, cut into the
// CTAs' shares in that order. in_phase: rotated per tile so that the CTA with the largest share
// of it walks k-step (t mod K) at step t of its run, as the whole waves do: CTAs that read one
// operand block (a GEMM's A rows, B columns) read its k-slices at about the same time, so L2
// holds only the slices in flight instead of the blocks whole. The shares partition the
// rotated order, so every k-step is still computed once.
enum class KStepOrder : std::uint8_t { from_zero, in_phase };

// How a grid of `ctas` CTAs shares `tiles` tiles of `k_steps` k-steps each. The split tiles are
// the first positions of the order and every CTA walks its split run first: where the grid is
// resident at once its CTAs start on them together, so a finisher's peers have published
// about when it gets to its tile. The whole tiles follow, dealt out as WorkSchedule's
// StridedWalk deals them.
struct StreamKPlan {
  std::uint32_t tiles = 0;
  std::uint32_t k_steps = 0;
  std::uint32_t ctas = 0;
  std::uint32_t split_tiles = 0;  // positions 0..split_tiles-1 of the order are shared by k-steps
  KStepOrder order = KStepOrder::from_zero;

  // The plan for a grid: nothing split when the waves are already even (P divides T) or a tile
  // has a single k-step (nothing to share); every tile split when there is less than one wave
  // (T < P: split-K, each CTA a share of every tile's k-steps, where whole tiles would leave
  // P - T SMs idle); otherwise the last partial wave and `shared_waves` whole waves before it
  // (0 or 1; more count as 1).
  LINPIPE_HOST_DEVICE static constexpr StreamKPlan for_grid(std::uint32_t tiles, std::uint32_t k_steps,
                                                            std::uint32_t ctas, std::uint32_t shared_waves = 1,
                                                            KStepOrder order = KStepOrder::from_zero) {
    StreamKPlan plan{tiles, k_steps, ctas, 0, order};
    if (ctas == 0 || k_steps < 2 || tiles % ctas == 0) return plan;
    plan.split_tiles = tiles < ctas ? tiles : tiles % ctas + (shared_waves > 0 ? ctas : 0);
    return plan;
  }

  // The k-steps shared out, and the first of CTA `cta`'s run (cta == ctas: the end). Runs
  // differ by at most one k-step: the first `extra` CTAs take one more.
  LINPIPE_HOST_DEVICE constexpr std::uint64_t split_steps() const {
    return static_cast<std::uint64_t>(split_tiles) * k_steps;
  }
  LINPIPE_HOST_DEVICE constexpr std::uint64_t run_begin(std::uint32_t cta) const {
    if (ctas == 0) return 0;
    const std::uint64_t base = split_steps() / ctas, extra = split_steps() % ctas;
    return cta * base + (cta < extra ? cta : extra);
  }
  // The CTA whose run holds split k-step `step` (step < split_steps()).
  LINPIPE_HOST_DEVICE constexpr std::uint32_t cta_of(std::uint64_t step) const {
    const std::uint64_t base = split_steps() / ctas, extra = split_steps() % ctas;
    const std::uint64_t long_runs = extra * (base + 1);
    return static_cast<std::uint32_t>(step < long_runs ? step / (base + 1)
                                                         : extra + (step - long_runs) / base);
  }
  // Tiles walked whole, one CTA each (a whole number of waves).
  LINPIPE_HOST_DEVICE constexpr std::uint32_t whole_tiles() const { return tiles - split_tiles; }

  // How far split tile `position`'s k-steps are rotated: its k-step j is (j + rotation) mod K.
  // in_phase: the CTA with the largest share of the tile (the later one on a tie) starts its
  // run at k-step 0 of a K-step cycle.
  LINPIPE_HOST_DEVICE constexpr std::uint32_t k_rotation(std::uint32_t position) const {
    if (order == KStepOrder::from_zero || position >= split_tiles) return 0;
    const std::uint64_t begin = static_cast<std::uint64_t>(position) * k_steps, end = begin + k_steps;
    std::uint32_t owner = cta_of(begin);
    std::uint64_t largest = 0;
    for (std::uint32_t cta = owner, last = cta_of(end - 1); cta <= last; ++cta) {
      const std::uint64_t from = run_begin(cta) > begin ? run_begin(cta) : begin;
      const std::uint64_t to = run_begin(cta + 1) < end ? run_begin(cta + 1) : end;
      if (to - from >= largest) {
        largest = to - from;
        owner = cta;
      }
    }
    // The owner walks its run's tiles from the last back, each one's k-steps forward: its share
    // [from, to) starts at step p = run_end - to of its walk, so at step p + i it computes the
    // tile's k-step j = from - begin + i; rotated, (j + rotation) mod K == (p + i) mod K.
    const std::uint64_t from = run_begin(owner) > begin ? run_begin(owner) : begin;
    const std::uint64_t to = run_begin(owner + 1) < end ? run_begin(owner + 1) : end;
    return static_cast<std::uint32_t>(((run_begin(owner + 1) - to) % k_steps + k_steps - (from - begin)) %
                                      k_steps);
  }
};

// One item of a CTA's walk: k-steps [k_begin, k_end) of `tile`.
struct SplitItem {
  WorkItem tile;
  std::uint32_t k_begin, k_end;
  std::uint32_t k_steps;  // the tile's k-steps in all
  // For an item that finishes its tile: the CTAs whose partials of it it adds, first_peer
  // through last_peer (empty, first_peer > last_peer, for any other item).
  std::uint32_t first_peer, last_peer;
  std::uint32_t k_rotation = 0;  // StreamKPlan::k_rotation: 0 unless KStepOrder::in_phase

  // The k-step to compute at step j (k_begin <= j < k_end) of the tile's order.
  LINPIPE_HOST_DEVICE constexpr std::uint32_t k_step(std::uint32_t j) const {
    const std::uint32_t k = j + k_rotation;
    return k < k_steps ? k : k - k_steps;
  }

  // Every k-step of the tile: computed and stored by this CTA alone.
  LINPIPE_HOST_DEVICE constexpr bool whole() const { return k_begin == 0 && k_end == k_steps; }
  // An earlier part of a shared tile: this CTA publishes its partial (in its own slot) for the
  // tile's finisher, and stores nothing.
  LINPIPE_HOST_DEVICE constexpr bool publishes() const { return k_end < k_steps; }
  // The last part of a shared tile: this CTA adds its peers' partials and stores the tile.
  LINPIPE_HOST_DEVICE constexpr bool finishes() const { return k_begin > 0 && k_end == k_steps; }
  LINPIPE_HOST_DEVICE constexpr std::uint32_t steps() const { return k_end - k_begin; }
};

template <class Order = LinearOrder>
class StreamKSchedule {
 public:
  class Iterator;
  class Items;

  // `ctas` is the grid the schedule runs on (gridDim.x): the plan depends on it, so a launch
  // computes it on the device from the grid it got. `shared_waves` and `k_order`:
  // StreamKPlan::for_grid's.
  LINPIPE_HOST_DEVICE constexpr StreamKSchedule(TileSpace space, Order order, std::uint32_t k_steps,
                                                std::uint32_t ctas, std::uint32_t shared_waves = 1,
                                                KStepOrder k_order = KStepOrder::from_zero)
      : tiles_(space, order),
        plan_(StreamKPlan::for_grid(tiles_.count(), k_steps, ctas, shared_waves, k_order)) {}

  LINPIPE_HOST_DEVICE constexpr const StreamKPlan& plan() const { return plan_; }
  LINPIPE_HOST_DEVICE constexpr const WorkSchedule<Order>& tiles() const { return tiles_; }

  // The items CTA `cta` takes, in order: its run of split k-steps, then its whole tiles.
  LINPIPE_HOST_DEVICE constexpr Items items(std::uint32_t cta) const { return Items(*this, cta); }

  class Iterator {
   public:
    LINPIPE_HOST_DEVICE constexpr SplitItem operator*() const {
      const StreamKPlan& plan = schedule_->plan_;
      if (cursor_ > run_begin_) {
        // The run's last tile not yet walked: from its first k-step in the run to the cursor.
        const std::uint32_t position = static_cast<std::uint32_t>((cursor_ - 1) / plan.k_steps);
        const std::uint64_t tile_begin = static_cast<std::uint64_t>(position) * plan.k_steps;
        const std::uint64_t begin = run_begin_ > tile_begin ? run_begin_ : tile_begin;
        SplitItem item{schedule_->tiles_.item(position),
                       static_cast<std::uint32_t>(begin - tile_begin),
                       static_cast<std::uint32_t>(cursor_ - tile_begin), plan.k_steps, 1, 0,
                       plan.k_rotation(position)};
        if (item.finishes()) {
          item.first_peer = plan.cta_of(tile_begin);
          item.last_peer = cta_ - 1;
        }
        return item;
      }
      const std::uint32_t position = plan.split_tiles + round_ * plan.ctas + cta_;
      return SplitItem{schedule_->tiles_.item(position), 0, plan.k_steps, plan.k_steps, 1, 0};
    }
    LINPIPE_HOST_DEVICE constexpr Iterator& operator++() {
      if (cursor_ > run_begin_) {
        const std::uint32_t k_steps = schedule_->plan_.k_steps;
        const std::uint64_t tile_begin = (cursor_ - 1) / k_steps * k_steps;
        cursor_ = tile_begin > run_begin_ ? tile_begin : run_begin_;  // the tile before, or the run done
      } else {
        ++round_;
      }
      return *this;
    }
    // The split run, then the whole tiles until the first position past the end.
    LINPIPE_HOST_DEVICE constexpr bool operator!=(const Iterator&) const {
      const StreamKPlan& plan = schedule_->plan_;
      if (cta_ >= plan.ctas) return false;  // a CTA past the grid the plan was made for: nothing
      return cursor_ > run_begin_ || plan.split_tiles + round_ * plan.ctas + cta_ < plan.tiles;
    }

   private:
    friend Items;
    LINPIPE_HOST_DEVICE constexpr Iterator(const StreamKSchedule* schedule, std::uint32_t cta)
        : schedule_(schedule),
          cta_(cta),
          run_begin_(cta < schedule->plan_.ctas ? schedule->plan_.run_begin(cta) : 0),
          cursor_(cta < schedule->plan_.ctas ? schedule->plan_.run_begin(cta + 1) : 0) {}
    const StreamKSchedule* schedule_;
    std::uint32_t cta_;
    std::uint64_t run_begin_, cursor_;  // the split run's k-steps [run_begin_, cursor_) not yet walked
    std::uint32_t round_ = 0;
  };

  class Items {
   public:
    LINPIPE_HOST_DEVICE constexpr Iterator begin() const { return Iterator(&schedule_, cta_); }
    LINPIPE_HOST_DEVICE constexpr Iterator end() const { return Iterator(&schedule_, cta_); }

   private:
    friend StreamKSchedule;
    LINPIPE_HOST_DEVICE constexpr Items(const StreamKSchedule& schedule, std::uint32_t cta)
        : schedule_(schedule), cta_(cta) {}
    StreamKSchedule schedule_;  // a copy, so a temporary schedule's items() is safe to walk
    std::uint32_t cta_;
  };

 private:
  WorkSchedule<Order> tiles_;
  StreamKPlan plan_;
};

}  // namespace linpipe
