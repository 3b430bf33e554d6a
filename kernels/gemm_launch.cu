// gemm_bf16's host side, compiled once: argument checks, the operands' tensor maps and the
// launch (linpipe::launch: a persistent grid of the clusters that fit at once, the
// shared-memory opt-in, the debug report sink) of the kernels in gemm_kernels.cu and
// gemm_traced_kernels.cu. No device code here.
#include "gemm.h"

#include <cuda.h>  // CUtensorMap and its enums: types only, nothing links libcuda
#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

import linpipe;

#include "gemm_kernels.h"

namespace linpipe::kernels {
namespace {

// A row-major bf16 matrix (rows x cols) in boxes of box_rows x gemm_tile_k (128B-swizzled):
// the K-major operands A and B, and C for the epilogue's stores.
cudaError_t encode_operand(CUtensorMap* map, const void* base, int rows, int cols, int box_rows) {
  TensorMap2d desc;
  desc.base = base;
  desc.rows = static_cast<std::uint64_t>(rows);
  desc.cols = static_cast<std::uint64_t>(cols);
  desc.box_rows = static_cast<std::uint32_t>(box_rows);
  desc.box_cols = gemm_tile_k;
  return encode_tensor_map_2d(map, desc);
}

// A matrix's map, remembered per thread (the last few): a map is a pure function of (base,
// rows, cols, box rows), so a hit is exactly what a fresh encode would give, even for a buffer
// freed and reallocated at the same address, and a thread-local table needs no lock.
cudaError_t cached_operand(CUtensorMap* map, const void* base, int rows, int cols, int box_rows) {
  struct Entry {
    CUtensorMap map;
    const void* base;  // nullptr: empty (a null operand is rejected before this)
    int rows, cols, box_rows;
  };
  thread_local std::array<Entry, 8> entries{};
  thread_local unsigned next = 0;
  for (const Entry& e : entries) {
    if (e.base == base && e.rows == rows && e.cols == cols && e.box_rows == box_rows) {
      *map = e.map;
      return cudaSuccess;
    }
  }
  const cudaError_t status = encode_operand(map, base, rows, cols, box_rows);
  if (status == cudaSuccess) entries[next++ % entries.size()] = Entry{*map, base, rows, cols, box_rows};
  return status;
}

bool pingpong(const GemmConfig& config) { return config.schedule == GemmSchedule::pingpong; }
bool stream_k(const GemmConfig& config) { return config.split == GemmSplit::stream_k; }
// The columns of one kernel's output tile (its B slices' rows).
int tile_n(const GemmConfig& config) { return pingpong(config) ? gemm_pingpong_tile_n : gemm_tile_n; }

GemmKernel kernel_for(const GemmConfig& config) {
  return pingpong(config) ? pingpong_gemm_kernel(config.cluster_m) : gemm_kernel_for_cluster(config.cluster_m);
}

// A persistent launch of one CTA per output tile at most (a cluster per cluster_m tiles; the
// ping-pong kernel's two warpgroups take a tile each, so it has work for half as many). Stream-K
// shares k-steps, so it has work for a CTA a k-step: with fewer tiles than SMs it still takes
// the whole device (a grid of one CTA a tile would leave nothing to split).
LaunchOptions options_for(int m, int n, int k, const GemmConfig& config, cudaStream_t stream) {
  const std::uint64_t tiles = static_cast<std::uint64_t>(m / gemm_tile_m) * (n / tile_n(config));
  const std::uint64_t items = pingpong(config)  ? (tiles + 1) / 2
                              : stream_k(config) ? tiles * static_cast<std::uint64_t>(k / gemm_tile_k)
                                                 : tiles;
  const std::size_t shared_bytes = pingpong(config) ? pingpong_gemm_shared_bytes() : gemm_shared_bytes();
  return {.threads = gemm_threads, .shared_bytes = shared_bytes, .items = items,
          .grid = GridKind::persistent, .cluster = static_cast<unsigned>(config.cluster_m),
          .stream = stream, .early_start = config.early_start};
}

// Launches `kernel` (untraced or traced, for config.cluster_m) with the operands' maps.
template <class Kernel, class... Target>
cudaError_t launch_gemm(Kernel kernel, const void* a, const void* b, void* c, int m, int n, int k,
                        const GemmConfig& config, cudaStream_t stream, const char** why,
                        Target... trace) {
  const int cluster = config.cluster_m;
  CUtensorMap map_a, map_b, map_c;
  cudaError_t status = cached_operand(&map_a, a, m, k, gemm_tile_m);
  if (status != cudaSuccess) return status;
  // Each CTA of a cluster loads 1 / cluster of the B tile (multicast into every CTA).
  if ((status = cached_operand(&map_b, b, n, k, tile_n(config) / cluster)) != cudaSuccess) return status;
  static_assert(gemm_c_box_cols == gemm_tile_k, "C's boxes are encoded with the operands' width");
  if ((status = cached_operand(&map_c, c, m, n, gemm_c_box_rows)) != cudaSuccess) return status;
  const int group_rows = config.group_rows / cluster > 0 ? config.group_rows / cluster : 1;
  const LaunchResult launched = launch(kernel, options_for(m, n, k, config, stream), map_a, map_b,
                                       map_c, m, n, k, group_rows, config.warpgroup_release,
                                       trace...);
  if (!launched && why != nullptr) *why = kept_why(launched);
  return launched.status;
}

// A stream-K workspace: the flags first, sized for the device's largest grid (so a smaller
// grid's partials never land on flags a larger one used), then a partial slot per CTA.
std::size_t stream_k_flag_region(unsigned max_ctas) {
  return (max_ctas * gemm_flag_bytes_per_cta + 255) / 256 * 256;
}
// The stream-K kernel's persistent grid: on the default stream's SMs (what fits at once
// there), or on every SM of the device (the grid a workspace's layout is cut for, so that one
// workspace serves launches from an MPS share, a green context and the whole device alike: cut
// for a smaller grid, a larger one's partials would land on the smaller one's flags).
LaunchOptions stream_k_grid_options() {
  return {.threads = gemm_threads, .shared_bytes = gemm_shared_bytes(), .items = 1ull << 40,
          .grid = GridKind::persistent};
}
LaunchResult stream_k_max_grid() { return launch_grid(stream_k_gemm_kernel(), stream_k_grid_options()); }
// The grid a launch on `stream` gets: its SM share's (an MPS client's, a green context's).
LaunchResult stream_k_grid_on(cudaStream_t stream) {
  LaunchOptions on_stream = stream_k_grid_options();
  on_stream.stream = stream;
  return launch_grid(stream_k_gemm_kernel(), on_stream);
}
LaunchResult stream_k_layout_grid() {
  return launch_grid_on_device(stream_k_gemm_kernel(), stream_k_grid_options());
}

// The stream-K launch: the workspace checked against what gemm_bf16_workspace_bytes asks (the
// largest grid's, whatever this launch's grid), then cut into flags and partial slots.
cudaError_t launch_stream_k(const void* a, const void* b, void* c, int m, int n, int k,
                            const GemmConfig& config, cudaStream_t stream, const char** why) {
  const LaunchResult max_grid = stream_k_layout_grid();
  if (!max_grid) {
    if (why != nullptr) *why = kept_why(max_grid);
    return max_grid.status;
  }
  const std::size_t flags = stream_k_flag_region(max_grid.grid);
  if (config.workspace_bytes < flags + max_grid.grid * gemm_partial_bytes_per_cta) {
    if (why != nullptr)
      *why = "workspace_bytes is less than gemm_bf16_workspace_bytes(config) on this device: allocate "
             "that many bytes for GemmSplit::stream_k (and zero them once)";
    return cudaErrorInvalidValue;
  }
  auto* base = static_cast<std::byte*>(config.workspace);
  const GemmPartials partials{reinterpret_cast<float*>(base + flags), reinterpret_cast<std::uint32_t*>(base),
                              static_cast<std::uint32_t>(config.stream_k_shared_waves), config.stream_k_in_phase};
  return launch_gemm(stream_k_gemm_kernel(), a, b, c, m, n, k, config, stream, why, partials);
}

// The checks both entry points make, before any CUDA call: a reason, or nullptr.
const char* rejected(const void* a, const void* b, const void* c, int m, int n, int k,
                     const GemmConfig& config) {
  if (config.cluster_m != 1 && config.cluster_m != 2)
    return "cluster_m must be 1 (one CTA a tile) or 2 (2-CTA clusters sharing B)";
  if (config.schedule != GemmSchedule::cooperative && config.schedule != GemmSchedule::pingpong)
    return "schedule must be GemmSchedule::cooperative or GemmSchedule::pingpong";
  if (config.split != GemmSplit::none && config.split != GemmSplit::stream_k)
    return "split must be GemmSplit::none or GemmSplit::stream_k";
  if (stream_k(config) && (pingpong(config) || config.cluster_m != 1))
    return "GemmSplit::stream_k runs the cooperative schedule one CTA a tile: set schedule = "
           "GemmSchedule::cooperative and cluster_m = 1, or split = GemmSplit::none";
  if (stream_k(config) && config.stream_k_shared_waves != 0 && config.stream_k_shared_waves != 1)
    return "stream_k_shared_waves must be 0 (the last partial wave alone) or 1 (and one whole wave)";
  if (stream_k(config) && (config.workspace == nullptr || reinterpret_cast<std::uintptr_t>(config.workspace) % 16 != 0))
    return "GemmSplit::stream_k needs a workspace: 16-byte aligned device memory of "
           "gemm_bf16_workspace_bytes(config) bytes, zeroed once";
  if (m <= 0 || m % gemm_tile_m != 0) return "M must be a positive multiple of 128 (the tile's rows)";
  if (m % (gemm_tile_m * config.cluster_m) != 0)
    return "M must be a multiple of 256 with cluster_m = 2 (two tiles a cluster); use cluster_m = 1";
  if (n <= 0 || n % tile_n(config) != 0) {
    return pingpong(config) ? "N must be a positive multiple of 128 (the ping-pong tile's columns)"
                            : "N must be a positive multiple of 256 (the tile's columns; GemmSchedule::pingpong "
                              "takes multiples of 128)";
  }
  if (k <= 0 || k % gemm_tile_k != 0) return "K must be a positive multiple of 64 (the tile's depth)";
  if (a == nullptr || b == nullptr || c == nullptr) return "A, B and C must be device pointers, not null";
  if (reinterpret_cast<std::uintptr_t>(a) % 16 != 0 || reinterpret_cast<std::uintptr_t>(b) % 16 != 0 ||
      reinterpret_cast<std::uintptr_t>(c) % 16 != 0)
    return "A, B and C must be 16-byte aligned (the tensor copy engine's granule)";
  if (config.group_rows < 1 || config.group_rows > 256)
    return "group_rows must be 1..256 (tile rows the scheduler walks together)";
  if (static_cast<std::uint64_t>(m / gemm_tile_m) * static_cast<std::uint64_t>(n / tile_n(config)) > 0x7fffffffu)
    return "M / 128 x N / 256 (ping-pong: N / 128) output tiles must be fewer than 2^31 (the schedule numbers "
           "them in 32 bits)";
  return nullptr;
}

cudaError_t reject(const char* reason, const char** why) {
  if (why != nullptr) *why = reason;
  return cudaErrorInvalidValue;
}

// Whether gemm_config_for(m, n, k)'s cooperative pick is split by k-steps on `grid`. Callers
// check the schedule first, so a ping-pong shape never asks for a grid.
bool split_pays(int m, int n, int k, const LaunchResult& grid) {
  return grid && gemm_stream_k_pays(m, n, k, static_cast<int>(grid.grid));
}
// The cooperative `whole` split by k-steps in phase, one whole wave shared, with the workspace
// `memory`.
GemmConfig split_with(const GemmConfig& whole, void* memory, std::size_t bytes) {
  GemmConfig split = whole;
  split.split = GemmSplit::stream_k;
  split.workspace = memory;
  split.workspace_bytes = bytes;
  split.stream_k_shared_waves = 1;
  split.stream_k_in_phase = true;  // the faster form at every shape split by k-steps (docs/benchmarks.md)
  return split;
}

}  // namespace

cudaError_t gemm_bf16(const void* a, const void* b, void* c, int m, int n, int k,
                      const GemmConfig& config, cudaStream_t stream, const char** why) {
  if (const char* reason = rejected(a, b, c, m, n, k, config)) return reject(reason, why);
  if (stream_k(config)) return launch_stream_k(a, b, c, m, n, k, config, stream, why);
  return launch_gemm(kernel_for(config), a, b, c, m, n, k, config, stream, why);
}

GemmConfig gemm_config_for(int m, int n, int k) {
  GemmConfig config;
  const bool cooperative_takes_n = n % gemm_tile_n == 0;
  if (n > 0 && n % gemm_pingpong_tile_n == 0 && (!cooperative_takes_n || k <= gemm_pingpong_max_k)) {
    config.schedule = GemmSchedule::pingpong;
    config.cluster_m = m > 0 && m % (2 * gemm_tile_m) == 0 ? 2 : 1;
  }
  return config;
}

cudaError_t gemm_bf16(const void* a, const void* b, void* c, int m, int n, int k,
                      cudaStream_t stream, const char** why) {
  GemmConfig config = gemm_config_for(m, n, k);
  if (const char* reason = rejected(a, b, c, m, n, k, config)) return reject(reason, why);
  if (config.schedule == GemmSchedule::cooperative && split_pays(m, n, k, stream_k_grid_on(stream))) {
    // The stream's own workspace: launches on one stream run in turn, and each leaves the flags
    // at zero. Without one (out of memory), the whole-tile kernel, and the failed allocation's
    // error is not left for cudaGetLastError to report.
    static const char workspace_tag = 0;
    std::size_t bytes = 0;
    void* memory = nullptr;
    if (gemm_bf16_workspace_bytes(GemmConfig{.split = GemmSplit::stream_k}, &bytes) == cudaSuccess &&
        stream_scratch(stream, &workspace_tag, bytes, &memory) == cudaSuccess)
      config = split_with(config, memory, bytes);
    else if (cudaPeekAtLastError() == cudaErrorMemoryAllocation)
      (void)cudaGetLastError();
  }
  return gemm_bf16(a, b, c, m, n, k, config, stream, why);
}

cudaError_t gemm_bf16_release_stream(cudaStream_t stream) { return stream_scratch_release(stream); }
cudaError_t gemm_bf16_trim_workspaces(std::size_t* kept) { return stream_scratch_trim(kept); }

bool gemm_stream_k_pays(int m, int n, int k, int ctas) {
  if (m <= 0 || n <= 0 || k <= 0 || ctas <= 0) return false;
  const long tiles = static_cast<long>(m / gemm_tile_m) * (n / gemm_tile_n), k_steps = k / gemm_tile_k;
  // Nothing to share (even waves, a single k-step): the schedule's own rule.
  if (StreamKPlan::for_grid(static_cast<std::uint32_t>(tiles), static_cast<std::uint32_t>(k_steps),
                            static_cast<std::uint32_t>(ctas)).split_tiles == 0)
    return false;
  if (tiles < ctas) {
    // Every tile shared: each CTA runs about tiles x k_steps / ctas k-steps instead of a whole
    // tile's, and a tile's finisher adds one 128 KiB partial a peer (about three k-steps' time
    // read from L2; docs/benchmarks.md).
    const long run = (tiles * k_steps + ctas - 1) / ctas, peers = (ctas + tiles - 1) / tiles - 1;
    constexpr long k_steps_per_partial = 3;
    return k_steps - run > k_steps_per_partial * peers;
  }
  // A wave or more: the shared k-steps' runs lose some of the whole waves' L2 reuse, which the
  // last wave's idle SMs pay for where it is at most 90% full, up to 3 waves (H100,
  // 2026-12-07: 1.2-1.65x the cooperative kernel at 1.06-2.18 waves, 0.98 at 3.88).
  const long waves = (tiles + ctas - 1) / ctas;
  return waves <= 3 && 10 * (waves * ctas - tiles) >= waves * ctas;
}

GemmConfig gemm_config_for(int m, int n, int k, const GemmWorkspace& workspace) {
  const GemmConfig whole = gemm_config_for(m, n, k);
  if (workspace.status() != cudaSuccess || whole.schedule != GemmSchedule::cooperative ||
      !split_pays(m, n, k, stream_k_max_grid()))
    return whole;
  return split_with(whole, workspace.stream_k().workspace, workspace.bytes());
}

cudaError_t gemm_bf16(const void* a, const void* b, void* c, int m, int n, int k, const GemmWorkspace& workspace,
                      cudaStream_t stream, const char** why) {
  // gemm_config_for(m, n, k, workspace)'s pick for the grid this stream gets (its SM share's).
  const GemmConfig whole = gemm_config_for(m, n, k);
  const bool split = workspace.status() == cudaSuccess && whole.schedule == GemmSchedule::cooperative &&
                     split_pays(m, n, k, stream_k_grid_on(stream));
  return gemm_bf16(a, b, c, m, n, k, split ? split_with(whole, workspace.stream_k().workspace, workspace.bytes()) : whole,
                   stream, why);
}

cudaError_t gemm_bf16_traced(const void* a, const void* b, void* c, int m, int n, int k,
                             const GemmConfig& config, void* trace, unsigned slices,
                             unsigned per_slice, cudaStream_t stream, const char** why) {
  return gemm_bf16_traced(a, b, c, m, n, k, config, trace, slices, per_slice,
                          GemmTraceRoles::all, stream, why);
}

cudaError_t gemm_bf16_traced(const void* a, const void* b, void* c, int m, int n, int k,
                             const GemmConfig& config, void* trace, unsigned slices,
                             unsigned per_slice, GemmTraceRoles roles, cudaStream_t stream,
                             const char** why) {
  if (roles != GemmTraceRoles::producer && roles != GemmTraceRoles::consumers &&
      roles != GemmTraceRoles::all) {
    return reject("roles must be GemmTraceRoles::producer, consumers or all", why);
  }
  if (trace == nullptr || reinterpret_cast<std::uintptr_t>(trace) % 16 != 0 || slices == 0 ||
      per_slice == 0) {
    return reject("trace must be 16-byte aligned device memory of TraceLayout{slices, per_slice}.bytes(), slices and per_slice > 0",
                  why);
  }
  if (const char* reason = rejected(a, b, c, m, n, k, config)) return reject(reason, why);
  if (pingpong(config) || stream_k(config))
    return reject("tracing covers the cooperative kernel without a split: use GemmSchedule::cooperative and "
                  "GemmSplit::none", why);
  return launch_gemm(traced_gemm_kernel_for_cluster(config.cluster_m), a, b, c, m, n, k, config,
                     stream, why,
                     GemmTraceTarget{static_cast<TraceRecord*>(trace), TraceLayout{slices, per_slice},
                                     roles});
}

cudaError_t gemm_bf16_workspace_bytes(const GemmConfig& config, std::size_t* bytes) {
  if (bytes == nullptr) return cudaErrorInvalidValue;
  *bytes = 0;
  if (!stream_k(config)) return cudaSuccess;
  const LaunchResult grid = stream_k_layout_grid();
  if (grid) *bytes = stream_k_flag_region(grid.grid) + grid.grid * gemm_partial_bytes_per_cta;
  return grid.status;
}

GemmWorkspace::GemmWorkspace() {
  GemmConfig split;
  split.split = GemmSplit::stream_k;
  status_ = gemm_bf16_workspace_bytes(split, &bytes_);
  if (status_ == cudaSuccess) status_ = cudaMalloc(&memory_, bytes_);
  if (status_ == cudaSuccess) status_ = cudaMemset(memory_, 0, bytes_);
  if (status_ == cudaSuccess) status_ = cudaDeviceSynchronize();  // zeroed before any stream's launch
  if (status_ != cudaSuccess) {
    (void)cudaFree(memory_);
    memory_ = nullptr;
    bytes_ = 0;
  }
}
GemmWorkspace::~GemmWorkspace() { (void)cudaFree(memory_); }
GemmWorkspace::GemmWorkspace(GemmWorkspace&& other) noexcept
    : memory_(std::exchange(other.memory_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      status_(std::exchange(other.status_, cudaErrorInitializationError)) {}
GemmWorkspace& GemmWorkspace::operator=(GemmWorkspace&& other) noexcept {
  if (this != &other) {
    (void)cudaFree(memory_);
    memory_ = std::exchange(other.memory_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    status_ = std::exchange(other.status_, cudaErrorInitializationError);
  }
  return *this;
}
GemmConfig GemmWorkspace::stream_k(GemmConfig config) const {
  config.split = GemmSplit::stream_k;
  config.workspace = memory_;
  config.workspace_bytes = bytes_;
  return config;
}

cudaError_t gemm_bf16_grid_ctas(const GemmConfig& config, int* ctas) {
  GemmConfig checked = config;
  checked.cluster_m = config.cluster_m == 2 ? 2 : 1;
  // A problem with more tiles than any grid holds: the grid is what fits at once.
  const LaunchResult grid = launch_grid(kernel_for(checked), options_for(1 << 30, 1 << 24, gemm_tile_k, checked, nullptr));
  if (grid) *ctas = static_cast<int>(grid.grid);
  return grid.status;
}

}  // namespace linpipe::kernels
