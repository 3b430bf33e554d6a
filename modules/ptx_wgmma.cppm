// linpipe:ptx_wgmma — warpgroup matrix multiply-accumulate (wgmma) from shared memory, its
// fences and groups, and the shared-memory matrix descriptor for 128-byte-swizzled K-major tiles.
// PTX ISA, "Warpgroup Level Matrix Multiply-Accumulate Instructions":
// https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-instructions
//
// The accumulator is a float array indexed only with constants by its callers (fully unrolled
// loops), so it stays in registers. The mma wrappers spell out one asm operand per accumulator
// register (inline asm takes no arrays); their layout: register i of thread t holds row
// 16 * (t / 32) + (t % 32) / 4 + 8 * ((i / 2) % 2), column 8 * (i / 4) + 2 * (t % 4) + i % 2.
module;
#include "linpipe_macros.h"
#include <cstdint>
export module linpipe:ptx_wgmma;
#if defined(__CUDA__)

extern "C" {
LINPIPE_DEVICE void linpipe_ptx_wgmma_needs_SM_90a();
}

export namespace linpipe::ptx {

// The wgmma shared-memory matrix descriptor of a K-major tile stored as the tensor copy engine
// writes it with CU_TENSOR_MAP_SWIZZLE_128B: rows of 128 bytes (64 bf16), 8-row groups 1024
// bytes apart, the tile 1024-byte aligned. Bits 0-13: start address >> 4; 16-29: leading byte
// offset >> 4 (unused for swizzled K-major, 1); 32-45: stride byte offset >> 4 (1024 B);
// 62-63: swizzle mode (1 = 128B). Advance along K inside the 128-byte row by adding
// (bytes >> 4) to the descriptor (32 bytes = one k16 step = +2).
LINPIPE_HOST_DEVICE inline constexpr std::uint64_t wgmma_desc_k_major_sw128(
    std::uint32_t shared_addr) {
  return (static_cast<std::uint64_t>((shared_addr & 0x3FFFFu) >> 4)) |
         (std::uint64_t{1} << 16) | (std::uint64_t{1024 >> 4} << 32) | (std::uint64_t{1} << 62);
}

// The descriptor of an N-major (MN-major) operand stored as the tensor copy engine writes it
// with CU_TENSOR_MAP_SWIZZLE_128B: boxes of 64 N-columns (128 bytes) by K rows, each row 128
// bytes, `box_bytes` apart along N (leading byte offset: the next 64 columns), 8-row groups
// 1024 bytes apart along K (stride byte offset); the tile 1024-byte aligned. Step along K by
// adding (16 rows x 128 bytes) >> 4 = 128 per k16 step.
LINPIPE_HOST_DEVICE inline constexpr std::uint64_t wgmma_desc_mn_major_sw128(std::uint32_t shared_addr,
                                                                             std::uint32_t box_bytes) {
  return (static_cast<std::uint64_t>((shared_addr & 0x3FFFFu) >> 4)) |
         (static_cast<std::uint64_t>((box_bytes & 0x3FFFFu) >> 4) << 16) |
         (std::uint64_t{1024 >> 4} << 32) | (std::uint64_t{1} << 62);
}

// Two fp32 accumulators -> one bf16x2 register (lo in the low half), round to nearest.
LINPIPE_DEVICE inline std::uint32_t pack_bf16x2(float lo, float hi) {
  std::uint32_t packed;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(hi), "f"(lo));
  return packed;
}

// One bf16x2 register -> two fp32 values (lo from the low half); exact (bf16 is fp32's top half).
LINPIPE_HOST_DEVICE inline void unpack_bf16x2(std::uint32_t packed, float& lo, float& hi) {
  lo = __builtin_bit_cast(float, packed << 16);
  hi = __builtin_bit_cast(float, packed & 0xffff0000u);
}

// wgmma.fence.sync.aligned;
// PTX ISA 8.0, SM_90a. Orders earlier register and shared-memory accesses before the
// warpgroup's next wgmma.mma_async (issue it before the first mma that touches the accumulators).
LINPIPE_DEVICE inline void wgmma_fence() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#else
  linpipe_ptx_wgmma_needs_SM_90a();
