// linpipe:storage — one declaration for a pipeline's memory: a ring of NumStages slots for each
// tile type a stage carries, then the barriers (Mojo's pipeline storage, CUTLASS's
// SharedStorage), so kernels stop adding byte offsets by hand and expect-tx counts come from
// the tile types instead of arithmetic that can drift from the layout.
//
//   struct TileA { alignas(1024) bf16 v[128 * 64]; };
//   struct TileB { alignas(1024) bf16 v[256 * 64]; };
//   using Storage = linpipe::PipelineStorage<Pipeline, TileA, TileB>;
//   extern __shared__ std::byte smem[];              // launch with Storage::launch_bytes()
//   Storage& storage = Storage::at(smem);            // aligned, still in shared memory
//   Pipeline pipe(storage.barriers);
//   stage.mbar().arrive_expect_tx(Storage::payload_bytes);   // sizeof(TileA) + sizeof(TileB)
//   tma_load(storage.slot<TileA>(stage).v, ...);
module;
#include "linpipe_macros.h"
#include <cstddef>
#include <cstdint>
#include <type_traits>
export module linpipe:storage;
import :backend;
import :shared_plan;

namespace linpipe::detail {

// A class template so the compiler's "in instantiation of" note shows both numbers.
template <std::size_t StorageBytes, std::size_t BudgetBytes>
struct FitsBudget {
  static_assert(StorageBytes <= BudgetBytes,
                "linpipe::PipelineStorage<Pipeline, Tiles...>: NumStages x the tiles' bytes plus "
                "the barriers and alignment slack exceed the backend's memory budget (see "
                "FitsBudget<StorageBytes, BudgetBytes> below; on the GPU, the shared memory one "
                "block may use): use fewer stages or smaller tiles");
  static constexpr bool value = true;
};

// A backend's budget for one pipeline's storage: Backend::max_storage_bytes where it declares
// one (the NVIDIA backend: the shared memory a block may opt into), otherwise none.
template <class Backend>
constexpr std::size_t storage_budget_bytes() {
  if constexpr (requires { Backend::max_storage_bytes; }) {
    return Backend::max_storage_bytes;
  } else {
    return ~std::size_t{0};
  }
}

// One ring per tile type, NumStages slots each, in the order given: all stages of the first
// tile, then all of the next (CUTLASS's layout): the GEMM ran 2-3% faster so than with one
// struct per stage holding its A and B tiles side by side (docs/benchmarks.md).
template <int NumStages, class... Tiles>
struct Rings {};
template <int NumStages, class Tile, class... Rest>
struct Rings<NumStages, Tile, Rest...> {
  Tile ring[NumStages];
  [[no_unique_address]] Rings<NumStages, Rest...> rest;
};

template <std::size_t I, int NumStages, class Tile, class... Rest>
LINPIPE_HOST_DEVICE constexpr auto& ring_at(Rings<NumStages, Tile, Rest...>& rings) {
  if constexpr (I == 0) {
    return rings.ring;
  } else {
    return ring_at<I - 1>(rings.rest);
  }
}

// The position of Tile in Tiles...; sizeof...(Tiles) if absent.
template <class Tile, class... Tiles>
constexpr std::size_t index_of() {
  constexpr bool same[] = {std::is_same_v<Tile, Tiles>..., false};
  std::size_t i = 0;
  while (i < sizeof...(Tiles) && !same[i]) ++i;
  return i;
}
template <class Tile, class... Tiles>
constexpr std::size_t count_of = (std::size_t{std::is_same_v<Tile, Tiles>} + ... + 0);

template <class Stage>
concept SlotOwner = requires(const Stage& stage) { stage.index(); };

}  // namespace linpipe::detail

