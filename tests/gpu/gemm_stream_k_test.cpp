// gemm_bf16 with GemmSplit::stream_k: agrees with cuBLAS on shapes whose last wave is shared by
// k-steps (and on shapes it leaves whole), gives the same bits on every launch from one
// workspace (the flags go back to rest), in a CUDA graph's replays too, and refuses a
// configuration it cannot run with a reason. gemm_bf16 without a config splits on its own where
// it pays, with its stream's own workspace, and two such launches on two streams both finish.
import linpipe;

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gemm.h"
#include "gemm_check.h"
#include "gpu_test_support.h"

namespace {

using linpipe::kernels::GemmConfig;
using linpipe::kernels::GemmSplit;

// Device memory freed at scope exit.
struct DeviceBuffer {
  void* ptr = nullptr;
  explicit DeviceBuffer(std::size_t bytes) { EXPECT_EQ(cudaMalloc(&ptr, bytes), cudaSuccess); }
  ~DeviceBuffer() { (void)cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

// A stream-K configuration with its own zeroed workspace (GemmWorkspace: the size
// gemm_bf16_workspace_bytes asks).
struct StreamK {
  linpipe::kernels::GemmWorkspace workspace;
  GemmConfig config;
  explicit StreamK(bool in_phase = false) {
    EXPECT_EQ(workspace.status(), cudaSuccess);
    GemmConfig split;
    split.split = GemmSplit::stream_k;
    std::size_t bytes = 0;
    EXPECT_EQ(linpipe::kernels::gemm_bf16_workspace_bytes(split, &bytes), cudaSuccess);
    EXPECT_EQ(workspace.bytes(), bytes);
    split.stream_k_in_phase = in_phase;
    config = workspace.stream_k(split);
  }
};

// Whether a shape's launch shares tiles by k-steps on this GPU: the plan the kernel makes for
// the grid it gets.
bool splits(int m, int n, int k) {
  int ctas = 0;
  EXPECT_EQ(linpipe::kernels::gemm_bf16_grid_ctas(GemmConfig{}, &ctas), cudaSuccess);
  const auto tiles = static_cast<std::uint32_t>((m / linpipe::kernels::gemm_tile_m) * (n / linpipe::kernels::gemm_tile_n));
  const auto k_steps = static_cast<std::uint32_t>(k / linpipe::kernels::gemm_tile_k);
  return linpipe::StreamKPlan::for_grid(tiles, k_steps, static_cast<std::uint32_t>(ctas)).split_tiles > 0;
}

// Whether launches from `workspace` left partial sums in it: a split shape's peers publish theirs
// (its flags are back at zero), while a launch that never split leaves it as zeroed.
bool holds_partials(const linpipe::kernels::GemmWorkspace& workspace) {
  std::vector<std::uint32_t> words(workspace.bytes() / 4);
  EXPECT_EQ(cudaMemcpy(words.data(), workspace.stream_k().workspace, words.size() * 4, cudaMemcpyDeviceToHost),
            cudaSuccess);
  return std::any_of(words.begin(), words.end(), [](std::uint32_t w) { return w != 0; });
}

struct Shape {
  int m, n, k;
};
void PrintTo(const Shape& s, std::ostream* os) { *os << s.m << "x" << s.n << "x" << s.k; }

// The shape the default splits under one wave: 64 tiles of 128 k-steps. Whether it does on this
// GPU depends on the grid gemm_bf16 gets.
constexpr Shape under_one_wave{1024, 2048, 8192};
int default_grid_ctas() {
  int ctas = 0;
  EXPECT_EQ(linpipe::kernels::gemm_bf16_grid_ctas(GemmConfig{}, &ctas), cudaSuccess);
  return ctas;
}

class GemmStreamK : public ::testing::TestWithParam<std::tuple<Shape, bool>> {};

// The k-steps from zero, or each shared tile's rotated in phase (stream_k_in_phase).
TEST_P(GemmStreamK, MatchesCublasAndRepeatsItsBits) {
  LINPIPE_REQUIRE_GPU();
  using namespace linpipe::kernels;
  const auto [s, in_phase] = GetParam();
  const std::size_t na = std::size_t(s.m) * s.k, nb = std::size_t(s.n) * s.k, nc = std::size_t(s.m) * s.n;
  DeviceBuffer a(na * 2), b(nb * 2), c(nc * 2), ref(nc * 2);
  const StreamK split(in_phase);
  LINPIPE_CUDA_OK(fill_random_bf16(a.ptr, na, 41 + s.k));
  LINPIPE_CUDA_OK(fill_random_bf16(b.ptr, nb, 43 + s.n));
  LINPIPE_CUDA_OK(poison_bf16(c.ptr, nc));
  cublasHandle_t handle;
  ASSERT_EQ(cublasCreate(&handle), CUBLAS_STATUS_SUCCESS);
  const float alpha = 1.0f, beta = 0.0f;
  ASSERT_EQ(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, s.n, s.m, s.k, &alpha, b.ptr, CUDA_R_16BF, s.k,
                         a.ptr, CUDA_R_16BF, s.k, &beta, ref.ptr, CUDA_R_16BF, s.n, CUBLAS_COMPUTE_32F,
                         CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_SUCCESS);
  const char* why = nullptr;
  LINPIPE_CUDA_OK(gemm_bf16(a.ptr, b.ptr, c.ptr, s.m, s.n, s.k, split.config, nullptr, &why));
  LINPIPE_CUDA_OK(cudaDeviceSynchronize());
  ASSERT_EQ(cublasDestroy(handle), CUBLAS_STATUS_SUCCESS);
  Bf16Comparison cmp{};
  LINPIPE_CUDA_OK(compare_bf16(c.ptr, ref.ptr, nc, &cmp));
  EXPECT_EQ(cmp.non_finite, 0u) << "unwritten (poisoned) or non-finite outputs";
  EXPECT_LT(cmp.relative_error, 1e-2);
  EXPECT_GT(cmp.ref_norm, 0.0);
  std::printf("  %dx%dx%d stream-K%s (%s): relative error %.3e\n", s.m, s.n, s.k, in_phase ? " in phase" : "",
              splits(s.m, s.n, s.k) ? "split" : "whole waves", cmp.relative_error);
  EXPECT_EQ(holds_partials(split.workspace), splits(s.m, s.n, s.k)) << "partials in the workspace, against the plan's split";

  // Three more launches from the same workspace: each finds the flags at rest and adds the same
  // partials in the same order, so the bits repeat (a flag left set would let a finisher add a
  // stale or half-written partial).
  std::vector<std::uint16_t> first(nc), again(nc);
  LINPIPE_CUDA_OK(cudaMemcpy(first.data(), c.ptr, nc * 2, cudaMemcpyDeviceToHost));
  for (int launch = 0; launch < 3; ++launch) {
    LINPIPE_CUDA_OK(poison_bf16(c.ptr, nc));
    LINPIPE_CUDA_OK(gemm_bf16(a.ptr, b.ptr, c.ptr, s.m, s.n, s.k, split.config, nullptr, &why));
    LINPIPE_CUDA_OK(cudaMemcpy(again.data(), c.ptr, nc * 2, cudaMemcpyDeviceToHost));
    ASSERT_EQ(again, first) << "launch " << launch + 2 << " differs from the first";
  }
}

// Shared by k-steps on a 132-SM H100 or H200: 256, 256, 306 and 512 tiles of 4, 17, 11 and 16
// k-steps (the last wave and one before it), 64 and 8 tiles of 128 and 5 k-steps (fewer tiles
// than SMs: every tile, a tile on up to 17 CTAs); left whole: exactly one wave (132 tiles), one
// k-step a tile.
INSTANTIATE_TEST_SUITE_P(Shapes, GemmStreamK,
                         ::testing::Combine(::testing::Values(Shape{2048, 4096, 256}, Shape{4096, 2048, 1088},
                                                              Shape{2304, 4352, 704}, Shape{4096, 4096, 1024},
                                                              Shape{1024, 2048, 8192}, Shape{256, 1024, 320},
                                                              Shape{1536, 2816, 512}, Shape{4096, 4096, 64}),
                                            ::testing::Bool()));

// gemm_bf16 with a workspace and no config: under one wave with long K it takes the stream-K
// kernel in phase (partials published; the same bits as that config given explicitly),
// agreeing with the unsplit kernel.
TEST(GemmStreamKShapes, TheDefaultWithAWorkspaceSplitsUnderOneWave) {
  LINPIPE_REQUIRE_GPU();
  using namespace linpipe::kernels;
  constexpr int m = under_one_wave.m, n = under_one_wave.n, k = under_one_wave.k;
  const int ctas = default_grid_ctas();
  if (!gemm_stream_k_pays(m, n, k, ctas)) GTEST_SKIP() << "a grid of " << ctas << " CTAs does not split this shape";
  const GemmWorkspace workspace;
  LINPIPE_CUDA_OK(workspace.status());
  GemmConfig in_phase = workspace.stream_k();
  in_phase.stream_k_in_phase = true;
  const GemmConfig picked = gemm_config_for(m, n, k, workspace);
  EXPECT_EQ(picked.split, GemmSplit::stream_k);
  EXPECT_TRUE(picked.stream_k_in_phase);
  EXPECT_EQ(picked.stream_k_shared_waves, 1);
  EXPECT_EQ(picked.workspace, in_phase.workspace);
  const std::size_t na = std::size_t(m) * k, nb = std::size_t(n) * k, nc = std::size_t(m) * n;
  DeviceBuffer a(na * 2), b(nb * 2), by_default(nc * 2), explicit_split(nc * 2), whole(nc * 2);
  LINPIPE_CUDA_OK(fill_random_bf16(a.ptr, na, 51));
  LINPIPE_CUDA_OK(fill_random_bf16(b.ptr, nb, 52));
  for (void* c : {by_default.ptr, explicit_split.ptr, whole.ptr}) LINPIPE_CUDA_OK(poison_bf16(c, nc));
  const char* why = nullptr;
  LINPIPE_CUDA_OK(gemm_bf16(a.ptr, b.ptr, by_default.ptr, m, n, k, workspace, nullptr, &why));
  EXPECT_TRUE(holds_partials(workspace)) << "the default's launch shared no tile";
  LINPIPE_CUDA_OK(gemm_bf16(a.ptr, b.ptr, explicit_split.ptr, m, n, k, in_phase, nullptr, &why));
  LINPIPE_CUDA_OK(gemm_bf16(a.ptr, b.ptr, whole.ptr, m, n, k, GemmConfig{}, nullptr, &why));
  std::vector<std::uint16_t> got(nc), want(nc);
  LINPIPE_CUDA_OK(cudaMemcpy(got.data(), by_default.ptr, nc * 2, cudaMemcpyDeviceToHost));
  LINPIPE_CUDA_OK(cudaMemcpy(want.data(), explicit_split.ptr, nc * 2, cudaMemcpyDeviceToHost));
  EXPECT_EQ(got, want) << "the default with a workspace is not the stream-K kernel's result";
  Bf16Comparison cmp{};
  LINPIPE_CUDA_OK(compare_bf16(by_default.ptr, whole.ptr, nc, &cmp));
  EXPECT_EQ(cmp.non_finite, 0u);
  EXPECT_LT(cmp.relative_error, 1e-2);
}

// gemm_bf16 without a config: the same split as the default with a workspace, from the stream's
// own (the same bits as the in-phase stream-K kernel given explicitly), on the legacy stream
// and on a stream of its own; a shape that does not pay stays the whole-tile kernel's bits.
TEST(GemmStreamKShapes, TheDefaultWithoutAWorkspaceSplitsWithTheStreamsOwn) {
  LINPIPE_REQUIRE_GPU();
  using namespace linpipe::kernels;
  constexpr int m = under_one_wave.m, n = under_one_wave.n, k = under_one_wave.k;
  const int ctas = default_grid_ctas();
  if (!gemm_stream_k_pays(m, n, k, ctas)) GTEST_SKIP() << "a grid of " << ctas << " CTAs does not split this shape";
  const StreamK in_phase(/*in_phase=*/true);
  const std::size_t na = std::size_t(m) * k, nb = std::size_t(n) * k, nc = std::size_t(m) * n;
  DeviceBuffer a(na * 2), b(nb * 2), c(nc * 2);
  LINPIPE_CUDA_OK(fill_random_bf16(a.ptr, na, 61));
  LINPIPE_CUDA_OK(fill_random_bf16(b.ptr, nb, 62));
  const auto result = [&](auto&& launch) {
    EXPECT_EQ(poison_bf16(c.ptr, nc), cudaSuccess);
    EXPECT_EQ(launch(), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<std::uint16_t> host(nc);
    EXPECT_EQ(cudaMemcpy(host.data(), c.ptr, nc * 2, cudaMemcpyDeviceToHost), cudaSuccess);
    return host;
  };
  const auto split = result([&] { return gemm_bf16(a.ptr, b.ptr, c.ptr, m, n, k, in_phase.config); });
  const auto whole = result([&] { return gemm_bf16(a.ptr, b.ptr, c.ptr, m, n, k, GemmConfig{}); });
  ASSERT_NE(split, whole) << "fp32 partials added in another order should change some of 2M outputs' last bits";
  cudaStream_t stream;
  LINPIPE_CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (cudaStream_t on : {cudaStream_t{nullptr}, stream}) {
    for (int launch = 0; launch < 2; ++launch) {  // the second from the workspace the first left
      EXPECT_EQ(result([&] { return gemm_bf16(a.ptr, b.ptr, c.ptr, m, n, k, on); }), split)
          << (on == nullptr ? "legacy stream" : "own stream") << ", launch " << launch;
    }
  }
  // Its workspace goes back before the stream is destroyed (gemm_bf16_workspace_bytes of it).
  std::size_t kept_before = 0, kept_after = 0, workspace_bytes = 0;
  LINPIPE_CUDA_OK(gemm_bf16_workspace_bytes(in_phase.config, &workspace_bytes));
  LINPIPE_CUDA_OK(gemm_bf16_trim_workspaces(&kept_before));
  LINPIPE_CUDA_OK(gemm_bf16_release_stream(stream));
  LINPIPE_CUDA_OK(gemm_bf16_trim_workspaces(&kept_after));
  EXPECT_EQ(kept_after + workspace_bytes, kept_before) << "the stream's workspace was not freed";
  LINPIPE_CUDA_OK(cudaStreamDestroy(stream));
  // 4096 x 4096 x 2048: 512 tiles, 3.9 waves on 132 SMs, where the split does not pay: the
  // whole-tile kernel's bits.
  constexpr int wm = 4096, wn = 4096, wk = 2048;
  if (!gemm_stream_k_pays(wm, wn, wk, ctas)) {
    DeviceBuffer wa(std::size_t(wm) * wk * 2), wb(std::size_t(wn) * wk * 2), wc(std::size_t(wm) * wn * 2);
    LINPIPE_CUDA_OK(fill_random_bf16(wa.ptr, std::size_t(wm) * wk, 63));
    LINPIPE_CUDA_OK(fill_random_bf16(wb.ptr, std::size_t(wn) * wk, 64));
    std::vector<std::uint16_t> by_default(std::size_t(wm) * wn), explicit_whole(by_default.size());
    LINPIPE_CUDA_OK(gemm_bf16(wa.ptr, wb.ptr, wc.ptr, wm, wn, wk));
    LINPIPE_CUDA_OK(cudaMemcpy(by_default.data(), wc.ptr, by_default.size() * 2, cudaMemcpyDeviceToHost));
    LINPIPE_CUDA_OK(gemm_bf16(wa.ptr, wb.ptr, wc.ptr, wm, wn, wk, gemm_config_for(wm, wn, wk)));
    LINPIPE_CUDA_OK(cudaMemcpy(explicit_whole.data(), wc.ptr, explicit_whole.size() * 2, cudaMemcpyDeviceToHost));
    EXPECT_EQ(by_default, explicit_whole) << "a shape that does not pay was split";
  }
}

// Two split launches on two streams at once: each grid is the whole device's, so neither is
// resident at once beside the other, and before a finisher waited only for CTAs started
// before it, they could wait on each other for ever. Each must finish (within 20 s: a stuck
// pair fails instead of hanging the test) with the single-launch result.
TEST(GemmStreamKShapes, TwoStreamsSplittingAtOnceBothFinish) {
  LINPIPE_REQUIRE_GPU();
  using namespace linpipe::kernels;
  constexpr int m = under_one_wave.m, n = under_one_wave.n, k = under_one_wave.k;
  const int ctas = default_grid_ctas();
  if (!gemm_stream_k_pays(m, n, k, ctas)) GTEST_SKIP() << "a grid of " << ctas << " CTAs does not split this shape";
  const std::size_t na = std::size_t(m) * k, nb = std::size_t(n) * k, nc = std::size_t(m) * n;
  DeviceBuffer a(na * 2), b(nb * 2), c0(nc * 2), c1(nc * 2);
  LINPIPE_CUDA_OK(fill_random_bf16(a.ptr, na, 65));
  LINPIPE_CUDA_OK(fill_random_bf16(b.ptr, nb, 66));
  LINPIPE_CUDA_OK(gemm_bf16(a.ptr, b.ptr, c0.ptr, m, n, k));
  std::vector<std::uint16_t> alone(nc), got(nc);
  LINPIPE_CUDA_OK(cudaMemcpy(alone.data(), c0.ptr, nc * 2, cudaMemcpyDeviceToHost));
  cudaStream_t streams[2];
  for (cudaStream_t& s : streams) LINPIPE_CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (int round = 0; round < 4; ++round) {
    for (void* c : {c0.ptr, c1.ptr}) LINPIPE_CUDA_OK(poison_bf16(c, nc));
    LINPIPE_CUDA_OK(cudaDeviceSynchronize());
    for (int i = 0; i < 3; ++i) {  // queued back to back on each, so the grids overlap
      LINPIPE_CUDA_OK(gemm_bf16(a.ptr, b.ptr, c0.ptr, m, n, k, streams[0]));
      LINPIPE_CUDA_OK(gemm_bf16(a.ptr, b.ptr, c1.ptr, m, n, k, streams[1]));
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    bool done = false;
    while (!done && std::chrono::steady_clock::now() < deadline)
      done = cudaStreamQuery(streams[0]) != cudaErrorNotReady && cudaStreamQuery(streams[1]) != cudaErrorNotReady;
    if (!done) {
      // Stuck grids would hold the GPU for ever (every later CUDA call, the buffers' cudaFree
      // included, would wait on them): report and end the process instead of hanging.
      std::fprintf(stderr, "[  FAILED  ] round %d: two split GEMMs on two streams did not finish in 20 s\n", round);
      std::fflush(stderr);
      std::_Exit(1);
    }
    LINPIPE_CUDA_OK(cudaDeviceSynchronize());
    for (void* c : {c0.ptr, c1.ptr}) {
      LINPIPE_CUDA_OK(cudaMemcpy(got.data(), c, nc * 2, cudaMemcpyDeviceToHost));
      EXPECT_EQ(got, alone) << "round " << round;
    }
  }
  for (cudaStream_t s : streams) {
    LINPIPE_CUDA_OK(gemm_bf16_release_stream(s));
    LINPIPE_CUDA_OK(cudaStreamDestroy(s));
  }
}

TEST(GemmStreamKShapes, TheSplitShapesSplitOnThisGpu) {
  LINPIPE_REQUIRE_GPU();
  // Otherwise the suite above would only test whole waves here: pick shapes for this SM count.
  int split_shapes = 0;
  for (const Shape s : {Shape{2048, 4096, 256}, Shape{4096, 2048, 1088}, Shape{2304, 4352, 704},
                        Shape{4096, 4096, 1024}, Shape{1024, 2048, 8192}, Shape{256, 1024, 320}})
    split_shapes += splits(s.m, s.n, s.k) ? 1 : 0;
  EXPECT_GE(split_shapes, 4);
}

// Captured into a CUDA graph and replayed: the replays write what a direct launch writes.
TEST(GemmStreamKGraph, ReplaysMatchADirectLaunch) {
  LINPIPE_REQUIRE_GPU();
  using namespace linpipe::kernels;
  constexpr int m = 2048, n = 4096, k = 512;
  const std::size_t nc = std::size_t(m) * n;
  DeviceBuffer a(std::size_t(m) * k * 2), b(std::size_t(n) * k * 2), c(nc * 2);
  const StreamK split;
  LINPIPE_CUDA_OK(fill_random_bf16(a.ptr, std::size_t(m) * k, 5));
  LINPIPE_CUDA_OK(fill_random_bf16(b.ptr, std::size_t(n) * k, 6));
  LINPIPE_CUDA_OK(gemm_bf16(a.ptr, b.ptr, c.ptr, m, n, k, split.config));
  std::vector<std::uint16_t> direct(nc), replayed(nc);
  LINPIPE_CUDA_OK(cudaMemcpy(direct.data(), c.ptr, nc * 2, cudaMemcpyDeviceToHost));
  cudaStream_t stream;
  LINPIPE_CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph = nullptr;
  LINPIPE_CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  const char* why = nullptr;
  const cudaError_t captured = gemm_bf16(a.ptr, b.ptr, c.ptr, m, n, k, split.config, stream, &why);
  LINPIPE_CUDA_OK(cudaStreamEndCapture(stream, &graph));
  ASSERT_EQ(captured, cudaSuccess) << (why != nullptr ? why : "");
  cudaGraphExec_t exec = nullptr;
  LINPIPE_CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay) {
    LINPIPE_CUDA_OK(poison_bf16(c.ptr, nc));
    LINPIPE_CUDA_OK(cudaDeviceSynchronize());
    LINPIPE_CUDA_OK(cudaGraphLaunch(exec, stream));
    LINPIPE_CUDA_OK(cudaStreamSynchronize(stream));
    LINPIPE_CUDA_OK(cudaMemcpy(replayed.data(), c.ptr, nc * 2, cudaMemcpyDeviceToHost));
    ASSERT_EQ(replayed, direct) << "replay " << replay;
  }
  LINPIPE_CUDA_OK(cudaGraphExecDestroy(exec));
  LINPIPE_CUDA_OK(cudaGraphDestroy(graph));
  LINPIPE_CUDA_OK(cudaStreamDestroy(stream));
}

// Split shapes small enough for compute-sanitizer (synccheck, racecheck).
TEST(GemmStreamKSanitizer, SplitShape) {
  LINPIPE_REQUIRE_GPU();
  using namespace linpipe::kernels;
  const StreamK split;
  // The last wave and one before it shared; and fewer tiles than SMs, every tile shared by
  // several CTAs (8 tiles of 5 k-steps on a grid of 40).
  for (const Shape s : {Shape{2048, 4096, 256}, Shape{256, 1024, 320}}) {
    DeviceBuffer a(std::size_t(s.m) * s.k * 2), b(std::size_t(s.n) * s.k * 2), c(std::size_t(s.m) * s.n * 2);
    LINPIPE_CUDA_OK(fill_random_bf16(a.ptr, std::size_t(s.m) * s.k, 7));
    LINPIPE_CUDA_OK(fill_random_bf16(b.ptr, std::size_t(s.n) * s.k, 8));
    LINPIPE_CUDA_OK(gemm_bf16(a.ptr, b.ptr, c.ptr, s.m, s.n, s.k, split.config));
    LINPIPE_CUDA_OK(cudaDeviceSynchronize());
  }
}

// Rejected before any launch, each with a reason: no workspace, one too small, a cluster, the
// ping-pong schedule, tracing.
TEST(GemmStreamKShapes, MisconfiguredSplitsAreRejectedWithAReason) {
  LINPIPE_REQUIRE_GPU();  // the workspace's size depends on the GPU's SMs
  using namespace linpipe::kernels;
  DeviceBuffer operands(std::size_t(256) * 256 * 2);
  void* x = operands.ptr;
  const StreamK split;
  const auto rejected = [&](GemmConfig config, const char* expected_words) {
    const char* why = nullptr;
    EXPECT_EQ(gemm_bf16(x, x, x, 256, 256, 128, config, nullptr, &why), cudaErrorInvalidValue) << expected_words;
    ASSERT_NE(why, nullptr) << expected_words;
    EXPECT_NE(std::string(why).find(expected_words), std::string::npos) << why;
  };
  GemmConfig none = split.config;
  none.workspace = nullptr;
  rejected(none, "needs a workspace");
  GemmConfig small = split.config;
  small.workspace_bytes = split.workspace.bytes() - 1;
  rejected(small, "gemm_bf16_workspace_bytes");
  GemmConfig cluster = split.config;
  cluster.cluster_m = 2;
  rejected(cluster, "cluster_m = 1");
  GemmConfig pingpong = split.config;
  pingpong.schedule = GemmSchedule::pingpong;
  rejected(pingpong, "GemmSchedule::cooperative");
  const char* why = nullptr;
  DeviceBuffer trace(1 << 16);
  EXPECT_EQ(gemm_bf16_traced(x, x, x, 256, 256, 128, split.config, trace.ptr, 1, 16, nullptr, &why),
            cudaErrorInvalidValue);
  ASSERT_NE(why, nullptr);
  EXPECT_NE(std::string(why).find("GemmSplit::none"), std::string::npos) << why;
  std::size_t bytes = 1;
  LINPIPE_CUDA_OK(gemm_bf16_workspace_bytes(GemmConfig{}, &bytes));
  EXPECT_EQ(bytes, 0u) << "no split, no workspace";
}

// A workspace that holds no memory (moved from, or made without a GPU) says so, and a launch
// with its config is refused for the missing workspace before any CUDA call, on any machine.
TEST(GemmWorkspace, OneWithoutMemoryIsRefusedWithItsReason) {
  using namespace linpipe::kernels;
  GemmWorkspace moved_from;
  const GemmWorkspace moved_to = std::move(moved_from);
  EXPECT_NE(moved_from.status(), cudaSuccess);  // NOLINT(bugprone-use-after-move): what is left behind
  EXPECT_EQ(moved_from.bytes(), 0u);            // NOLINT(bugprone-use-after-move)
  const GemmConfig config = moved_from.stream_k();  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(config.split, GemmSplit::stream_k);
  EXPECT_EQ(config.workspace, nullptr);
  void* fake = reinterpret_cast<void*>(std::uintptr_t{1} << 20);  // never dereferenced: refused first
  const char* why = nullptr;
  EXPECT_EQ(gemm_bf16(fake, fake, fake, 256, 256, 128, config, nullptr, &why), cudaErrorInvalidValue);
  ASSERT_NE(why, nullptr);
  EXPECT_NE(std::string(why).find("needs a workspace"), std::string::npos) << why;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    EXPECT_NE(moved_to.status(), cudaSuccess) << "no GPU: no workspace";
    return;
  }
  EXPECT_EQ(moved_to.status(), cudaSuccess);
  EXPECT_GT(moved_to.bytes(), 0u);
  EXPECT_NE(moved_to.stream_k().workspace, nullptr);
}

}  // namespace
