// gemm_bf16: C = A x B^T in bf16 with fp32 accumulation, a warp-specialised Hopper kernel on
// linpipe (a producer warpgroup loading A and B tiles with TMA into a stage ring, two consumer
// warpgroups multiplying them with wgmma, a persistent grid). Plain host API: no module import.
//
// Layouts (all row-major, dense, no padding):
//   A: M x K  (row i holds A[i][0..K))           element (i, k) at A[i * K + k]
//   B: N x K  (K-major: row j holds B[j][0..K))   element (j, k) at B[j * K + k]
//   C: M x N                                       C[i * N + j] = sum_k A[i][k] * B[j][k]
// Elements are bf16 bit patterns (__nv_bfloat16 or uint16_t storage).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace linpipe::kernels {

// The tile one CTA computes; M, N and K must be multiples of these.
inline constexpr int gemm_tile_m = 128;
inline constexpr int gemm_tile_n = 256;
inline constexpr int gemm_tile_k = 64;
// The ping-pong schedule's tile (one consumer warpgroup's): N need only be a multiple of this.
inline constexpr int gemm_pingpong_tile_n = 128;

// How the two consumer warpgroups share the output tiles.
enum class GemmSchedule {
  // Both on one 128 x 256 tile, 64 rows each, storing it together; the producer's four stages
  // run ahead into the next tile while they store.
  cooperative,
  // Each its own 128 x 128 tile, the CTA's tiles dealt to the two in turn (six stages of 128 x
  // 64 A and B slices): one warpgroup stores its tile while the other's MMAs run. With
  // cluster_m = 2 the two CTAs of a cluster take vertically adjacent tiles and share their B
  // slices (TMA multicast), as the cooperative kernel's clusters do. No traced form.
  pingpong,
};

// Whether the grid's last waves are shared by k-steps.
enum class GemmSplit {
  // Each CTA computes whole tiles. A grid of P CTAs on T tiles runs ceil(T / P) waves, the last
  // with T mod P of the P SMs busy.
  none,
  // Stream-K (cooperative schedule, cluster_m = 1): the last partial wave and
  // stream_k_shared_waves whole waves before it (every tile, under one wave) are shared out by
  // k-steps, every CTA the same number; a CTA whose share of a tile stops short of its last
  // k-step leaves its fp32 partial in `workspace` for the CTA that holds the tile's last
  // k-steps, which adds them and stores the tile. The sum's order is fixed, so a shape's result
  // is the same on every run (it may differ from GemmSplit::none's in the last bits: fp32
  // partials are added in another order). Where the waves are already even, or K is one
  // k-step, nothing is split. gemm_bf16 without a config splits where it pays too, with a
  // workspace of its stream's own. A finisher waits only for CTAs of lower index, which publish
  // before they wait for anything (linpipe:stream_k), so the grid need not be resident at
  // once: it finishes beside other streams' kernels, on however few SMs they leave. The grid
  // is what fits at once on the SMs the stream may use (the device's, or an MPS client's or
  // green context's share: linpipe::stream_share); a workspace is cut for the whole device's
  // grid, so it serves every share. On an H100 with
  // stream_k_in_phase: 1.2-1.65x GemmSplit::none at 1.06-2.18 waves, 0.98x at 3.88; from
  // k-step zero slower at 1.06 waves and at 3.9-15.5 (docs/benchmarks.md, twenty-sixth and
  // twenty-seventh sessions). gemm_config_for(m, n, k, workspace) picks it where it pays.
  stream_k,
};