#endif
}

// No instruction: tells the compiler that each of these registers is read and written here.
// Around wgmma.fence and wgmma.wait_group it keeps the compiler's own code on the right side:
// it cannot see that wgmma reads and writes registers asynchronously, so it may otherwise
// read an accumulator before the wait that retires it, or reuse an A operand's registers for
// other values while the wgmma reading them still runs (ptxas then serialises, C7513).
template <int N>
LINPIPE_DEVICE inline void wgmma_fence_operands(float (&registers)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(registers[i])::"memory");
}
template <int N>
LINPIPE_DEVICE inline void wgmma_fence_operands(std::uint32_t (&registers)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+r"(registers[i])::"memory");
}

// wgmma.commit_group.sync.aligned;
// PTX ISA 8.0, SM_90a. Closes the warpgroup's uncommitted wgmma.mma_async ops into one group.
LINPIPE_DEVICE inline void wgmma_commit_group() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#else
  linpipe_ptx_wgmma_needs_SM_90a();
#endif
}

// wgmma.wait_group.sync.aligned N;
// PTX ISA 8.0, SM_90a. Waits until at most N of the warpgroup's committed groups are pending:
// the others have finished reading shared memory and writing their accumulators.
template <int N>
LINPIPE_DEVICE inline void wgmma_wait_group() {
  static_assert(N >= 0 && N <= 7, "wgmma.wait_group: 0..7");
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
#else
  linpipe_ptx_wgmma_needs_SM_90a();
#endif
}

// wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {d0..d63}, a_desc, b_desc, p, 1, 1, 0, 0;
// PTX ISA 8.0, SM_90a. D (64 x 128 fp32, 64 registers a thread across the warpgroup) +=
// A (64 x 16, K-major, shared) x B (128 x 16, K-major, shared); scale_d == 0 overwrites D instead.
// Issued by all 128 threads of a warpgroup, between wgmma_fence() and wgmma_commit_group().
LINPIPE_DEVICE inline void wgmma_m64n128k16_bf16(float (&d)[64], std::uint64_t a_desc,
                                               std::uint64_t b_desc, std::uint32_t scale_d) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %66, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
      "}, %64, %65, p, 1, 1, 0, 0;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(a_desc), "l"(b_desc), "r"(scale_d)
      : "memory");
#else
  linpipe_ptx_wgmma_needs_SM_90a();
#endif
}

// wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {d0..d63}, a_desc, b_desc, 0, 1, 1, 0, 0;
// PTX ISA 8.0, SM_90a. D = A x B (operands as wgmma_m64n128k16_bf16), D written only: the
// first k16 step of a product. Unlike scale_d == 0 there, D's old values are not inputs, so
// the compiler ties no earlier registers to it (a value it happened to leave there would
// otherwise count as an input of the wgmma).
LINPIPE_DEVICE inline void wgmma_m64n128k16_bf16_first(float (&d)[64], std::uint64_t a_desc,
                                                     std::uint64_t b_desc) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %66, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
      "}, %64, %65, p, 1, 1, 0, 0;\n\t}"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]), "=f"(d[6]), "=f"(d[7]),
        "=f"(d[8]), "=f"(d[9]), "=f"(d[10]), "=f"(d[11]), "=f"(d[12]), "=f"(d[13]), "=f"(d[14]), "=f"(d[15]),
        "=f"(d[16]), "=f"(d[17]), "=f"(d[18]), "=f"(d[19]), "=f"(d[20]), "=f"(d[21]), "=f"(d[22]), "=f"(d[23]),
        "=f"(d[24]), "=f"(d[25]), "=f"(d[26]), "=f"(d[27]), "=f"(d[28]), "=f"(d[29]), "=f"(d[30]), "=f"(d[31]),
        "=f"(d[32]), "=f"(d[33]), "=f"(d[34]), "=f"(d[35]), "=f"(d[36]), "=f"(d[37]), "=f"(d[38]), "=f"(d[39]),
        "=f"(d[40]), "=f"(d[41]), "=f"(d[42]), "=f"(d[43]), "=f"(d[44]), "=f"(d[45]), "=f"(d[46]), "=f"(d[47]),
        "=f"(d[48]), "=f"(d[49]), "=f"(d[50]), "=f"(d[51]), "=f"(d[52]), "=f"(d[53]), "=f"(d[54]), "=f"(d[55]),
        "=f"(d[56]), "=f"(d[57]), "=f"(d[58]), "=f"(d[59]), "=f"(d[60]), "=f"(d[61]), "=f"(d[62]), "=f"(d[63])
      : "l"(a_desc), "l"(b_desc), "r"(0)
      : "memory");