export namespace linpipe {

// A ring of NumStages slots per tile type (see detail::Rings), followed by the pipeline's
// barriers. Place one in shared memory with at(); reach a stage's slot with slot<Tile>(stage)
// or slot<I>(stage), or storage[stage] when a stage carries one tile type.
template <class Pipeline, class... Tiles>
struct PipelineStorage {
  using Backend = typename Pipeline::BackendType;
  using BarrierStorage = typename Pipeline::BarrierStorage;
  static constexpr int num_stages = Pipeline::num_stages;

  static_assert(sizeof...(Tiles) >= 1,
                "linpipe::PipelineStorage<Pipeline, Tiles...>: name the tile type(s) one stage "
                "carries, e.g. PipelineStorage<Pipeline, TileA, TileB>");
  static_assert(((std::is_trivially_default_constructible_v<Tiles> &&
                  std::is_trivially_destructible_v<Tiles>) && ...),
                "linpipe::PipelineStorage<Pipeline, Tiles...>: every tile type must be trivially "
                "constructible and destructible (shared memory runs no constructors); use "
                "arrays of plain element types");

  // Tiles first: the most aligned one (1024 bytes for 128B-swizzled TMA tiles) sets the
  // storage's alignment, and every slot keeps its type's alignment.
  detail::Rings<num_stages, Tiles...> rings;
  BarrierStorage barriers[Backend::storage_elems()];

  // Bytes of one stage's tiles: the expect-tx count of a stage filled whole by async copies.
  static constexpr std::uint32_t payload_bytes = tx_bytes<Tiles...>;

  // Bytes of raw memory at() needs: the storage plus slack to align it (a dynamic
  // shared-memory array is only guaranteed 16-byte alignment). Launch with this many bytes of
  // dynamic shared memory. Fails to compile when that exceeds the backend's budget.
  static constexpr std::size_t launch_bytes() {
    constexpr std::size_t bytes = detail::bytes_with_alignment_slack<PipelineStorage>();
    static_assert(detail::FitsBudget<bytes, detail::storage_budget_bytes<Backend>()>::value);
    return bytes;
  }

  // The whole ring of the I-th tile type, or of type Tile: Tile (&)[NumStages].
  // (Slot accessors carry linpipe::slot: linpipe-stage-protocol follows generic writes to
  // what they return, for its proxy-fence rule.)
  template <std::size_t I>
  [[clang::annotate("linpipe::slot")]]
  LINPIPE_HOST_DEVICE auto& ring() {
    static_assert(I < sizeof...(Tiles), "linpipe::PipelineStorage::ring<I>: I is past the last tile type");
    return detail::ring_at<I>(rings);
  }
  template <class Tile>
  [[clang::annotate("linpipe::slot")]]
  LINPIPE_HOST_DEVICE auto& ring() {
    static_assert(detail::count_of<Tile, Tiles...> == 1,
                  "linpipe::PipelineStorage::ring<Tile>: Tile must be exactly one of the storage's "
                  "tile types; use ring<I>() when two rings share a type");
    return ring<detail::index_of<Tile, Tiles...>()>();
  }

  // The slot a live stage (a ProducerStage or ConsumerStage) owns in the ring of the I-th tile
  // type, or of type Tile. -Wconsumed flags a call with a stage already released.
  template <std::size_t I, detail::SlotOwner Stage>
  [[clang::annotate("linpipe::slot")]]
  LINPIPE_HOST_DEVICE auto& slot(const Stage& stage [[clang::param_typestate(unconsumed)]]) {
    return ring<I>()[stage.index()];
  }
  template <class Tile, detail::SlotOwner Stage>
  [[clang::annotate("linpipe::slot")]]
  LINPIPE_HOST_DEVICE Tile& slot(const Stage& stage [[clang::param_typestate(unconsumed)]]) {
    return ring<Tile>()[stage.index()];
  }

