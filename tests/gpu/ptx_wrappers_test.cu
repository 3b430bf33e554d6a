// The small wrappers a warp-specialised kernel needs around its pipelines, each checked for the
// behaviour a kernel relies on: elect-one, named barriers, the CTA's place in its cluster,
// expect-tx / complete-tx on a peer CTA's barrier, multicast bulk copies, the flushed exp2 a
// softmax uses, and the host helper that encodes a TMA tensor map (checked by loading a box
// through it).
#include "gpu_test_support.h"

#include <cuda.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

import linpipe;

namespace {

namespace ptx = linpipe::ptx;

// Polls a local mbarrier's phase `parity` for a bounded time; false if it never completed.
__device__ bool wait_parity(std::uint64_t* bar, std::uint32_t parity) {
  for (int i = 0; i < (1 << 22); ++i) {
    if (ptx::mbarrier_try_wait_parity(bar, parity)) return true;
  }
  return false;
}

// Launches `kernel` on `blocks` blocks in clusters of `cluster` CTAs along x.
template <class... Params, class... Args>
cudaError_t launch_clusters(void (*kernel)(Params...), unsigned blocks, unsigned threads,
                            unsigned cluster, Args... args) {
  cudaLaunchConfig_t config{};
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = cluster;
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.attrs = &attr;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel, args...);
}

template <class T>
std::vector<T> to_host(const T* device, std::size_t count) {
  std::vector<T> host(count);
  if (cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess)
    host.clear();
  return host;
}

// --- elect.sync ----------------------------------------------------------------------------

// out[warp * 2] = lanes elected with the full mask, out[warp * 2 + 1] = the lane elected
// among the upper 16 lanes only (the others do not take part).
__global__ void elect(std::uint32_t* out) {
  const std::uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (ptx::elect_one_sync()) atomicAdd(&out[warp * 2], 1u);
  if (lane >= 16 && ptx::elect_one_sync(0xffff0000u)) out[warp * 2 + 1] = lane;
}

TEST(PtxWrappers, ElectOneSyncElectsExactlyOneLaneOfTheMask) {
  LINPIPE_REQUIRE_GPU();
  constexpr int warps = 4;
  std::uint32_t* out = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&out, warps * 2 * sizeof(std::uint32_t)));
  LINPIPE_CUDA_OK(cudaMemset(out, 0, warps * 2 * sizeof(std::uint32_t)));
  elect<<<1, warps * 32>>>(out);
  LINPIPE_CUDA_OK(cudaGetLastError());
  LINPIPE_CUDA_OK(cudaDeviceSynchronize());
  const auto host = to_host(out, warps * 2);
  LINPIPE_CUDA_OK(cudaFree(out));
  ASSERT_EQ(host.size(), warps * 2u);
  for (int w = 0; w < warps; ++w) {
    EXPECT_EQ(host[w * 2], 1u) << "warp " << w << ": lanes elected with the full mask";
    EXPECT_GE(host[w * 2 + 1], 16u) << "warp " << w << ": the elected lane must be in the mask";
  }
}

// --- named barriers ------------------------------------------------------------------------

constexpr std::uint32_t handoff_rounds = 4096;
constexpr std::uint32_t full_id = 1, empty_id = 2, pair_threads = 64;

// Warp 0 hands values to warp 1 through one shared word, with two named barriers of 64
// threads (full: warp 0 arrives, warp 1 syncs; empty: the reverse). Warps 2 and 3 never take
// part and leave at once: a named barrier syncs only the warps it counts.
__global__ void named_barrier_handoff(std::uint32_t* wrong) {
  __shared__ std::uint32_t word;
  const std::uint32_t warp = threadIdx.x / 32;
  if (warp == 0) {
    for (std::uint32_t i = 0; i < handoff_rounds; ++i) {
      if (i > 0) ptx::barrier_sync(empty_id, pair_threads);
      if (threadIdx.x == 0) word = i * 7u + 1u;
      ptx::barrier_arrive(full_id, pair_threads);
    }
  } else if (warp == 1) {
    for (std::uint32_t i = 0; i < handoff_rounds; ++i) {
      ptx::barrier_sync(full_id, pair_threads);
      if (word != i * 7u + 1u) atomicAdd(wrong, 1u);
      if (i + 1 < handoff_rounds) ptx::barrier_arrive(empty_id, pair_threads);
    }
  }
}

TEST(PtxWrappers, NamedBarriersOrderASubsetOfWarps) {
  LINPIPE_REQUIRE_GPU();
  std::uint32_t* wrong = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&wrong, sizeof(std::uint32_t)));
  LINPIPE_CUDA_OK(cudaMemset(wrong, 0, sizeof(std::uint32_t)));
  named_barrier_handoff<<<8, 128>>>(wrong);
  LINPIPE_CUDA_OK(cudaGetLastError());
  LINPIPE_CUDA_OK(cudaDeviceSynchronize());
  const auto host = to_host(wrong, 1);
  LINPIPE_CUDA_OK(cudaFree(wrong));
  ASSERT_EQ(host.size(), 1u);
  EXPECT_EQ(host[0], 0u) << "the consumer warp read a value before or after its round";
}