struct GemmConfig {
  // 1: each CTA loads its own A and B tiles. 2: 2-CTA clusters along M (M a multiple of 256);
  // the two CTAs' tiles share a B tile, each loads half of it, multicast into both.
  int cluster_m = 1;
  // Tile rows the persistent scheduler walks together before moving to the next B column
  // block (the CTAs running at once share A row blocks and B column blocks in L2).
  int group_rows = 16;
  // How consumers release a stage: false, lane 0 of every consumer warp arrives on the empty
  // barrier (of each cluster CTA); true, only the first warp of each consumer warpgroup does.
  bool warpgroup_release = false;
  // Programmatic dependent launch (linpipe::LaunchOptions::early_start): the launch and the
  // kernel's prologue run under the last CTAs of the kernel before it on the stream; every
  // thread waits for that kernel's memory before its first global access. Off by default:
  // a kernel after this one that reads C must itself wait (griddepcontrol.wait) if it is
  // early-started too.
  bool early_start = false;
  GemmSchedule schedule = GemmSchedule::cooperative;
  GemmSplit split = GemmSplit::none;
  // GemmSplit::stream_k's partial sums and flags: device memory of at least
  // gemm_bf16_workspace_bytes(config) bytes, 16-byte aligned, zeroed once before its first
  // launch (every launch leaves it as it needs it: no reset between launches or a CUDA graph's
  // replays). Launches that may run at the same time need one each.
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  // GemmSplit::stream_k: the whole waves shared by k-steps with the last partial one, 0 or 1.
  // 1 gives each CTA at least one tile's k-steps (fewer partials to add); 0 keeps fewer tiles'
  // operands in flight while the CTAs' runs start at different k-steps (see docs/benchmarks.md).
  int stream_k_shared_waves = 1;
  // GemmSplit::stream_k: each shared tile's k-steps rotated so that the CTA with its largest
  // share reads them in step with the whole waves (linpipe::KStepOrder::in_phase): CTAs reading
  // one A or B block read its k-slices at about the same time, as in the whole waves.
  bool stream_k_in_phase = false;
};

// Computes C = A x B^T on `stream` (device pointers, 16-byte aligned, C not overlapping A or
// B). Returns cudaErrorInvalidValue for a shape or pointer it cannot run, with `why` (if given)
// set to a sentence saying what to change; checks happen before any CUDA call.
cudaError_t gemm_bf16(const void* a, const void* b, void* c, int m, int n, int k,
                      const GemmConfig& config, cudaStream_t stream = nullptr,
                      const char** why = nullptr);
// The CTAs a large launch with this config keeps resident (its persistent grid), for reports.
cudaError_t gemm_bf16_grid_ctas(const GemmConfig& config, int* ctas);
// The workspace a launch with this config needs on the current device (0 without a split):
// a partial-sum slot and its flags for each CTA of its largest grid.
cudaError_t gemm_bf16_workspace_bytes(const GemmConfig& config, std::size_t* bytes);

// A stream-K workspace on the current device, owned: gemm_bf16_workspace_bytes of device
// memory, zeroed when made (synchronously: make it before capturing a graph), freed with the
// object. Launches that may run at the same time (two streams) need one each.
//   GemmWorkspace workspace;                       // once, outside any stream capture
//   if (workspace.status() != cudaSuccess) ...     // no device, or out of memory
//   gemm_bf16(a, b, c, m, n, k, workspace.stream_k(), stream);
class GemmWorkspace {
 public:
  GemmWorkspace();
  ~GemmWorkspace();
  GemmWorkspace(GemmWorkspace&& other) noexcept;
  GemmWorkspace& operator=(GemmWorkspace&& other) noexcept;
  GemmWorkspace(const GemmWorkspace&) = delete;
  GemmWorkspace& operator=(const GemmWorkspace&) = delete;

  // cudaSuccess, or why there is no workspace (its stream_k() configs are then refused by
  // gemm_bf16 with that reason: they carry no workspace).
  cudaError_t status() const { return status_; }
  std::size_t bytes() const { return bytes_; }
  // `config` with split = GemmSplit::stream_k and this workspace; its other fields kept.
  GemmConfig stream_k(GemmConfig config = {}) const;

 private:
  void* memory_ = nullptr;
  std::size_t bytes_ = 0;
  cudaError_t status_ = cudaErrorInitializationError;
};

// A traced launch (linpipe:trace), e.g. for gemm_bench --trace: the producer's warp and the
// first warp of each consumer warpgroup (warps 0, 4 and 8) record their role's waits, claims,
// releases and issue marks into slice CTA x gemm_warps_per_cta + warp of
// `trace`: device memory of linpipe::TraceLayout{slices, per_slice}.bytes(), zeroed. Warps of
// CTAs past the slices record nothing, so a small buffer traces the first few CTAs.
inline constexpr unsigned gemm_warps_per_cta = 12;
cudaError_t gemm_bf16_traced(const void* a, const void* b, void* c, int m, int n, int k,
                             const GemmConfig& config, void* trace, unsigned slices,
                             unsigned per_slice, cudaStream_t stream = nullptr,
                             const char** why = nullptr);