#else
  linpipe_ptx_wgmma_needs_SM_90a();
#endif
}

// wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {d0..d127}, a_desc, b_desc, p, 1, 1, 0, 0;
// PTX ISA 8.0, SM_90a. D (64 x 256 fp32, 128 registers a thread across the warpgroup) +=
// A (64 x 16, K-major, shared) x B (256 x 16, K-major, shared); scale_d == 0 overwrites D instead.
// Issued by all 128 threads of a warpgroup, between wgmma_fence() and wgmma_commit_group().
LINPIPE_DEVICE inline void wgmma_m64n256k16_bf16(float (&d)[128], std::uint64_t a_desc,
                                               std::uint64_t b_desc, std::uint32_t scale_d) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %130, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
      "}, %128, %129, p, 1, 1, 0, 0;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
        "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
        "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(a_desc), "l"(b_desc), "r"(scale_d)
      : "memory");
#else
  linpipe_ptx_wgmma_needs_SM_90a();
#endif
}


// wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {d0..d31}, {a0..a3}, b_desc, p, 1, 1, 1;
// PTX ISA 8.0, SM_90a. D (64 x 64 fp32, 32 registers a thread) += A (64 x 16 bf16, in
// registers: for the k-slice of columns 16 c..16 c + 15 of an m64nN fp32 accumulator acc,
// a[r] = pack_bf16x2(acc[8 c + 2 r], acc[8 c + 2 r + 1])) x B (16 x 64, N-major in shared
// memory: wgmma_desc_mn_major_sw128);
// scale_d == 0 overwrites D instead. Issued by all 128 threads of a warpgroup, after a
// wgmma_fence() that follows the last write of `a` and of D.
LINPIPE_DEVICE inline void wgmma_m64n64k16_bf16_rs_nmajor(float (&d)[32], const std::uint32_t (&a)[4],
                                                       std::uint64_t b_desc, std::uint32_t scale_d) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %37, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
      "}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b_desc), "r"(scale_d)
      : "memory");
#else
  linpipe_ptx_wgmma_needs_SM_90a();
#endif
}

// wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {d0..d63}, {a0..a3}, b_desc, p, 1, 1, 1;
// PTX ISA 8.0, SM_90a. D (64 x 128 fp32, 64 registers a thread) += A (64 x 16 bf16, in
// registers: for the k-slice of columns 16 c..16 c + 15 of an m64nN fp32 accumulator acc,
// a[r] = pack_bf16x2(acc[8 c + 2 r], acc[8 c + 2 r + 1])) x B (16 x 128, N-major in shared
// memory: wgmma_desc_mn_major_sw128);
// scale_d == 0 overwrites D instead. Issued by all 128 threads of a warpgroup, after a
// wgmma_fence() that follows the last write of `a` and of D.
LINPIPE_DEVICE inline void wgmma_m64n128k16_bf16_rs_nmajor(float (&d)[64], const std::uint32_t (&a)[4],
                                                       std::uint64_t b_desc, std::uint32_t scale_d) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %69, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
      "}, {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b_desc), "r"(scale_d)
      : "memory");
#else
  linpipe_ptx_wgmma_needs_SM_90a();
#endif
}

}  // namespace linpipe::ptx
#endif  // __CUDA__
