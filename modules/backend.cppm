// linpipe:backend — the PipelineBackend concept: how a signal is raised and awaited.
//
// The protocol (ProducerConsumerPipeline) decides which slot, which lap and who waits on whom;
// a backend only owns 2N signals in shared storage, full[0..N) then empty[0..N), and raises and
// awaits them. Laps are monotonic uint32_t counters; a signal completes one phase per lap, and a
// wait for (stage, lap) passes once the phase of parity (lap & 1) has completed, exactly as
// mbarrier.try_wait.parity does. The producer starts at lap 1 so its first wait on the fresh
// empty signals passes; the consumer starts at lap 0 and waits for the first fill.
module;
#include "linpipe_macros.h"
#include <concepts>
#include <cstddef>
#include <cstdint>
export module linpipe:backend;

export namespace linpipe {

// A backend object is a handle over its storage (the NVIDIA one is a single pointer): stages
// carry a copy, so it must be cheap to copy.
template <class B>
concept PipelineBackend = std::copyable<B> && requires(B backend, typename B::BarrierStorage* storage,
                                   typename B::Handle handle, std::uint32_t stage,
                                   std::uint32_t lap, std::uint32_t count,
                                   std::uint64_t budget_ticks, std::uint32_t hint_ns) {
  typename B::BarrierStorage;  // one signal's storage
  typename B::Handle;          // one signal, for extras (expect-tx, remote arrive, ...)
  { B::storage_elems() } -> std::convertible_to<std::size_t>;
  B(storage);
  backend.init_barriers(count, count);  // producer arrive count, consumer arrive count
  backend.wait_full(stage, lap);
  backend.wait_empty(stage, lap);
  backend.wait_full(stage, lap, hint_ns);   // a suspend-time hint (a backend may ignore it)
  backend.wait_empty(stage, lap, hint_ns);
  // The same waits bounded by budget_ticks (see linpipe:clock): false if it ran out first.
  { backend.wait_full_for(stage, lap, budget_ticks, hint_ns) } -> std::same_as<bool>;
  { backend.wait_empty_for(stage, lap, budget_ticks, hint_ns) } -> std::same_as<bool>;
  { backend.try_full(stage, lap) } -> std::same_as<bool>;
  { backend.try_empty(stage, lap) } -> std::same_as<bool>;
  backend.arrive_full(stage);
  backend.arrive_empty(stage);
  { backend.full_handle(stage) } -> std::same_as<typename B::Handle>;
  { backend.empty_handle(stage) } -> std::same_as<typename B::Handle>;
  handle.arrive();  // so producer code signals a full barrier the same way on every backend
};

}  // namespace linpipe

namespace linpipe::detail {

// Whether Backend was built for NumStages stages: by its num_stages where it declares one (its
// storage may hold more than the 2N signals, e.g. debug words), else by its 2N signals.
template <class Backend, int NumStages>
constexpr bool built_for_stages() {
  if constexpr (requires { Backend::num_stages; }) {
    return Backend::num_stages == NumStages;
  } else {
    return Backend::storage_elems() == 2 * static_cast<std::size_t>(NumStages);
  }
}

}  // namespace linpipe::detail

export namespace linpipe {

// Expect-tx byte count of the tiles one stage receives, derived from their types so it cannot
// drift from the layout: stage.mbar().arrive_expect_tx(linpipe::tx_bytes<TileA, TileB>).
template <class... Tiles>
inline constexpr std::uint32_t tx_bytes = static_cast<std::uint32_t>((sizeof(Tiles) + ... + 0));

}  // namespace linpipe