// --- the CTA's place in its cluster --------------------------------------------------------

__global__ void cluster_position(std::uint32_t* out) {
  const ptx::ClusterDim3 id = ptx::cluster_ctaid(), shape = ptx::cluster_nctaid();
  if (threadIdx.x == 0) {
    std::uint32_t* mine = out + blockIdx.x * 6;
    mine[0] = ptx::cluster_ctarank();
    mine[1] = ptx::cluster_nctarank();
    mine[2] = id.x;
    mine[3] = id.y + id.z;
    mine[4] = shape.x;
    mine[5] = shape.y * shape.z;
  }
}

TEST(PtxWrappers, ClusterPositionMatchesTheLaunch) {
  LINPIPE_REQUIRE_GPU();
  constexpr unsigned blocks = 8, cluster = 4;
  std::uint32_t* out = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&out, blocks * 6 * sizeof(std::uint32_t)));
  LINPIPE_CUDA_OK(cudaMemset(out, 0xFF, blocks * 6 * sizeof(std::uint32_t)));
  LINPIPE_CUDA_OK(launch_clusters(cluster_position, blocks, 32, cluster, out));
  LINPIPE_CUDA_OK(cudaDeviceSynchronize());
  const auto host = to_host(out, blocks * 6);
  LINPIPE_CUDA_OK(cudaFree(out));
  ASSERT_EQ(host.size(), blocks * 6u);
  for (unsigned b = 0; b < blocks; ++b) {
    const std::uint32_t* got = &host[b * 6];
    EXPECT_EQ(got[0], b % cluster) << "block " << b << ": cluster_ctarank";
    EXPECT_EQ(got[1], cluster) << "block " << b << ": cluster_nctarank";
    EXPECT_EQ(got[2], b % cluster) << "block " << b << ": cluster_ctaid().x";
    EXPECT_EQ(got[3], 0u) << "block " << b << ": cluster_ctaid().y + z";
    EXPECT_EQ(got[4], cluster) << "block " << b << ": cluster_nctaid().x";
    EXPECT_EQ(got[5], 1u) << "block " << b << ": cluster_nctaid().y * z";
  }
}

// --- expect-tx and complete-tx on a peer CTA's barrier ---------------------------------------

// In a 2-CTA cluster, CTA 0 announces 64 transaction bytes on CTA 1's barrier (and arrives, its
// one expected arrival), then marks them delivered in two halves. CTA 1 samples its barrier
// between the steps: the phase may complete only after the last byte. out[0..2] = CTA 1's
// three samples (0: pending, 1: complete).
__global__ void remote_transactions(std::uint32_t* out) {
  __shared__ std::uint64_t bar;
  const std::uint32_t rank = ptx::cluster_ctarank();
  const linpipe::MbarHandle handle(&bar);
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init();
  }
  const auto cluster_sync = [] {
    ptx::barrier_cluster_arrive();
    ptx::barrier_cluster_wait();
  };
  cluster_sync();
  if (rank == 0 && threadIdx.x == 0) handle.arrive_expect_tx_cluster(1, 64);
  cluster_sync();
  if (rank == 1 && threadIdx.x == 0) out[0] = ptx::mbarrier_test_wait_parity(&bar, 0);
  cluster_sync();
  if (rank == 0 && threadIdx.x == 0) handle.complete_tx_cluster(1, 32);
  cluster_sync();
  if (rank == 1 && threadIdx.x == 0) out[1] = ptx::mbarrier_test_wait_parity(&bar, 0);
  cluster_sync();
  if (rank == 0 && threadIdx.x == 0) {
    handle.expect_tx_cluster(1, 16);  // 16 more, without arriving
    handle.complete_tx_cluster(1, 48);
  }
  if (rank == 1 && threadIdx.x == 0) out[2] = wait_parity(&bar, 0);
  cluster_sync();
}

TEST(PtxWrappers, PeerBarrierCompletesOnlyAfterItsLastTransactionByte) {
  LINPIPE_REQUIRE_GPU();
  std::uint32_t* out = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&out, 3 * sizeof(std::uint32_t)));
  LINPIPE_CUDA_OK(cudaMemset(out, 0xFF, 3 * sizeof(std::uint32_t)));
  LINPIPE_CUDA_OK(launch_clusters(remote_transactions, 2, 32, 2, out));
  LINPIPE_CUDA_OK(cudaDeviceSynchronize());
  const auto host = to_host(out, 3);
  LINPIPE_CUDA_OK(cudaFree(out));
  ASSERT_EQ(host.size(), 3u);
  EXPECT_EQ(host[0], 0u) << "completed with 64 bytes announced and none delivered";
  EXPECT_EQ(host[1], 0u) << "completed with 32 of 64 bytes delivered";
  EXPECT_EQ(host[2], 1u) << "never completed after every announced byte was delivered";
}

