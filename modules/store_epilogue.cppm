// linpipe:store_epilogue — StoreEpilogue: a consumer warp writes a stage's slot, the bulk copy
// engine (or TMA) stores it to global memory, and the stage is released once the store has
// read the slot.
//
// That ordering has six steps, and a slip in any of them is a silent race, not an error:
//  1. every lane that wrote the slot with ordinary stores makes them visible to the async proxy
//     (fence.proxy.async.shared::cta);
//  2. the warp synchronises, so the issuing lane sees every lane's fence;
//  3. one lane issues the store(s) and commits them as one bulk group;
//  4. it waits until the store Lag groups back has READ its slot (wait_group.read<Lag>: the
//     Lag newer stores may still be reading theirs);
//  5. the warp synchronises again, so no lane arrives before that wait;
//  6. that older stage is released (through the release policy); and before the block exits,
//     every store has completed (wait_group<0>) and every held stage is released.
// StoreEpilogue does all six: the consumer writes the slot and calls store(std::move(stage),
// ...); finish() ends it. It is linear like a StageLag (finish() on every path), so the
// checker and -Wconsumed hold it to that.
module;
#include "linpipe_macros.h"
#include <cstdint>
export module linpipe:store_epilogue;
#if defined(__CUDA__)
import :ptx_bulk_copy;
import :stage;
import :stage_lag;

namespace linpipe::detail {

// Lag 0 holds nothing: each stage is released as soon as its store has read the slot.
template <class Stage, int Lag, class Release>
struct HeldForStores {
  using Type = StageLag<Stage, Lag, Release>;
};
struct NothingHeld {
  template <class Release>
  LINPIPE_DEVICE explicit NothingHeld(Release) {}
};
template <class Stage, class Release>
struct HeldForStores<Stage, 0, Release> {
  using Type = NothingHeld;
};

}  // namespace linpipe::detail

export namespace linpipe {

// Called by every lane of one consumer warp, which holds each stage it stores. Lag: how many
// stages stay held while their stores read (0: wait for each store before the next tile;
// 1-2 keep stores in flight while the next tile is awaited; the ring needs Lag + 1 stages).
// Release: how the warp releases a stage (ReleaseToCluster<1>{lane}: lane 0 arrives for the
// warp; its Arrivals count follows).
template <class Stage, int Lag, class Release>
class [[nodiscard, clang::consumable(unconsumed), clang::annotate("linpipe::linear")]] StoreEpilogue {
  static_assert(Lag >= 0, "linpipe::StoreEpilogue<Stage, Lag, Release>: Lag must be >= 0");
  static_assert(Lag < Stage::num_stages,
                "linpipe::StoreEpilogue<Stage, Lag, Release>: the epilogue holds Lag stages while "
                "the next is acquired, so the ring needs at least Lag + 1 stages: lower Lag or "
                "raise the pipeline's NumStages");

 public:
  [[clang::return_typestate(unconsumed), clang::annotate("linpipe::acquires")]] LINPIPE_DEVICE
  explicit StoreEpilogue(Release release)
      // The epilogue owns its lag (a linear member): finish() flushes it, and the epilogue
      // itself is linear, so the obligation is still checked, one level up.
      : release_(release), held_(release) {}  // NOLINT(linpipe-linear-stage)
  StoreEpilogue(const StoreEpilogue&) = delete;
  StoreEpilogue& operator=(const StoreEpilogue&) = delete;
  [[clang::callable_when("consumed", "unknown")]] LINPIPE_DEVICE ~StoreEpilogue() {}

  // Stores the slot `stage` holds, which this warp has just written: `issue()` runs on lane 0
  // and issues the bulk or TMA store(s) that read the slot (one bulk group); the stage is
  // released once they have read it, Lag stores later.
  template <class Issue>
  [[clang::callable_when("unconsumed", "unknown"),
    clang::annotate("linpipe::arrives_arg", release_arrives<Release>)]] LINPIPE_DEVICE void
  store(Stage&& stage, Issue&& issue) {
    ptx::fence_proxy_async_shared_cta();  // 1: this lane's writes, visible to the copy engine
    sync_warp();                          // 2
    if (lane() == 0) {
      issue();                            // 3
      ptx::cp_async_bulk_commit_group();
      ptx::cp_async_bulk_wait_group_read<Lag>();  // 4: the store of the stage released below
    }
    sync_warp();                          // 5
    if constexpr (Lag == 0) {
      release_(static_cast<Stage&&>(stage));  // 6
    } else {
      held_.push(static_cast<Stage&&>(stage));  // 6: releases the stage Lag stores back
    }
  }

  // The common case: bytes contiguous bytes of the slot at `slot`, to `global`.
  [[clang::callable_when("unconsumed", "unknown"),
    clang::annotate("linpipe::arrives_arg", release_arrives<Release>)]] LINPIPE_DEVICE void
  store(Stage&& stage, void* global, const void* slot, std::uint32_t bytes) {
    store(static_cast<Stage&&>(stage),
          [&] { ptx::cp_async_bulk_shared_to_global(global, slot, bytes); });
  }

  // Waits for every store to read its slot, releases the stages still held, then waits for
  // the stores' writes to complete. Call once, after the warp's last store.
  [[clang::callable_when("unconsumed", "unknown"), clang::set_typestate(consumed),
    clang::annotate("linpipe::consume")]] LINPIPE_DEVICE void finish() {
    if (lane() == 0) ptx::cp_async_bulk_wait_group_read<0>();
    sync_warp();
    if constexpr (Lag > 0) held_.flush();
    if (lane() == 0) ptx::cp_async_bulk_wait_group<0>();
  }

 private:
  using Held = typename detail::HeldForStores<Stage, Lag, Release>::Type;

  LINPIPE_DEVICE static std::uint32_t lane() { return __nvvm_read_ptx_sreg_laneid(); }
  LINPIPE_DEVICE static void sync_warp() { __nvvm_bar_warp_sync(0xffffffffu); }

  Release release_;
  Held held_;
};

}  // namespace linpipe
#endif  // __CUDA__
