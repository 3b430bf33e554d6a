// linpipe:storage — one declaration for a pipeline's memory: NumStages typed payload slots plus
// the barriers (Mojo's pipeline storage, CUTLASS's SharedStorage), so kernels stop adding byte
// offsets by hand and expect-tx counts come from sizeof(Payload) instead of arithmetic that
// can drift from the layout.
//
//   struct Tiles { alignas(1024) bf16 a[128 * 64]; alignas(1024) bf16 b[256 * 64]; };
//   using Storage = linpipe::PipelineStorage<Pipeline, Tiles>;
//   extern __shared__ std::byte smem[];              // launch with Storage::launch_bytes()
//   Storage& storage = Storage::at(smem);            // aligned to alignof(Tiles) here
//   Pipeline pipe(storage.barriers);
//   stage.mbar().arrive_expect_tx(Storage::payload_bytes);
//   tma_load(storage[stage].a, ...);
module;
#include "linpipe_macros.h"
#if defined(__CUDA__)
#include <__clang_cuda_runtime_wrapper.h>
#endif
#include <cstddef>
#include <cstdint>
#include <type_traits>
export module linpipe:storage;

namespace linpipe::detail {

// A class template so the compiler's "in instantiation of" note shows both numbers.
template <std::size_t StorageBytes, std::size_t BudgetBytes>
struct FitsBudget {
  static_assert(StorageBytes <= BudgetBytes,
                "linpipe::PipelineStorage<Pipeline, Payload>: NumStages x sizeof(Payload) plus the "
                "barriers and alignment slack exceed the backend's memory budget (see "
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

}  // namespace linpipe::detail

export namespace linpipe {

// NumStages payload slots (one per ring stage) followed by the pipeline's barriers. Place one
// in shared memory with at(); index it with a stage (storage[stage]) or a slot number.
template <class Pipeline, class Payload>
struct PipelineStorage {
  using Backend = typename Pipeline::BackendType;
  using BarrierStorage = typename Pipeline::BarrierStorage;
  using PayloadType = Payload;
  static constexpr int num_stages = Pipeline::num_stages;

  static_assert(std::is_trivially_default_constructible_v<Payload> &&
                    std::is_trivially_destructible_v<Payload>,
                "linpipe::PipelineStorage<Pipeline, Payload>: Payload must be trivially "
                "constructible and destructible (shared memory runs no constructors); use "
                "arrays of plain element types");

  // Payload first: its alignment (1024 bytes for 128B-swizzled TMA tiles) starts the storage,
  // and every slot keeps it because sizeof(Payload) is a multiple of alignof(Payload).
  Payload slots[num_stages];
  BarrierStorage barriers[Backend::storage_elems()];

  // Bytes of one stage's payload: the expect-tx count of a stage filled whole by async copies.
  static constexpr std::uint32_t payload_bytes = static_cast<std::uint32_t>(sizeof(Payload));

  // Bytes of raw memory at() needs: the storage plus slack to align it (a dynamic
  // shared-memory array is only guaranteed 16-byte alignment). Launch with this many bytes of
  // dynamic shared memory. Fails to compile when that exceeds the backend's budget.
  static constexpr std::size_t launch_bytes() {
    constexpr std::size_t slack = alignof(PipelineStorage) > 16 ? alignof(PipelineStorage) - 16 : 0;
    constexpr std::size_t bytes = sizeof(PipelineStorage) + slack;
    static_assert(detail::FitsBudget<bytes, detail::storage_budget_bytes<Backend>()>::value);
    return bytes;
  }

  LINPIPE_HOST_DEVICE Payload& operator[](std::uint32_t slot) { return slots[slot]; }
  LINPIPE_HOST_DEVICE const Payload& operator[](std::uint32_t slot) const { return slots[slot]; }
  // The slot a live stage owns (a ProducerStage or ConsumerStage). The stage must be live
  // where this is called: -Wconsumed flags storage[stage] after the stage was released.
  template <class Stage>
    requires requires(const Stage& s) { s.index(); }
  LINPIPE_HOST_DEVICE Payload& operator[](const Stage& stage [[clang::param_typestate(unconsumed)]]) {
    return slots[stage.index()];
  }

  // The storage at the first suitably aligned address of `raw`, which must hold launch_bytes().
  // Nothing is constructed (Payload is trivial); barriers still need init_mbars().
  LINPIPE_HOST_DEVICE static PipelineStorage& at(void* raw) {
    (void)launch_bytes();  // the budget check, for kernels that size memory another way
    constexpr std::uintptr_t align = alignof(PipelineStorage);
    const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(raw);
    return *reinterpret_cast<PipelineStorage*>((address + align - 1) & ~(align - 1));
  }
};

}  // namespace linpipe