// --- multicast bulk copy -------------------------------------------------------------------

constexpr std::uint32_t multicast_bytes = 4096;

// CTA 0 reads `src` once and multicasts it into both CTAs of the cluster; each CTA's barrier
// expects the bytes, waits, and copies what landed to out[rank].
__global__ void multicast_copy(const std::byte* src, std::byte* out, std::uint32_t* timed_out) {
  __shared__ __align__(128) std::byte landing[multicast_bytes];
  __shared__ std::uint64_t bar;
  const std::uint32_t rank = ptx::cluster_ctarank();
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init();
  }
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
  if (threadIdx.x == 0) {
    (void)ptx::mbarrier_arrive_expect_tx(&bar, multicast_bytes);
    if (rank == 0) ptx::cp_async_bulk_global_to_shared_multicast(landing, src, multicast_bytes, &bar, 0b11);
    if (!wait_parity(&bar, 0)) atomicAdd(timed_out, 1u);
  }
  __syncthreads();
  for (std::uint32_t i = threadIdx.x; i < multicast_bytes; i += blockDim.x)
    out[rank * multicast_bytes + i] = landing[i];
  ptx::barrier_cluster_arrive();  // no CTA leaves while a copy may still land in it
  ptx::barrier_cluster_wait();
}

TEST(PtxWrappers, MulticastBulkCopyLandsInEveryMaskedCta) {
  LINPIPE_REQUIRE_GPU();
  std::vector<std::byte> input(multicast_bytes);
  for (std::uint32_t i = 0; i < multicast_bytes; ++i) input[i] = std::byte((i * 37u + 11u) & 0xFF);
  std::byte *src = nullptr, *out = nullptr;
  std::uint32_t* timed_out = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&src, multicast_bytes));
  LINPIPE_CUDA_OK(cudaMalloc(&out, 2 * multicast_bytes));
  LINPIPE_CUDA_OK(cudaMalloc(&timed_out, sizeof(std::uint32_t)));
  LINPIPE_CUDA_OK(cudaMemcpy(src, input.data(), multicast_bytes, cudaMemcpyHostToDevice));
  LINPIPE_CUDA_OK(cudaMemset(out, 0xA5, 2 * multicast_bytes));  // poison
  LINPIPE_CUDA_OK(cudaMemset(timed_out, 0, sizeof(std::uint32_t)));
  LINPIPE_CUDA_OK(launch_clusters(multicast_copy, 2, 128, 2, static_cast<const std::byte*>(src), out,
                                  timed_out));
  LINPIPE_CUDA_OK(cudaDeviceSynchronize());
  const auto landed = to_host(out, 2 * multicast_bytes);
  const auto waits = to_host(timed_out, 1);
  LINPIPE_CUDA_OK(cudaFree(src));
  LINPIPE_CUDA_OK(cudaFree(out));
  LINPIPE_CUDA_OK(cudaFree(timed_out));
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_EQ(waits[0], 0u) << "a CTA's barrier never saw the multicast bytes";
  ASSERT_EQ(landed.size(), 2u * multicast_bytes);
  for (int cta = 0; cta < 2; ++cta) {
    std::uint32_t wrong = 0;
    for (std::uint32_t i = 0; i < multicast_bytes; ++i) wrong += landed[cta * multicast_bytes + i] != input[i];
    EXPECT_EQ(wrong, 0u) << "CTA " << cta << " received wrong bytes";
  }
}

// --- the tensor-map helper -----------------------------------------------------------------

TEST(TensorMap, RejectsWhatTheCopyEngineCannotServe) {
  // Checked before the driver is asked: no GPU needed.
  alignas(16) static std::uint16_t tensor[64 * 128];
  CUtensorMap map;
  const char* why = nullptr;
  linpipe::TensorMap2d desc;
  desc.base = tensor;
  desc.rows = 64;
  desc.cols = 128;
  desc.box_rows = 16;
  desc.box_cols = 64;
  linpipe::TensorMap2d bad = desc;
  bad.base = reinterpret_cast<const std::byte*>(tensor) + 8;
  EXPECT_EQ(linpipe::encode_tensor_map_2d(&map, bad, &why), cudaErrorInvalidValue);
  EXPECT_STREQ(why, "encode_tensor_map: base must be a 16-byte aligned device pointer");
  bad = desc;
  bad.box_cols = 128;  // 256 bytes, wider than the 128-byte swizzle span
  EXPECT_EQ(linpipe::encode_tensor_map_2d(&map, bad, &why), cudaErrorInvalidValue);
  EXPECT_NE(std::string(why).find("swizzle span"), std::string::npos) << why;
  bad = desc;
  bad.cols = 100;  // 200-byte rows: not a multiple of 16
  EXPECT_EQ(linpipe::encode_tensor_map_2d(&map, bad, &why), cudaErrorInvalidValue);
  EXPECT_NE(std::string(why).find("row stride"), std::string::npos) << why;
  bad = desc;
  bad.box_rows = 300;
  EXPECT_EQ(linpipe::encode_tensor_map_2d(&map, bad, &why), cudaErrorInvalidValue);
  EXPECT_NE(std::string(why).find("1..256"), std::string::npos) << why;
}

