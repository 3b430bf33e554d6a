// linpipe:shared_plan — one declaration for everything a block keeps in shared memory.
//
// A kernel declares its shared memory as a plain struct: each pipeline's PipelineStorage (its
// rings and barriers) plus the per-block extras (a weight vector, a staging buffer, a tile held
// for the whole block). SharedPlan<Layout> gives the one number the launch needs
// (launch_bytes(), checked against the budget at compile time) and places the struct in the
// kernel's dynamic shared memory so that every access stays in the shared address space
// (ld.shared / st.shared, not generic ld / st; see place()).
//
//   struct Shared {
//     linpipe::PipelineStorage<Pipeline, RowTile> rows;   // ring + barriers
//     float weight[8192];                                 // per-block extra
//   };
//   using Plan = linpipe::SharedPlan<Shared>;
//   extern __shared__ __align__(16) std::byte smem[];     // launched with Plan::launch_bytes()
//   Shared& shared = Plan::place(smem);
module;
#include "linpipe_macros.h"
#include <cstddef>
#include <cstdint>
#include <type_traits>
export module linpipe:shared_plan;
#if defined(__CUDA__)
import :ptx_mbarrier;
#endif

export namespace linpipe {

// Shared memory one block may opt into on SM_90 (227 KiB, cudaDevAttrMaxSharedMemoryPerBlockOptin
// on the H100 and H200).
inline constexpr std::size_t sm90_shared_bytes_per_block = 227 * 1024;
// What an SM_90 SM holds at once, for residency sums: 228 KiB of shared memory (1 KiB of it
// reserved by each resident block), 2048 threads, 32 blocks, 64K registers allocated per warp
// in steps of 256 (8 a thread) from four banks of 16K, one per sub-partition.
inline constexpr std::size_t sm90_shared_bytes_per_sm = 228 * 1024;
inline constexpr std::size_t sm90_reserved_shared_bytes_per_block = 1024;
inline constexpr int sm90_threads_per_sm = 2048;
inline constexpr int sm90_blocks_per_sm = 32;
inline constexpr int sm90_registers_per_sm = 65536;

}  // namespace linpipe

namespace linpipe::detail {

// A class template so the compiler's "in instantiation of" note shows both numbers.
template <std::size_t LaunchBytes, std::size_t BudgetBytes>
struct SharedPlanFits {
  static_assert(LaunchBytes <= BudgetBytes,
                "linpipe::SharedPlan<Layout, BudgetBytes>: the layout plus its alignment slack "
                "exceeds the shared-memory budget (see SharedPlanFits<LaunchBytes, BudgetBytes> "
                "below; the default budget is the 227 KiB one SM_90 block may opt into): use "
                "fewer stages, smaller tiles or smaller extras");
  static constexpr bool value = true;
};

// Bytes of raw memory that hold a T at its alignment when the raw memory itself is only
// 16-byte aligned (all a dynamic shared-memory array is promised).
template <class T>
constexpr std::size_t bytes_with_alignment_slack() {
  return sizeof(T) + (alignof(T) > 16 ? alignof(T) - 16 : 0);
}

// The T at the first address of `raw` aligned for it. On the GPU the offset is added to the
// pointer itself (never through an integer), so a pointer derived from an `extern __shared__`
// array keeps its address space and slot accesses compile to ld.shared / st.shared.
template <class T>
LINPIPE_HOST_DEVICE T& place_aligned(void* raw) {
  constexpr std::uint32_t align = alignof(T);
  std::byte* bytes = static_cast<std::byte*>(raw);
#if defined(__CUDA_ARCH__)
  const std::uint32_t pad = (0u - ptx::shared_address(bytes)) & (align - 1);
#else
  const std::uint32_t pad =
      static_cast<std::uint32_t>(0u - reinterpret_cast<std::uintptr_t>(bytes)) & (align - 1);
#endif
  return *reinterpret_cast<T*>(bytes + pad);
}

}  // namespace linpipe::detail

export namespace linpipe {

template <class Layout, std::size_t BudgetBytes = sm90_shared_bytes_per_block>
struct SharedPlan {
  static_assert(std::is_trivially_default_constructible_v<Layout> &&
                    std::is_trivially_destructible_v<Layout>,
                "linpipe::SharedPlan<Layout>: the layout must be trivially constructible and "
                "destructible (shared memory runs no constructors): use arrays of plain element "
                "types and PipelineStorage members");

  // Bytes of dynamic shared memory to launch with: the layout plus slack to align it.
  // Fails to compile when that exceeds BudgetBytes.
  static constexpr std::size_t launch_bytes() {
    constexpr std::size_t bytes = detail::bytes_with_alignment_slack<Layout>();
    static_assert(detail::SharedPlanFits<bytes, BudgetBytes>::value);
    return bytes;
  }

  // How many blocks of `threads` threads launched with this plan one SM_90 SM holds: as many as
  // its shared memory, threads and block slots allow, and no more than leave each thread
  // `min_registers` (a multiple of 8). Meant for __launch_bounds__(threads, blocks_per_sm(...)):
  // a short-lived block overlaps its loads only with other resident blocks, and without the
  // bound the compiler may spend registers on unrolling that cap residency below what shared
  // memory allows.
  static constexpr int blocks_per_sm(int threads, int min_registers) {
    const int warps = (threads + 31) / 32;
    const int by_shared = static_cast<int>(sm90_shared_bytes_per_sm /
                                           (launch_bytes() + sm90_reserved_shared_bytes_per_block));
    const int by_threads = sm90_threads_per_sm / (warps * 32);
    int blocks = by_shared < by_threads ? by_shared : by_threads;
    blocks = blocks < sm90_blocks_per_sm ? blocks : sm90_blocks_per_sm;
    // The register file is four 16K banks, one per SM sub-partition, and a block's warps are
    // spread across them: the fullest bank holds ceil(warps on the SM / 4) warps.
    const auto registers_in_fullest_bank = [&](int count) {
      return (count * warps + 3) / 4 * 32 * min_registers;
    };
    while (blocks > 1 && registers_in_fullest_bank(blocks) > sm90_registers_per_sm / 4) --blocks;
    return blocks > 0 ? blocks : 1;
  }

  // The layout in `dynamic_shared` (the kernel's `extern __shared__` array, launched with
  // launch_bytes()). Nothing is constructed; pipelines' barriers still need init_mbars().
  LINPIPE_HOST_DEVICE static Layout& place(void* dynamic_shared) {
    (void)launch_bytes();  // the budget check, wherever the plan is used
    return detail::place_aligned<Layout>(dynamic_shared);
  }
};

}  // namespace linpipe
