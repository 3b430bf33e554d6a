// stream_copy: a device-to-device copy through a ring of shared-memory stages.
// A producer warp fills stages with the bulk copy engine (cp.async.bulk completing on the
// stage's full mbarrier with expect-tx bytes); consumer warps drain them to global memory with
// bulk stores; a persistent grid walks the tiles, or short-lived blocks take a few tiles each. Plain host API: no module import needed.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace linpipe::kernels {

// How consumer warps move a full stage to global memory.
enum class StoreEngine : std::uint8_t {
  bulk,     // one lane per warp issues cp.async.bulk shared -> global (the copy engine)
  threads,  // every lane loads 16-byte vectors from shared memory and stores them
};

// The defaults are the fastest configuration measured on the H200 (docs/benchmarks.md,
// 2026-12-04): short-lived blocks of one 48 KiB tile, a 2-stage ring, bulk stores.
struct StreamCopyConfig {
  int stages = 2;                    // ring depth: 1, 2, 3, 4, 6 or 8
  std::uint32_t tile_bytes = 49152;  // bytes per stage: a multiple of 16, at most 64 KiB
  int consumer_warps = 1;            // 1, 2, 4 or 8 warps storing each tile (in slices)
  int blocks_per_sm = 1;             // persistent grid: SMs x blocks_per_sm blocks (0: max)
  StoreEngine store = StoreEngine::bulk;
  int store_lag = 1;         // bulk stores: tiles a stage's signal may trail its store (< stages)
  bool evict_first = false;  // L2 evict-first policy on the bulk loads and stores
  // 0: a persistent grid (SMs x blocks_per_sm blocks walk every tile); k > 0: short-lived
  // blocks, one per k tiles (the hardware schedules them as SMs free up).
  std::uint32_t tiles_per_block = 1;
};

// Copies `bytes` bytes from src to dst (both device pointers, 16-byte aligned, not overlapping)
// on `stream`. Returns cudaErrorInvalidValue for a config or pointer it cannot run, with
// `why` (if given) set to a sentence saying what to change.
cudaError_t stream_copy(void* dst, const void* src, std::size_t bytes, const StreamCopyConfig& config,
                        cudaStream_t stream = nullptr, const char** why = nullptr);

// A traced copy (linpipe:trace), e.g. for stream_copy_bench --trace: each warp of a block
// records its role's waits, claims, releases and issue marks into slice
// block x (1 + consumer_warps) + warp of `trace`: device memory of
// linpipe::TraceLayout{slices, per_slice}.bytes(), zeroed. Warps of blocks past the slices
// record nothing, so a small buffer traces the first few blocks.
cudaError_t stream_copy_traced(void* dst, const void* src, std::size_t bytes,
                               const StreamCopyConfig& config, void* trace, unsigned slices,
                               unsigned per_slice, cudaStream_t stream = nullptr,
                               const char** why = nullptr);

}  // namespace linpipe::kernels