TEST(TensorMap, A3dMapRejectsPlanesItCannotServe) {
  // Checked before the driver is asked: no GPU needed.
  alignas(16) static std::uint16_t tensor[4 * 64 * 128];
  CUtensorMap map;
  const char* why = nullptr;
  linpipe::TensorMap3d desc;
  desc.base = tensor;
  desc.planes = 4;
  desc.rows = 64;
  desc.cols = 128;
  desc.box_rows = 16;
  desc.box_cols = 64;
  linpipe::TensorMap3d bad = desc;
  bad.planes = 0;
  EXPECT_EQ(linpipe::encode_tensor_map_3d(&map, bad, &why), cudaErrorInvalidValue);
  EXPECT_STREQ(why, "encode_tensor_map: planes, rows and cols must be positive");
  bad = desc;
  bad.plane_stride_bytes = 64 * 256 - 16;  // planes overlapping the last row of the one before
  EXPECT_EQ(linpipe::encode_tensor_map_3d(&map, bad, &why), cudaErrorInvalidValue);
  EXPECT_NE(std::string(why).find("plane stride"), std::string::npos) << why;
  bad = desc;
  bad.plane_stride_bytes = 64 * 256 + 8;
  EXPECT_EQ(linpipe::encode_tensor_map_3d(&map, bad, &why), cudaErrorInvalidValue);
  EXPECT_NE(std::string(why).find("multiple of 16"), std::string::npos) << why;
  bad = desc;
  bad.box_planes = 0;
  EXPECT_EQ(linpipe::encode_tensor_map_3d(&map, bad, &why), cudaErrorInvalidValue);
  EXPECT_NE(std::string(why).find("1..256"), std::string::npos) << why;
}

constexpr int map_rows = 64, map_cols = 128, box_rows = 16, box_cols = 32;

// One TMA load of the box at (col0, row0) through the map into shared memory, copied out.
__global__ void load_box(const __grid_constant__ CUtensorMap map, int col0, int row0,
                         std::uint16_t* out, std::uint32_t* timed_out) {
  __shared__ __align__(128) std::uint16_t box[box_rows * box_cols];
  __shared__ std::uint64_t bar;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init();
    (void)ptx::mbarrier_arrive_expect_tx(&bar, sizeof(box));
    ptx::tma_load_2d(box, &map, col0, row0, &bar);
    if (!wait_parity(&bar, 0)) atomicAdd(timed_out, 1u);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < box_rows * box_cols; i += blockDim.x) out[i] = box[i];
}

// A map of `tensor` (uint16, `rows` x map_cols, in `planes` planes for the 3-D one) in boxes
// of box_rows x box_cols, unswizzled so a box lands row-major and is easy to check.
cudaError_t row_major_box_map_2d(CUtensorMap* map, const void* tensor, int rows) {
  linpipe::TensorMap2d desc;
  desc.base = tensor;
  desc.rows = rows;
  desc.cols = map_cols;
  desc.box_rows = box_rows;
  desc.box_cols = box_cols;
  desc.type = CU_TENSOR_MAP_DATA_TYPE_UINT16;
  desc.swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  const char* why = "";
  return linpipe::encode_tensor_map_2d(map, desc, &why);
}
// The 3-D map's box may also span several planes: `rows_of_box` rows of each of `planes_of_box`
// planes (the same box_rows x box_cols elements in all when rows_of_box x planes_of_box is
// box_rows), stacked plane by plane.
cudaError_t row_major_box_map_3d(CUtensorMap* map, const void* tensor, int planes, int rows,
                                 int rows_of_box = box_rows, int planes_of_box = 1) {
  linpipe::TensorMap3d desc;
  desc.base = tensor;
  desc.planes = planes;
  desc.rows = rows;
  desc.cols = map_cols;
  desc.box_planes = static_cast<std::uint32_t>(planes_of_box);
  desc.box_rows = static_cast<std::uint32_t>(rows_of_box);
  desc.box_cols = box_cols;
  desc.type = CU_TENSOR_MAP_DATA_TYPE_UINT16;
  desc.swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  const char* why = "";
  return linpipe::encode_tensor_map_3d(map, desc, &why);
}

