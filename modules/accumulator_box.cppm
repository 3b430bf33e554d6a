// linpipe:accumulator_box — a warpgroup's wgmma accumulators written as bf16 into a staging box
// laid out as a TMA store with the 128-byte swizzle reads it, so an epilogue spells no byte
// offsets: `AccumulatorPlace` says which rows and columns a thread holds, `SwizzledBox` is the
// box, and a `BoxWriter` puts 64 of the accumulator's columns at a time into one. With
// StagedStore:
//
//   const linpipe::BoxWriter writer(linpipe::AccumulatorPlace(me.thread_in_consumer()));
//   auto& box = shared.staging[me.consumer()];
//   staged.begin();
//   writer.write(box, acc, /*first_group=*/0);   // columns 0-63
//   staged.store([&] { linpipe::ptx::tma_store_2d(&map_c, col0, row0, box.elems); });
//
// The tensor map that stores the box: bf16, a 64 x 64 box, CU_TENSOR_MAP_SWIZZLE_128B.
module;
#include "linpipe_macros.h"
#include <cstdint>
export module linpipe:accumulator_box;
#if defined(__CUDA__)
import :ptx_wgmma;
import :ptx_sync;

export namespace linpipe {

// Thread t's place (t = 0..127, its index in the warpgroup) in an m64nNk16 fp32 accumulator:
// rows row0 and row0 + 8 of the warpgroup's 64 and, in each 8-column group g, the columns
// 8g + col0 and 8g + col0 + 1. Accumulator 4g + 2h + c holds (row0 + 8h, 8g + col0 + c)
// (PTX ISA, "wgmma .m64nNk16 register fragment D").
struct AccumulatorPlace {
  int row0;
  int col0;
  LINPIPE_DEVICE inline explicit AccumulatorPlace(std::uint32_t thread_in_warpgroup)
      : row0(static_cast<int>(16 * (thread_in_warpgroup / 32) + thread_in_warpgroup % 32 / 4)),
        col0(static_cast<int>(2 * (thread_in_warpgroup % 4))) {}
};

// One warpgroup's 64 rows x 64 bf16 columns: 128-byte rows, 16-byte chunk k of row r stored
// at chunk k ^ (r % 8). 1024-byte aligned, as the swizzle repeats every 8 rows.
struct SwizzledBox {
  static constexpr int rows = 64;
  static constexpr int cols = 64;
  static constexpr int row_bytes = cols * 2;
  alignas(1024) std::uint16_t elems[rows * cols];
};
static_assert(SwizzledBox::row_bytes == 128, "a box row is one 128-byte swizzle span");

// Where a BoxWriter's per-thread offset is computed, in a persistent kernel whose tile loop
// builds the writer for each tile's epilogue:
// - `each_tile`: where the writer is built, every tile (ptx::recompute_here). The stores'
//   addresses cost a few instructions per tile and no registers in the mainloop. For kernels
//   whose mainloop needs every register: attention's overlapped consumers spilled 36-48 bytes
//   when the compiler hoisted them.
// - `hoistable`: the compiler may compute the stores' addresses once, before the tile loop, and
//   hold them through the mainloop (eight 64-bit addresses in the GEMM's PTX), as
//   hand-written offsets let it. For kernels with registers to spare: the GEMM's consumers.
enum class BoxOffsets { each_tile, hoistable };

// Where one thread's accumulator values go in any SwizzledBox: its first byte and its rows'
// swizzle (rows row0 and row0 + 8 share it). Build it where the values are written, once for
// all the boxes of a tile.
template <BoxOffsets Offsets = BoxOffsets::each_tile>
class BoxWriter {
 public:
  LINPIPE_DEVICE inline explicit BoxWriter(const AccumulatorPlace& place)
      : first_(pin(static_cast<std::uint32_t>(place.row0 * SwizzledBox::row_bytes + 2 * place.col0))),
        swizzle_(static_cast<std::uint32_t>(place.row0 % 8)) {}

  // Writes the accumulator's 8-column groups first_group .. first_group + 7 (64 columns) into
  // `box` as bf16, the thread's row half h (rows row0 + 8h) multiplied by row_scale[h]. Every
  // thread of the warpgroup, with first_group a constant after unrolling (the accumulator
  // stays in registers only while indexed by constants). A warp's 8 rows land in 8 different
  // chunks of the swizzle: no bank conflicts.
  template <int N>
  LINPIPE_DEVICE LINPIPE_ALWAYS_INLINE void write(SwizzledBox& box, const float (&acc)[N], int first_group,
                                                  const float (&row_scale)[2]) const {
    static_assert(N % 32 == 0, "BoxWriter::write: the accumulator's columns (N / 4 groups of 8) must fill whole 64-column boxes");
    // Through the shared window: st.shared (STS), not generic stores.
    auto* bytes = (__attribute__((address_space(3))) unsigned char*)(box.elems) + first_;
#pragma unroll
    for (int g = 0; g < 8; ++g) {
      const int j = first_group + g;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        auto* to = (__attribute__((address_space(3))) std::uint32_t*)(
            bytes + h * 8 * SwizzledBox::row_bytes + (static_cast<std::uint32_t>(g) ^ swizzle_) * 16);
        *to = ptx::pack_bf16x2(acc[4 * j + 2 * h] * row_scale[h], acc[4 * j + 2 * h + 1] * row_scale[h]);
      }
    }
  }

  // The same, unscaled.
  template <int N>
  LINPIPE_DEVICE LINPIPE_ALWAYS_INLINE void write(SwizzledBox& box, const float (&acc)[N], int first_group) const {
    const float unscaled[2] = {1.0f, 1.0f};
    write(box, acc, first_group, unscaled);
  }

 private:
  LINPIPE_DEVICE static inline std::uint32_t pin(std::uint32_t offset) {
    if constexpr (Offsets == BoxOffsets::each_tile) {
      return ptx::recompute_here(offset);
    } else {
      return offset;
    }
  }

  std::uint32_t first_;
  std::uint32_t swizzle_;
};

}  // namespace linpipe
#endif  // __CUDA__
