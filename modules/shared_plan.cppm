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

  // The layout in `dynamic_shared` (the kernel's `extern __shared__` array, launched with
  // launch_bytes()). Nothing is constructed; pipelines' barriers still need init_mbars().
  LINPIPE_HOST_DEVICE static Layout& place(void* dynamic_shared) {
    (void)launch_bytes();  // the budget check, wherever the plan is used
    return detail::place_aligned<Layout>(dynamic_shared);
  }
};

}  // namespace linpipe