TEST(TensorMap, EncodedMapLoadsTheBoxItDescribes) {
  LINPIPE_REQUIRE_GPU();
  std::vector<std::uint16_t> input(map_rows * map_cols);
  std::iota(input.begin(), input.end(), std::uint16_t{1});
  std::uint16_t *tensor = nullptr, *out = nullptr;
  std::uint32_t* timed_out = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&tensor, input.size() * sizeof(std::uint16_t)));
  LINPIPE_CUDA_OK(cudaMalloc(&out, box_rows * box_cols * sizeof(std::uint16_t)));
  LINPIPE_CUDA_OK(cudaMalloc(&timed_out, sizeof(std::uint32_t)));
  LINPIPE_CUDA_OK(cudaMemcpy(tensor, input.data(), input.size() * sizeof(std::uint16_t),
                             cudaMemcpyHostToDevice));
  LINPIPE_CUDA_OK(cudaMemset(out, 0xFF, box_rows * box_cols * sizeof(std::uint16_t)));
  LINPIPE_CUDA_OK(cudaMemset(timed_out, 0, sizeof(std::uint32_t)));

  CUtensorMap map;
  LINPIPE_CUDA_OK(row_major_box_map_2d(&map, tensor, map_rows));
  constexpr int col0 = 64, row0 = 32;
  load_box<<<1, 128>>>(map, col0, row0, out, timed_out);
  LINPIPE_CUDA_OK(cudaGetLastError());
  LINPIPE_CUDA_OK(cudaDeviceSynchronize());
  const auto box = to_host(out, box_rows * box_cols);
  const auto waits = to_host(timed_out, 1);
  LINPIPE_CUDA_OK(cudaFree(tensor));
  LINPIPE_CUDA_OK(cudaFree(out));
  LINPIPE_CUDA_OK(cudaFree(timed_out));
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_EQ(waits[0], 0u) << "the load never completed on its barrier";
  ASSERT_EQ(box.size(), static_cast<std::size_t>(box_rows * box_cols));
  int wrong = 0;
  for (int r = 0; r < box_rows; ++r)
    for (int c = 0; c < box_cols; ++c)
      wrong += box[r * box_cols + c] != input[(row0 + r) * map_cols + col0 + c];
  EXPECT_EQ(wrong, 0) << "elements of the box differ from the tensor at (" << col0 << ", " << row0 << ")";
}

// One TMA load of the box at (col0, row0, plane) through a 3-D map, copied out; with
// evict_first, through the form with an L2 policy (evict-first).
__global__ void load_box_3d(const __grid_constant__ CUtensorMap map, int col0, int row0, int plane,
                            std::uint16_t* out, std::uint32_t* timed_out, bool evict_first) {
  __shared__ __align__(128) std::uint16_t box[box_rows * box_cols];
  __shared__ std::uint64_t bar;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init();
    (void)ptx::mbarrier_arrive_expect_tx(&bar, sizeof(box));
    if (evict_first) {
      ptx::tma_load_3d(box, &map, col0, row0, plane, &bar, ptx::createpolicy_evict_first());
    } else {
      ptx::tma_load_3d(box, &map, col0, row0, plane, &bar);
    }
    if (!wait_parity(&bar, 0)) atomicAdd(timed_out, 1u);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < box_rows * box_cols; i += blockDim.x) out[i] = box[i];
}

// The values 1, 2, ... in a tensor of `planes` x `rows` x map_cols, loaded through a 3-D map
// whose box is rows_of_box rows of each of planes_of_box planes, at (col0, row0, plane): the
// box as it landed in shared memory, or nothing (with a failure) if the load never completed.
std::vector<std::uint16_t> load_3d(const std::vector<std::uint16_t>& input, int planes, int rows,
                                   int rows_of_box, int planes_of_box, int col0, int row0, int plane,
                                   bool evict_first = false) {
  std::uint16_t *tensor = nullptr, *out = nullptr;
  std::uint32_t* timed_out = nullptr;
  CUtensorMap map;
  const bool ready =
      cudaMalloc(&tensor, input.size() * sizeof(std::uint16_t)) == cudaSuccess &&
      cudaMalloc(&out, box_rows * box_cols * sizeof(std::uint16_t)) == cudaSuccess &&
      cudaMalloc(&timed_out, sizeof(std::uint32_t)) == cudaSuccess &&
      cudaMemcpy(tensor, input.data(), input.size() * sizeof(std::uint16_t), cudaMemcpyHostToDevice) ==
          cudaSuccess &&
      cudaMemset(out, 0xFF, box_rows * box_cols * sizeof(std::uint16_t)) == cudaSuccess &&
      cudaMemset(timed_out, 0, sizeof(std::uint32_t)) == cudaSuccess &&
      row_major_box_map_3d(&map, tensor, planes, rows, rows_of_box, planes_of_box) == cudaSuccess;
  EXPECT_TRUE(ready) << "could not set up the load";
  std::vector<std::uint16_t> box;
  if (ready) {
    load_box_3d<<<1, 128>>>(map, col0, row0, plane, out, timed_out, evict_first);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const auto waits = to_host(timed_out, 1);
    EXPECT_TRUE(waits.size() == 1 && waits[0] == 0) << "the load never completed on its barrier";
    if (waits.size() == 1 && waits[0] == 0) box = to_host(out, box_rows * box_cols);
  }
  for (void* p : {static_cast<void*>(tensor), static_cast<void*>(out), static_cast<void*>(timed_out)})
    (void)cudaFree(p);
  return box;
}