// Which of those warps record: the producer's, the consumers' (warps 4 and 8), or all three
// (the form above). The others' slices stay as zeroed. Each traced role adds its own cost, so
// tracing one role at a time says which role's records cost the time.
enum class GemmTraceRoles : unsigned { producer = 1, consumers = 2, all = 3 };
cudaError_t gemm_bf16_traced(const void* a, const void* b, void* c, int m, int n, int k,
                             const GemmConfig& config, void* trace, unsigned slices,
                             unsigned per_slice, GemmTraceRoles roles,
                             cudaStream_t stream = nullptr, const char** why = nullptr);

// The configuration gemm_bf16 uses when none is given, per shape from what was measured
// (docs/benchmarks.md):
// - K up to gemm_pingpong_max_k, N a multiple of 128: the ping-pong schedule. With few
//   k-steps a tile, the cooperative kernel's epilogue (both warpgroups store, the tensor cores
//   idle) is a large share of each tile; the ping-pong stores one warpgroup's tile while the
//   other's MMAs run (4096x4096x1024 on an H100: 1.04x at base clocks, 1.03x in two
//   benchmark runs, against the cooperative kernel).
// - Otherwise N a multiple of 256: the cooperative schedule on one CTA a tile (fastest, or
//   level with every other schedule and with its 2-CTA clusters, at the benchmark's other six
//   shapes).
// - Otherwise N a multiple of 128: the ping-pong schedule.
// The ping-pong runs in 2-CTA clusters where M is a multiple of 256 (they beat its 1-CTA form
// at six of those seven shapes in two H100 runs). A shape neither schedule takes gets the
// cooperative configuration, which gemm_bf16 rejects with its reason.
inline constexpr int gemm_pingpong_max_k = 1024;
GemmConfig gemm_config_for(int m, int n, int k);
// The same with gemm_config_for(m, n, k), split by k-steps as gemm_config_for(m, n, k,
// workspace) splits it where gemm_stream_k_pays for the grid `stream` gets (under one wave, and
// up to 3 waves where the last is at most 90% full), with a workspace of the stream's own
// (gemm_bf16_workspace_bytes of device memory for each stream, and each captured stream, that
// launches a split shape; without the memory, the whole-tile kernel). Launches on one stream
// run in turn, so they share it safely; a captured launch's workspace is its graph's, so two
// executable graphs made from one capture must be replayed in turn, not at once.
cudaError_t gemm_bf16(const void* a, const void* b, void* c, int m, int n, int k,
                      cudaStream_t stream = nullptr, const char** why = nullptr);
// Frees the workspace gemm_bf16 without a config keeps for `stream` (after the work queued on
// it): call it before destroying a stream that ran split shapes, or the memory stays with the
// process. Not during the stream's capture.
cudaError_t gemm_bf16_release_stream(cudaStream_t stream);
// Frees the workspaces of captures whose graphs (and executable graphs) are all destroyed, and
// sets `kept`, if given, to the bytes still kept. Synchronizes the device where there is
// something to free; not during a capture.
cudaError_t gemm_bf16_trim_workspaces(std::size_t* kept = nullptr);

// With a stream-K workspace the default may also share k-steps: gemm_config_for(m, n, k)'s
// cooperative pick becomes GemmSplit::stream_k (one whole wave shared with the last, in phase)
// where gemm_stream_k_pays for the grid's `ctas`: under one wave of 128 x 256 tiles where the
// k-steps each CTA is spared outweigh the partial sums its tiles' finishers add, and at up to
// 3 waves where the last is at most 90% full (H100, 2026-12-07: 1.2-1.65x the cooperative
// kernel at 1.06-2.18 waves; slower at 3.88). Elsewhere, or with a workspace that holds no
// memory, the pick is gemm_config_for(m, n, k)'s.
bool gemm_stream_k_pays(int m, int n, int k, int ctas);
GemmConfig gemm_config_for(int m, int n, int k, const GemmWorkspace& workspace);
// The same with gemm_config_for(m, n, k, workspace), judged for the grid `stream` gets (its SM
// share's, where gemm_config_for asks about the default stream's).
cudaError_t gemm_bf16(const void* a, const void* b, void* c, int m, int n, int k, const GemmWorkspace& workspace,
                      cudaStream_t stream = nullptr, const char** why = nullptr);

}  // namespace linpipe::kernels