  // One tile type: storage[stage] is slot<0>(stage), storage[n] the n-th slot.
  template <detail::SlotOwner Stage>
    requires(sizeof...(Tiles) == 1)
  [[clang::annotate("linpipe::slot")]]
  LINPIPE_HOST_DEVICE auto& operator[](const Stage& stage [[clang::param_typestate(unconsumed)]]) {
    return ring<0>()[stage.index()];
  }
  [[clang::annotate("linpipe::slot")]]
  LINPIPE_HOST_DEVICE auto& operator[](std::uint32_t n)
    requires(sizeof...(Tiles) == 1)
  {
    return ring<0>()[n];
  }

  // The storage at the first suitably aligned address of `raw`, which must hold launch_bytes().
  // Nothing is constructed (the tiles are trivial); barriers still need init_mbars(). Slot
  // accesses stay in shared memory (see detail::place_aligned). A storage that is one part of
  // a block's shared memory is a member of a SharedPlan's layout instead.
  LINPIPE_HOST_DEVICE static PipelineStorage& at(void* raw) {
    (void)launch_bytes();  // the budget check, for kernels that size memory another way
    return detail::place_aligned<PipelineStorage>(raw);
  }
};

// A pipeline's memory when the slot size is chosen at launch time (a copy kernel's tile
// bytes), so no tile type can name it: the barriers, then NumStages slots of slot_bytes each,
// every slot 128-byte aligned (as bulk copies and TMA want). Size the launch with
// launch_bytes(slot_bytes); place it in the kernel's dynamic shared memory with place(raw,
// slot_bytes): slot accesses stay in the shared window (pointer arithmetic from the extern
// array, never through an integer).
//
//   using Ring = linpipe::ByteRing<Pipeline>;
//   const Ring ring = Ring::place(smem, tile_bytes);      // launched with Ring::launch_bytes()
//   Pipeline pipe(ring.barriers());
//   bulk_load(ring.slot(stage), from, bytes, stage.mbar().address());
template <class Pipeline>
class ByteRing {
 public:
  using Barriers = typename Pipeline::Barriers;
  static constexpr int num_stages = Pipeline::num_stages;
  static constexpr std::size_t slot_alignment = 128;
  // The barriers' area, whole 128-byte lines so the slots after it stay aligned.
  static constexpr std::size_t barrier_bytes =
      (sizeof(Barriers) + slot_alignment - 1) / slot_alignment * slot_alignment;

  // Dynamic shared memory for slots of `slot_bytes` (a multiple of 16): the barriers, the
  // slots, and slack to align them (the array is only guaranteed 16-byte alignment).
  LINPIPE_HOST_DEVICE static constexpr std::size_t launch_bytes(std::uint32_t slot_bytes) {
    return slot_alignment - 16 + barrier_bytes + std::size_t{aligned(slot_bytes)} * num_stages;
  }

  LINPIPE_HOST_DEVICE static ByteRing place(std::byte* raw, std::uint32_t slot_bytes) {
    std::byte* base = &detail::place_aligned<Line>(raw).bytes[0];
    return ByteRing(base, aligned(slot_bytes));
  }

  LINPIPE_HOST_DEVICE Barriers& barriers() const { return *reinterpret_cast<Barriers*>(base_); }
  // The slot a live stage owns. -Wconsumed flags a call with a stage already released.
  template <detail::SlotOwner Stage>
  [[clang::annotate("linpipe::slot")]]
  LINPIPE_HOST_DEVICE std::byte* slot(const Stage& stage [[clang::param_typestate(unconsumed)]]) const {
    return base_ + barrier_bytes + stage.index() * stride_;
  }

 private:
  struct alignas(slot_alignment) Line {
    std::byte bytes[slot_alignment];
  };
  LINPIPE_HOST_DEVICE static constexpr std::uint32_t aligned(std::uint32_t bytes) {
    return (bytes + slot_alignment - 1) / slot_alignment * slot_alignment;
  }
  LINPIPE_HOST_DEVICE ByteRing(std::byte* base, std::uint32_t stride) : base_(base), stride_(stride) {}

  std::byte* base_;
  std::uint32_t stride_;
};

}  // namespace linpipe