// The 3-D loads and stores, each through its plain form and its form with an evict-first L2
// policy (attention's Q loads and O stores): the hint changes where lines sit in L2, never
// what lands.
class TensorMapPolicy : public testing::TestWithParam<bool> {};
INSTANTIATE_TEST_SUITE_P(PlainAndEvictFirst, TensorMapPolicy, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& info) {
                           return info.param ? "EvictFirst" : "NoPolicy";
                         });

// A box that runs past the last row of a plane brings zeros for the missing rows, not the next
// plane's first rows (what lets a kernel tile each head of batch x heads x seq on its own).
TEST_P(TensorMapPolicy, A3dBoxStopsAtTheEndOfItsPlane) {
  LINPIPE_REQUIRE_GPU();
  constexpr int planes = 3, rows = 20;  // a box of 16 rows at row 8 runs 4 rows past the plane
  std::vector<std::uint16_t> input(planes * rows * map_cols);
  std::iota(input.begin(), input.end(), std::uint16_t{1});
  constexpr int col0 = 32, row0 = 8, plane = 1;
  const auto box = load_3d(input, planes, rows, box_rows, 1, col0, row0, plane, GetParam());
  ASSERT_EQ(box.size(), static_cast<std::size_t>(box_rows * box_cols));
  int wrong = 0, leaked = 0;
  for (int r = 0; r < box_rows; ++r) {
    for (int c = 0; c < box_cols; ++c) {
      const std::uint16_t got = box[r * box_cols + c];
      if (row0 + r < rows) {
        wrong += got != input[(plane * rows + row0 + r) * map_cols + col0 + c];
      } else {
        leaked += got != 0;
      }
    }
  }
  EXPECT_EQ(wrong, 0) << "rows inside plane " << plane << " differ from the tensor";
  EXPECT_EQ(leaked, 0) << "rows past the plane's end are not zeros (the next plane's rows leaked in?)";
}

// What a TMA store of the box (values 1..N, row-major) to (col0, row0) of plane `plane` left in
// a tensor of `planes` x `rows` x map_cols poisoned with 0xA5A5: the box's elements that differ
// from what was stored, and the elements outside the box (or past its plane's end) written.
struct StoredBox {
  int wrong_inside = 0;
  int touched_outside = 0;
};
StoredBox check_stored_box(const std::vector<std::uint16_t>& got, int planes, int rows, int plane,
                           int row0, int col0) {
  constexpr std::uint16_t poison = 0xA5A5;
  StoredBox result;
  for (int p = 0; p < planes; ++p) {
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < map_cols; ++c) {
        const bool inside = p == plane && r >= row0 && r < row0 + box_rows && c >= col0 &&
                            c < col0 + box_cols;
        const std::uint16_t value = got[(static_cast<std::size_t>(p) * rows + r) * map_cols + c];
        if (inside) {
          result.wrong_inside += value != (r - row0) * box_cols + (c - col0) + 1;
        } else {
          result.touched_outside += value != poison;
        }
      }
    }
  }
  return result;
}

// One TMA store of a box written in shared memory (values 1..N) to (col0, row0) of the map.
__global__ void store_box(const __grid_constant__ CUtensorMap map, int col0, int row0) {
  __shared__ __align__(128) std::uint16_t box[box_rows * box_cols];
  for (int i = threadIdx.x; i < box_rows * box_cols; i += blockDim.x)
    box[i] = static_cast<std::uint16_t>(i + 1);
  ptx::fence_proxy_async_shared_cta();  // every writer's stores, visible to the copy engine
  __syncthreads();
  if (threadIdx.x == 0) {
    ptx::tma_store_2d(&map, col0, row0, box);
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group<0>();  // written before the block (and its box) goes away
  }
}

TEST(TensorMap, TmaStoreWritesExactlyTheBoxItDescribes) {
  LINPIPE_REQUIRE_GPU();
  std::uint16_t* tensor = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&tensor, map_rows * map_cols * sizeof(std::uint16_t)));
  LINPIPE_CUDA_OK(cudaMemset(tensor, 0xA5, map_rows * map_cols * sizeof(std::uint16_t)));
  CUtensorMap map;
  LINPIPE_CUDA_OK(row_major_box_map_2d(&map, tensor, map_rows));
  constexpr int col0 = 32, row0 = 16;
  store_box<<<1, 128>>>(map, col0, row0);
  LINPIPE_CUDA_OK(cudaGetLastError());
  LINPIPE_CUDA_OK(cudaDeviceSynchronize());
  const auto got = to_host(tensor, map_rows * map_cols);
  LINPIPE_CUDA_OK(cudaFree(tensor));
  ASSERT_EQ(got.size(), static_cast<std::size_t>(map_rows * map_cols));
  const auto [wrong_inside, touched_outside] = check_stored_box(got, 1, map_rows, 0, row0, col0);
  EXPECT_EQ(wrong_inside, 0) << "the box did not land row-major at (" << col0 << ", " << row0 << ")";
  EXPECT_EQ(touched_outside, 0) << "elements outside the box were written";
}

