// Device-side helpers for benchmarks and tests: random fill and bytewise comparison, so
// multi-GiB buffers are checked without copying them back to the host, and a plain copy kernel
// as a benchmark anchor.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace linpipe::kernels {

// Fills `bytes` bytes at ptr with a pseudo-random stream determined by seed.
cudaError_t fill_random(void* ptr, std::size_t bytes, std::uint64_t seed, cudaStream_t stream = nullptr);

// The "what a user would write instead" anchor: a one-shot vectorised copy kernel (one
// 16-byte vector per thread), for benchmarks beside cudaMemcpy. 16-byte aligned pointers.
// `threads` per block (a multiple of 32, at most 1024); `streaming`: loads marked evict-first
// (ld.global.cs: each line is read once) instead of plain ones.
struct PlainCopyConfig {
  unsigned threads = 256;
  bool streaming = false;
};
cudaError_t plain_copy(void* dst, const void* src, std::size_t bytes, PlainCopyConfig config = {},
                       cudaStream_t stream = nullptr);
// The configurations stream_copy_bench tries, the best of which is its plain anchor: 128, 256
// and 512 threads, plain and streaming.
inline constexpr PlainCopyConfig plain_copy_configs[] = {{128, false}, {256, false}, {512, false},
                                                         {128, true},  {256, true},  {512, true}};

// Counts the differing bytes of a and b into *mismatches (host pointer; synchronises).
cudaError_t count_mismatches(const void* a, const void* b, std::size_t bytes,
                             unsigned long long* mismatches);

}  // namespace linpipe::kernels
