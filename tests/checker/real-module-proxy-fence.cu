// The proxy-fence rule on the real linpipe module, device side: PipelineStorage's slots, the
// ptx layer's bulk copies and fence, and StoreEpilogue, which fences inside (correct by
// construction).
// REQUIRES: linpipe-cuda-module
// RUN: %check_linpipe -checks='-*,linpipe-stage-protocol' %s -- %linpipe_cuda_flags \
// RUN:   --cuda-device-only | FileCheck %s --check-prefix=CHECK-NOTES \
// RUN:   --implicit-check-not="{{warning|error|note}}:"
import linpipe;

#include <cstdint>
#include <utility>

using Pipeline = linpipe::ProducerConsumerPipeline<2>;
using Stage = Pipeline::ConsumerStageType;
struct alignas(128) Tile {
  float values[256];
};
using Storage = linpipe::PipelineStorage<Pipeline, Tile>;

// Bad: doubled in place and bulk-stored with no fence.
__device__ void unfencedStore(Storage &storage, Pipeline &pipe, float *out, unsigned lane) {
  auto stage = pipe.acquire_consumer();
  Tile &tile = storage[stage];
  for (unsigned i = lane; i < 256; i += 32)
    tile.values[i] *= 2.0f;
  __syncwarp();
  if (lane == 0) {
    linpipe::ptx::cp_async_bulk_shared_to_global(out, tile.values, sizeof(Tile));
    // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'cp_async_bulk_shared_to_global' reads slot memory that generic stores wrote on a path to it with no fence.proxy.async between: the copy engine may see stale bytes [linpipe-stage-protocol]
    // CHECK-NOTES: :[[@LINE-5]]:20: note: written by generic stores here
    // CHECK-NOTES: :[[@LINE-3]]:5: note: call linpipe::ptx::fence_proxy_async_shared_cta() after the writes (in every writing thread, then sync them) and before 'cp_async_bulk_shared_to_global', or store through linpipe::StoreEpilogue, which does both
    linpipe::ptx::cp_async_bulk_commit_group();
    linpipe::ptx::cp_async_bulk_wait_group_read<0>();
  }
  __syncwarp();
  if (lane == 0)
    stage.arrive();
  stage.release_without_signal();
}

// Good: every writing lane fences, the warp syncs, one lane stores.
__device__ void fencedStore(Storage &storage, Pipeline &pipe, float *out, unsigned lane) {
  auto stage = pipe.acquire_consumer();
  Tile &tile = storage[stage];
  for (unsigned i = lane; i < 256; i += 32)
    tile.values[i] *= 2.0f;
  linpipe::ptx::fence_proxy_async_shared_cta();
  __syncwarp();
  if (lane == 0) {
    linpipe::ptx::cp_async_bulk_shared_to_global(out, tile.values, sizeof(Tile));
    linpipe::ptx::cp_async_bulk_commit_group();
    linpipe::ptx::cp_async_bulk_wait_group_read<0>();
  }
  __syncwarp();
  if (lane == 0)
    stage.arrive();
  stage.release_without_signal();
}

// Good: the epilogue orders the fence, the store and the release itself.
__device__ void throughTheEpilogue(Storage &storage, Pipeline &pipe, float *out, unsigned lane,
                                   int tiles) {
  using Release = linpipe::ReleaseToCluster<1>;
  linpipe::StoreEpilogue<Stage, 1, Release> epilogue(Release{lane});
  for (int t = 0; t < tiles; ++t) {
    auto stage = pipe.acquire_consumer();
    Tile &tile = storage[stage];
    for (unsigned i = lane; i < 256; i += 32)
      tile.values[i] += 1.0f;
    epilogue.store(std::move(stage), out + 256 * t, tile.values, sizeof(Tile));
  }
  epilogue.finish();
}