// One TMA store of a box (values 1..N) to (col0, row0) of plane `plane` of a 3-D map; with
// evict_first, through the form with an L2 policy (evict-first).
__global__ void store_box_3d(const __grid_constant__ CUtensorMap map, int col0, int row0, int plane,
                             bool evict_first = false) {
  __shared__ __align__(128) std::uint16_t box[box_rows * box_cols];
  for (int i = threadIdx.x; i < box_rows * box_cols; i += blockDim.x)
    box[i] = static_cast<std::uint16_t>(i + 1);
  ptx::fence_proxy_async_shared_cta();
  __syncthreads();
  if (threadIdx.x == 0) {
    if (evict_first) {
      ptx::tma_store_3d(&map, col0, row0, plane, box, ptx::createpolicy_evict_first());
    } else {
      ptx::tma_store_3d(&map, col0, row0, plane, box);
    }
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group<0>();
  }
}

// A stored box that runs past the last row of its plane writes the rows inside the plane only:
// the next plane's first rows keep their values (what lets attention store a ragged last query
// block of one head without masking).
TEST_P(TensorMapPolicy, A3dStoreStopsAtTheEndOfItsPlane) {
  LINPIPE_REQUIRE_GPU();
  constexpr int planes = 3, rows = 20;  // a box of 16 rows at row 8 runs 4 rows past the plane
  const std::size_t elements = static_cast<std::size_t>(planes) * rows * map_cols;
  std::uint16_t* tensor = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&tensor, elements * sizeof(std::uint16_t)));
  LINPIPE_CUDA_OK(cudaMemset(tensor, 0xA5, elements * sizeof(std::uint16_t)));
  CUtensorMap map;
  LINPIPE_CUDA_OK(row_major_box_map_3d(&map, tensor, planes, rows));
  constexpr int col0 = 32, row0 = 8, plane = 1;
  store_box_3d<<<1, 128>>>(map, col0, row0, plane, GetParam());
  LINPIPE_CUDA_OK(cudaGetLastError());
  LINPIPE_CUDA_OK(cudaDeviceSynchronize());
  const auto got = to_host(tensor, elements);
  LINPIPE_CUDA_OK(cudaFree(tensor));
  ASSERT_EQ(got.size(), elements);
  const auto [wrong_inside, touched_outside] = check_stored_box(got, planes, rows, plane, row0, col0);
  EXPECT_EQ(wrong_inside, 0) << "the box's rows inside plane " << plane << " did not land row-major";
  EXPECT_EQ(touched_outside, 0) << "elements outside the box or past the plane's end were written";
}

// Grouped-query attention's Q loads and O stores: a box of 8 rows of each of 2 planes, at
// row 16 of planes whose 20 rows leave 4 in each. Loaded, each plane's rows land after the
// last plane's (plane by plane, row by row), its missing rows as zeros; stored, each plane's
// rows inside it are written and nothing else.
constexpr int stacked_planes = 3, stacked_rows = 20, stacked_box_rows = 8, stacked_box_planes = 2;
static_assert(stacked_box_rows * stacked_box_planes == box_rows, "the stacked box fills the kernels' box buffer");

TEST(TensorMap, A3dBoxOfSeveralPlanesStacksThemAndStopsEachAtItsEnd) {
  LINPIPE_REQUIRE_GPU();
  std::vector<std::uint16_t> input(stacked_planes * stacked_rows * map_cols);
  std::iota(input.begin(), input.end(), std::uint16_t{1});
  constexpr int col0 = 32, row0 = 16, plane = 1;
  const auto box = load_3d(input, stacked_planes, stacked_rows, stacked_box_rows, stacked_box_planes, col0,
                           row0, plane);
  ASSERT_EQ(box.size(), static_cast<std::size_t>(box_rows * box_cols));
  int wrong = 0, leaked = 0;
  for (int p = 0; p < stacked_box_planes; ++p) {
    for (int r = 0; r < stacked_box_rows; ++r) {
      for (int c = 0; c < box_cols; ++c) {
        const std::uint16_t got = box[(p * stacked_box_rows + r) * box_cols + c];
        if (row0 + r < stacked_rows) {
          wrong += got != input[((plane + p) * stacked_rows + row0 + r) * map_cols + col0 + c];
        } else {
          leaked += got != 0;
        }
      }
    }
  }
  EXPECT_EQ(wrong, 0) << "rows inside the planes are not stacked plane by plane";
  EXPECT_EQ(leaked, 0) << "rows past a plane's end are not zeros";
}

TEST(TensorMap, A3dStoreOfSeveralPlanesWritesEachPlanesRowsOnly) {
  LINPIPE_REQUIRE_GPU();
  const std::size_t elements = static_cast<std::size_t>(stacked_planes) * stacked_rows * map_cols;
  std::uint16_t* tensor = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&tensor, elements * sizeof(std::uint16_t)));
  LINPIPE_CUDA_OK(cudaMemset(tensor, 0xA5, elements * sizeof(std::uint16_t)));
  CUtensorMap map;
  LINPIPE_CUDA_OK(row_major_box_map_3d(&map, tensor, stacked_planes, stacked_rows, stacked_box_rows,
                                       stacked_box_planes));
  constexpr int col0 = 32, row0 = 16, plane = 1;
  store_box_3d<<<1, 128>>>(map, col0, row0, plane);  // box element i holds i + 1
  LINPIPE_CUDA_OK(cudaGetLastError());
  LINPIPE_CUDA_OK(cudaDeviceSynchronize());
  const auto got = to_host(tensor, elements);
  LINPIPE_CUDA_OK(cudaFree(tensor));
  ASSERT_EQ(got.size(), elements);
  int wrong_inside = 0, touched_outside = 0;
  for (int p = 0; p < stacked_planes; ++p) {
    for (int r = 0; r < stacked_rows; ++r) {
      for (int c = 0; c < map_cols; ++c) {
        const std::uint16_t value = got[(static_cast<std::size_t>(p) * stacked_rows + r) * map_cols + c];
        const bool inside = p >= plane && p < plane + stacked_box_planes && r >= row0 &&
                            r < row0 + stacked_box_rows && c >= col0 && c < col0 + box_cols;
        if (inside) {
          wrong_inside += value != ((p - plane) * stacked_box_rows + r - row0) * box_cols + c - col0 + 1;
        } else {
          touched_outside += value != 0xA5A5;
        }
      }
    }
  }
  EXPECT_EQ(wrong_inside, 0) << "the box's planes did not land each in its own plane";
  EXPECT_EQ(touched_outside, 0) << "elements outside the box or past a plane's end were written";
}

// %gridid differs between launches (what the debug init token relies on), and is the same for
// every block of one launch.
__global__ void launch_id(unsigned long long* out) {
  if (threadIdx.x == 0) out[blockIdx.x] = ptx::grid_launch_id();
}

TEST(PtxWrappers, GridLaunchIdDiffersBetweenLaunchesOnly) {
  LINPIPE_REQUIRE_GPU();
  unsigned long long* ids = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&ids, 4 * sizeof(unsigned long long)));
  launch_id<<<2, 32>>>(ids);
  launch_id<<<2, 32>>>(ids + 2);
  LINPIPE_CUDA_OK(cudaDeviceSynchronize());
  const auto got = to_host(ids, 4);
  LINPIPE_CUDA_OK(cudaFree(ids));
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0], got[1]) << "two blocks of one launch";
  EXPECT_EQ(got[2], got[3]) << "two blocks of one launch";
  EXPECT_NE(got[0], got[2]) << "two launches";
}

// --- ex2.approx.ftz -----------------------------------------------------------------------

__global__ void exp2_flushed(const float* in, float* out, int count) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < count) out[i] = ptx::ex2_approx_ftz(in[i]);
}

// What a softmax relies on: 2^x to a few ulps from where the result leaves the normal range
// (x = -126; a softmax feeds it x <= 0) up to 8, exactly 0 below that and for -inf, 1 at 0,
// +inf kept, and a NaN score kept NaN.
TEST(PtxWrappers, FlushedExp2IsAccurateWhereNormalAndZeroBelow) {
  LINPIPE_REQUIRE_GPU();
  std::vector<float> x;
  for (float v = -126.0f; v <= 8.0f; v += 0.0078125f * 13) x.push_back(v);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (const float v : {0.0f, -0.0f, -126.5f, -140.0f, -1e30f, -inf, inf, nan}) x.push_back(v);
  const int count = static_cast<int>(x.size());
  float *in = nullptr, *out = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&in, count * sizeof(float)));
  LINPIPE_CUDA_OK(cudaMalloc(&out, count * sizeof(float)));
  LINPIPE_CUDA_OK(cudaMemcpy(in, x.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  exp2_flushed<<<(count + 255) / 256, 256>>>(in, out, count);
  LINPIPE_CUDA_OK(cudaDeviceSynchronize());
  const auto got = to_host(out, static_cast<std::size_t>(count));
  LINPIPE_CUDA_OK(cudaFree(in));
  LINPIPE_CUDA_OK(cudaFree(out));
  ASSERT_EQ(got.size(), x.size());
  for (int i = 0; i < count; ++i) {
    const float v = x[i];
    SCOPED_TRACE(::testing::Message() << "2^" << v << " gave " << got[i]);
    if (std::isnan(v)) {
      EXPECT_TRUE(std::isnan(got[i]));
    } else if (v == inf) {
      EXPECT_EQ(got[i], inf);
    } else if (v < -126.0f) {  // the exact result is subnormal or smaller: flushed
      EXPECT_EQ(got[i], 0.0f);
    } else {
      const double exact = std::exp2(static_cast<double>(v));
      EXPECT_LE(std::abs(got[i] - exact), exact * 0x1p-21) << "beyond 2^-21 relative";
    }
  }
  EXPECT_EQ(got[count - 8], 1.0f) << "2^0";
}

}  // namespace
