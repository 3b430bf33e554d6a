// gemm_bf16 agrees with cuBLAS (relative Frobenius error below 1e-2, every element written)
// on fresh random inputs for several shapes, including more tiles than SMs (the persistent
// scheduler) and K of a single tile; bad shapes are rejected with a reason before any CUDA call.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gemm.h"
#include "gemm_check.h"
#include "gpu_test_support.h"

namespace {

using linpipe::kernels::GemmSchedule;

struct Shape {
  int m, n, k;
  int cluster_m = 1;
  bool warpgroup_release = false;
  GemmSchedule schedule = GemmSchedule::cooperative;
  bool by_rule = false;  // gemm_bf16 without a config: gemm_config_for picks it
};

void PrintTo(const Shape& s, std::ostream* os) {
  *os << s.m << "x" << s.n << "x" << s.k << " cluster " << s.cluster_m
      << (s.warpgroup_release ? " wg-release" : "")
      << (s.schedule == GemmSchedule::pingpong ? " ping-pong" : "") << (s.by_rule ? " by rule" : "");
}

class GemmMatchesCublas : public ::testing::TestWithParam<Shape> {};

TEST_P(GemmMatchesCublas, RandomInputs) {
  LINPIPE_REQUIRE_GPU();
  using namespace linpipe::kernels;
  const Shape s = GetParam();
  const std::size_t na = std::size_t(s.m) * s.k, nb = std::size_t(s.n) * s.k,
                    nc = std::size_t(s.m) * s.n;
  void *a = nullptr, *b = nullptr, *c = nullptr, *ref = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&a, na * 2));
  LINPIPE_CUDA_OK(cudaMalloc(&b, nb * 2));
  LINPIPE_CUDA_OK(cudaMalloc(&c, nc * 2));
  LINPIPE_CUDA_OK(cudaMalloc(&ref, nc * 2));
  static std::uint64_t seed = 7;  // fresh inputs for every shape
  for (int round = 0; round < 2; ++round) {
    LINPIPE_CUDA_OK(fill_random_bf16(a, na, seed++));
    LINPIPE_CUDA_OK(fill_random_bf16(b, nb, seed++));
    LINPIPE_CUDA_OK(poison_bf16(c, nc));
    LINPIPE_CUDA_OK(poison_bf16(ref, nc));
    cublasHandle_t handle;
    ASSERT_EQ(cublasCreate(&handle), CUBLAS_STATUS_SUCCESS);
    const float alpha = 1.0f, beta = 0.0f;
    ASSERT_EQ(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, s.n, s.m, s.k, &alpha, b, CUDA_R_16BF,
                           s.k, a, CUDA_R_16BF, s.k, &beta, ref, CUDA_R_16BF, s.n,
                           CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
              CUBLAS_STATUS_SUCCESS);
    const char* why = nullptr;
    const GemmConfig config{s.cluster_m, 16, s.warpgroup_release, false, s.schedule};
    LINPIPE_CUDA_OK(s.by_rule ? gemm_bf16(a, b, c, s.m, s.n, s.k, nullptr, &why)
                              : gemm_bf16(a, b, c, s.m, s.n, s.k, config, nullptr, &why));
    LINPIPE_CUDA_OK(cudaDeviceSynchronize());
    ASSERT_EQ(cublasDestroy(handle), CUBLAS_STATUS_SUCCESS);
    Bf16Comparison cmp{};
    LINPIPE_CUDA_OK(compare_bf16(c, ref, nc, &cmp));
    EXPECT_EQ(cmp.non_finite, 0u) << "unwritten (poisoned) or non-finite outputs";
    EXPECT_LT(cmp.relative_error, 1e-2);
    EXPECT_GT(cmp.ref_norm, 0.0) << "degenerate (all-zero) reference";
    std::printf("  %dx%dx%d cluster %d round %d: relative error %.3e, ||ref|| %.3e\n", s.m, s.n,
                s.k, s.cluster_m, round, cmp.relative_error, cmp.ref_norm);
    if (cmp.non_finite != 0 || !(cmp.relative_error < 1e-2)) {  // show where it goes wrong
      std::vector<std::uint16_t> got(nc), want(nc);
      LINPIPE_CUDA_OK(cudaMemcpy(got.data(), c, nc * 2, cudaMemcpyDeviceToHost));
      LINPIPE_CUDA_OK(cudaMemcpy(want.data(), ref, nc * 2, cudaMemcpyDeviceToHost));
      const auto value = [](std::uint16_t bits) {
        const std::uint32_t word = std::uint32_t{bits} << 16;
        float f;
        std::memcpy(&f, &word, 4);
        return f;
      };
      int shown = 0;
      for (std::size_t i = 0; i < nc && shown < 12; ++i) {
        const float g = value(got[i]), w = value(want[i]);
        if (!(std::fabs(g - w) <= 0.05f * (1.0f + std::fabs(w)))) {
          std::printf("    C[%zu][%zu] = %g, cuBLAS %g\n", i / s.n, i % s.n, g, w);
          ++shown;
        }
      }
    }
  }
  LINPIPE_CUDA_OK(cudaFree(a));
  LINPIPE_CUDA_OK(cudaFree(b));
  LINPIPE_CUDA_OK(cudaFree(c));
  LINPIPE_CUDA_OK(cudaFree(ref));
}

INSTANTIATE_TEST_SUITE_P(Shapes, GemmMatchesCublas,
                         ::testing::Values(Shape{128, 256, 64}, Shape{256, 512, 128},
                                           Shape{384, 768, 320}, Shape{1024, 1024, 1024},
                                           Shape{2048, 4096, 256}, Shape{4096, 2048, 1088},
                                           Shape{256, 256, 64, 2}, Shape{512, 768, 320, 2},
                                           Shape{2048, 4096, 256, 2}, Shape{4096, 2048, 1088, 2},
                                           Shape{2304, 4352, 704, 2}, Shape{384, 768, 320, 1, true},
                                           Shape{2048, 4096, 256, 1, true},
                                           Shape{512, 768, 320, 2, true},
                                           Shape{2304, 4352, 704, 2, true}));

// The ping-pong schedule: N a multiple of 128 only (a tile count that leaves one warpgroup of
// a CTA without a tile), one tile in all, fewer tiles than two per SM, many more, K of one
// slice and K past the six-stage ring, and one releasing warp per warpgroup; then the same in
// 2-CTA clusters (one cluster item in all, an odd count of items per cluster).
constexpr GemmSchedule pingpong = GemmSchedule::pingpong;
INSTANTIATE_TEST_SUITE_P(PingPong, GemmMatchesCublas,
                         ::testing::Values(Shape{128, 128, 64, 1, false, pingpong},
                                           Shape{384, 640, 320, 1, false, pingpong},
                                           Shape{1024, 1152, 1024, 1, false, pingpong},
                                           Shape{2048, 4096, 256, 1, false, pingpong},
                                           Shape{4096, 2176, 1088, 1, false, pingpong},
                                           Shape{2304, 4352, 704, 1, true, pingpong},
                                           Shape{256, 128, 64, 2, false, pingpong},
                                           Shape{512, 640, 320, 2, false, pingpong},
                                           Shape{2048, 4096, 256, 2, false, pingpong},
                                           Shape{4096, 2176, 1088, 2, false, pingpong},
                                           Shape{2304, 4352, 704, 2, true, pingpong}));

// gemm_bf16 without a config (gemm_config_for): N a multiple of 256 (cooperative), N of 128s
// only with M of 256s (ping-pong in 2-CTA clusters) and with an odd count of 128-row tiles
// (ping-pong, one CTA a tile).
INSTANTIATE_TEST_SUITE_P(DefaultRule, GemmMatchesCublas,
                         ::testing::Values(Shape{384, 768, 320, 1, false, GemmSchedule::cooperative, true},
                                           Shape{512, 640, 320, 1, false, GemmSchedule::cooperative, true},
                                           Shape{384, 640, 320, 1, false, GemmSchedule::cooperative, true}));

float bf16_value(std::uint16_t bits) {
  const std::uint32_t word = std::uint32_t{bits} << 16;
  float f;
  std::memcpy(&f, &word, 4);
  return f;
}

// Independent of cuBLAS: a float64 reference on the host for a small shape.
TEST(GemmMatchesFp64, SmallShape) {
  LINPIPE_REQUIRE_GPU();
  using namespace linpipe::kernels;
  constexpr int m = 256, n = 512, k = 192;
  void *a = nullptr, *b = nullptr, *c = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&a, std::size_t(m) * k * 2));
  LINPIPE_CUDA_OK(cudaMalloc(&b, std::size_t(n) * k * 2));
  LINPIPE_CUDA_OK(cudaMalloc(&c, std::size_t(m) * n * 2));
  LINPIPE_CUDA_OK(fill_random_bf16(a, std::size_t(m) * k, 101));
  LINPIPE_CUDA_OK(fill_random_bf16(b, std::size_t(n) * k, 102));
  LINPIPE_CUDA_OK(poison_bf16(c, std::size_t(m) * n));
  LINPIPE_CUDA_OK(gemm_bf16(a, b, c, m, n, k));
  LINPIPE_CUDA_OK(cudaDeviceSynchronize());
  std::vector<std::uint16_t> ha(std::size_t(m) * k), hb(std::size_t(n) * k), hc(std::size_t(m) * n);
  LINPIPE_CUDA_OK(cudaMemcpy(ha.data(), a, ha.size() * 2, cudaMemcpyDeviceToHost));
  LINPIPE_CUDA_OK(cudaMemcpy(hb.data(), b, hb.size() * 2, cudaMemcpyDeviceToHost));
  LINPIPE_CUDA_OK(cudaMemcpy(hc.data(), c, hc.size() * 2, cudaMemcpyDeviceToHost));
  double diff2 = 0, ref2 = 0;
  int unwritten = 0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double want = 0;
      for (int kk = 0; kk < k; ++kk)
        want += double(bf16_value(ha[std::size_t(i) * k + kk])) * bf16_value(hb[std::size_t(j) * k + kk]);
      const float got = bf16_value(hc[std::size_t(i) * n + j]);
      if (!std::isfinite(got)) ++unwritten;
      diff2 += (got - want) * (got - want);
      ref2 += want * want;
    }
  }
  const double error = std::sqrt(diff2 / ref2);
  std::printf("  %dx%dx%d vs float64: relative error %.3e\n", m, n, k, error);
  EXPECT_EQ(unwritten, 0);
  EXPECT_GT(ref2, 0.0);
  EXPECT_LT(error, 1e-2);
  LINPIPE_CUDA_OK(cudaFree(a));
  LINPIPE_CUDA_OK(cudaFree(b));
  LINPIPE_CUDA_OK(cudaFree(c));
}

// A small shape for compute-sanitizer (synccheck/racecheck): one tile, a few k-slices.
TEST(GemmSanitizer, SmallShape) {
  LINPIPE_REQUIRE_GPU();
  using namespace linpipe::kernels;
  constexpr int m = 256, n = 512, k = 512;
  void *a = nullptr, *b = nullptr, *c = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&a, std::size_t(m) * k * 2));
  LINPIPE_CUDA_OK(cudaMalloc(&b, std::size_t(n) * k * 2));
  LINPIPE_CUDA_OK(cudaMalloc(&c, std::size_t(m) * n * 2));
  LINPIPE_CUDA_OK(fill_random_bf16(a, std::size_t(m) * k, 1));
  LINPIPE_CUDA_OK(fill_random_bf16(b, std::size_t(n) * k, 2));
  for (const GemmConfig config : {GemmConfig{1}, GemmConfig{2}, GemmConfig{1, 16, true},
                                  GemmConfig{2, 16, true}, GemmConfig{1, 16, false, true},
                                  GemmConfig{1, 16, false, false, GemmSchedule::pingpong},
                                  GemmConfig{1, 16, true, false, GemmSchedule::pingpong},
                                  GemmConfig{2, 16, false, false, GemmSchedule::pingpong},
                                  GemmConfig{2, 16, true, false, GemmSchedule::pingpong}}) {
    LINPIPE_CUDA_OK(gemm_bf16(a, b, c, m, n, k, config));
    LINPIPE_CUDA_OK(cudaDeviceSynchronize());
  }
  LINPIPE_CUDA_OK(cudaFree(a));
  LINPIPE_CUDA_OK(cudaFree(b));
  LINPIPE_CUDA_OK(cudaFree(c));
}

// Early start (GemmConfig::early_start): a second GEMM that reads the first one's C as its A,
// launched to start under the first's last CTAs, still reads all of it. The chain, its
// intermediate poisoned first, gives bit for bit what the same chain gives launched in order.
TEST(GemmEarlyStart, AProductReadByTheNextEarlyStartedGemmIsWhole) {
  LINPIPE_REQUIRE_GPU();
  using namespace linpipe::kernels;
  constexpr int m = 4096, n = 2048, k = 1024, n2 = 1024;  // C1: m x n; C2 = C1 x B2^T: m x n2
  void *a = nullptr, *b = nullptr, *b2 = nullptr, *c1 = nullptr, *c2 = nullptr, *in_order = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&a, std::size_t(m) * k * 2));
  LINPIPE_CUDA_OK(cudaMalloc(&b, std::size_t(n) * k * 2));
  LINPIPE_CUDA_OK(cudaMalloc(&b2, std::size_t(n2) * n * 2));
  LINPIPE_CUDA_OK(cudaMalloc(&c1, std::size_t(m) * n * 2));
  LINPIPE_CUDA_OK(cudaMalloc(&c2, std::size_t(m) * n2 * 2));
  LINPIPE_CUDA_OK(cudaMalloc(&in_order, std::size_t(m) * n2 * 2));
  LINPIPE_CUDA_OK(fill_random_bf16(a, std::size_t(m) * k, 31));
  LINPIPE_CUDA_OK(fill_random_bf16(b, std::size_t(n) * k, 32));
  LINPIPE_CUDA_OK(fill_random_bf16(b2, std::size_t(n2) * n, 33));
  const auto chain = [&](void* out, bool early) {
    LINPIPE_CUDA_OK(poison_bf16(c1, std::size_t(m) * n));
    LINPIPE_CUDA_OK(poison_bf16(out, std::size_t(m) * n2));
    GemmConfig config;
    config.early_start = early;
    for (int repeat = 0; repeat < 4; ++repeat) {
      LINPIPE_CUDA_OK(gemm_bf16(a, b, c1, m, n, k, config));
      LINPIPE_CUDA_OK(gemm_bf16(c1, b2, out, m, n2, n, config));
    }
    LINPIPE_CUDA_OK(cudaDeviceSynchronize());
  };
  ASSERT_NO_FATAL_FAILURE(chain(in_order, false));
  ASSERT_NO_FATAL_FAILURE(chain(c2, true));
  std::vector<std::uint16_t> got(std::size_t(m) * n2), want(std::size_t(m) * n2);
  LINPIPE_CUDA_OK(cudaMemcpy(got.data(), c2, got.size() * 2, cudaMemcpyDeviceToHost));
  LINPIPE_CUDA_OK(cudaMemcpy(want.data(), in_order, want.size() * 2, cudaMemcpyDeviceToHost));
  std::size_t differing = 0;
  for (std::size_t i = 0; i < got.size(); ++i) differing += got[i] != want[i];
  EXPECT_EQ(differing, 0u) << "elements of the early-started chain that differ from the in-order one";
  Bf16Comparison cmp{};
  LINPIPE_CUDA_OK(compare_bf16(c2, in_order, got.size(), &cmp));
  EXPECT_EQ(cmp.non_finite, 0u);
  EXPECT_GT(cmp.ref_norm, 0.0);
  for (void* p : {a, b, b2, c1, c2, in_order}) LINPIPE_CUDA_OK(cudaFree(p));
}

// The host side is shared by threads: per-device launch limits measured once under a lock,
// tensor maps remembered per thread by operand. Two threads, each alternating between two
// operand sets of one shape on its own stream (cache hits and misses), must both compute the
// product of the operands they passed, in every call.
TEST(GemmHost, ThreadsAlternatingOperandsOfOneShapeGetTheirOwnProducts) {
  LINPIPE_REQUIRE_GPU();
  using namespace linpipe::kernels;
  constexpr int m = 512, n = 512, k = 256, sets = 4;
  const std::size_t na = std::size_t(m) * k, nb = std::size_t(n) * k, nc = std::size_t(m) * n;
  void *a[sets], *b[sets], *c[sets], *ref[sets];
  cublasHandle_t handle;
  ASSERT_EQ(cublasCreate(&handle), CUBLAS_STATUS_SUCCESS);
  for (int i = 0; i < sets; ++i) {
    LINPIPE_CUDA_OK(cudaMalloc(&a[i], na * 2));
    LINPIPE_CUDA_OK(cudaMalloc(&b[i], nb * 2));
    LINPIPE_CUDA_OK(cudaMalloc(&c[i], nc * 2));
    LINPIPE_CUDA_OK(cudaMalloc(&ref[i], nc * 2));
    LINPIPE_CUDA_OK(fill_random_bf16(a[i], na, 100 + i));
    LINPIPE_CUDA_OK(fill_random_bf16(b[i], nb, 200 + i));
    const float alpha = 1.0f, beta = 0.0f;
    ASSERT_EQ(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, b[i], CUDA_R_16BF, k,
                           a[i], CUDA_R_16BF, k, &beta, ref[i], CUDA_R_16BF, n, CUBLAS_COMPUTE_32F,
                           CUBLAS_GEMM_DEFAULT),
              CUBLAS_STATUS_SUCCESS);
  }
  LINPIPE_CUDA_OK(cudaDeviceSynchronize());
  ASSERT_EQ(cublasDestroy(handle), CUBLAS_STATUS_SUCCESS);
  std::atomic<int> failures{0};
  const auto worker = [&](int first) {  // thread 0 uses sets 0 and 1, thread 1 sets 2 and 3
    cudaStream_t stream;
    if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) return void(++failures);
    for (int call = 0; call < 6; ++call) {
      const int i = first + call % 2;
      if (poison_bf16(c[i], nc) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess ||
          gemm_bf16(a[i], b[i], c[i], m, n, k, GemmConfig{}, stream) != cudaSuccess ||
          cudaStreamSynchronize(stream) != cudaSuccess) {
        ++failures;
        continue;
      }
      Bf16Comparison cmp{};
      if (compare_bf16(c[i], ref[i], nc, &cmp) != cudaSuccess || cmp.non_finite != 0 ||
          !(cmp.relative_error < 1e-2))
        ++failures;
    }
    (void)cudaStreamDestroy(stream);
  };
  std::thread first(worker, 0), second(worker, 2);
  first.join();
  second.join();
  EXPECT_EQ(failures.load(), 0) << "calls that failed or computed another call's product";
  for (int i = 0; i < sets; ++i) {
    LINPIPE_CUDA_OK(cudaFree(a[i]));
    LINPIPE_CUDA_OK(cudaFree(b[i]));
    LINPIPE_CUDA_OK(cudaFree(c[i]));
    LINPIPE_CUDA_OK(cudaFree(ref[i]));
  }
}

// Runs without a GPU: the shape checks come before any CUDA call.
TEST(GemmShapes, BadShapesAreRejectedWithAReason) {
  using linpipe::kernels::gemm_bf16;
  using linpipe::kernels::GemmConfig;
  alignas(16) static unsigned char fake[64];  // never dereferenced: rejected first
  const Shape bad[] = {{0, 256, 64},   {100, 256, 64}, {128, 0, 64},  {128, 200, 64},
                       {128, 256, 0},  {128, 256, 40}, {-128, 256, 64}, {128, 256, 65}};
  for (const Shape& s : bad) {
    const char* why = nullptr;
    EXPECT_EQ(gemm_bf16(fake, fake, fake, s.m, s.n, s.k, nullptr, &why), cudaErrorInvalidValue)
        << s.m << "x" << s.n << "x" << s.k;
    ASSERT_NE(why, nullptr);
    EXPECT_GT(std::char_traits<char>::length(why), 10u);
  }
  const char* why = nullptr;
  EXPECT_EQ(gemm_bf16(nullptr, fake, fake, 128, 256, 64, nullptr, &why), cudaErrorInvalidValue);
  EXPECT_EQ(gemm_bf16(fake + 1, fake, fake, 128, 256, 64, nullptr, &why), cudaErrorInvalidValue);
  EXPECT_NE(why, nullptr);
  why = nullptr;  // 2-CTA clusters pair tiles along M: M must be a multiple of 256
  EXPECT_EQ(gemm_bf16(fake, fake, fake, 384, 256, 64, GemmConfig{2}, nullptr, &why),
            cudaErrorInvalidValue);
  EXPECT_NE(why, nullptr);
  EXPECT_EQ(gemm_bf16(fake, fake, fake, 256, 256, 64, GemmConfig{3}, nullptr, &why),
            cudaErrorInvalidValue);
}

// Runs without a GPU: the configuration gemm_bf16 picks when given none, as gemm.h states it.
TEST(GemmShapes, DefaultConfigurationRule) {
  using linpipe::kernels::gemm_config_for;
  struct RuleCase {
    int m, n, k;
    GemmSchedule schedule;
    int cluster_m;
  };
  constexpr int short_k = linpipe::kernels::gemm_pingpong_max_k;
  const RuleCase cases[] = {
      // N a multiple of 256: cooperative, unless K is short enough for the ping-pong.
      {4096, 4096, 4096, GemmSchedule::cooperative, 1},
      {4096, 4096, short_k + 64, GemmSchedule::cooperative, 1},
      {4096, 4096, short_k, GemmSchedule::pingpong, 2},
      {384, 768, 320, GemmSchedule::pingpong, 1},
      {384, 768, 2048, GemmSchedule::cooperative, 1},
      // N a multiple of 128 only: the ping-pong at every K.
      {512, 640, 4096, GemmSchedule::pingpong, 2},
      {384, 640, 1024, GemmSchedule::pingpong, 1},
      {128, 128, 64, GemmSchedule::pingpong, 1},
      {256, 128, 8192, GemmSchedule::pingpong, 2},
      {256, 200, 1024, GemmSchedule::cooperative, 1},  // no schedule takes it: the cooperative reason
  };
  for (const RuleCase& want : cases) {
    const linpipe::kernels::GemmConfig c = gemm_config_for(want.m, want.n, want.k);
    SCOPED_TRACE(testing::Message() << want.m << "x" << want.n << "x" << want.k);
    EXPECT_EQ(c.schedule, want.schedule);
    EXPECT_EQ(c.cluster_m, want.cluster_m);
    EXPECT_EQ(c.group_rows, linpipe::kernels::GemmConfig{}.group_rows);
    EXPECT_FALSE(c.warpgroup_release);
    EXPECT_FALSE(c.early_start);
  }
  alignas(16) static unsigned char fake[64];  // never dereferenced: rejected first
  const char* why = nullptr;
  EXPECT_EQ(linpipe::kernels::gemm_bf16(fake, fake, fake, 256, 200, 64, nullptr, &why), cudaErrorInvalidValue);
  ASSERT_NE(why, nullptr);
  EXPECT_NE(std::string(why).find("GemmSchedule::pingpong"), std::string::npos) << why;
}

// Runs without a GPU: where the default shares k-steps with a stream-K workspace (gemm.h's rule) and
// that a workspace without memory leaves the pick to gemm_config_for(m, n, k).
TEST(GemmShapes, StreamKRuleSplitsFewUnevenWaves) {
  using linpipe::kernels::gemm_stream_k_pays;
  constexpr int ctas = 132;  // an H100 SXM's or H200's persistent grid
  EXPECT_TRUE(gemm_stream_k_pays(1024, 1024, 16384, ctas));  // 32 tiles: a quarter wave, 256 k-steps
  EXPECT_TRUE(gemm_stream_k_pays(1024, 2048, 8192, ctas));   // 64 tiles, 128 k-steps
  EXPECT_FALSE(gemm_stream_k_pays(2048, 2048, 2048, ctas));  // 128 tiles: a CTA's run is a whole tile's
  EXPECT_FALSE(gemm_stream_k_pays(1024, 1024, 1024, ctas));  // 16 k-steps: 12 spared, 4 partials to add
  // A wave or more: up to 3 waves, the last at most 90% full.
  EXPECT_TRUE(gemm_stream_k_pays(1792, 2560, 8192, ctas));   // 140 tiles: 1.06 waves
  EXPECT_TRUE(gemm_stream_k_pays(3072, 3072, 4096, ctas));   // 288 tiles: 2.18 waves
  EXPECT_TRUE(gemm_stream_k_pays(2816, 4096, 4096, ctas));   // 352 tiles: the third wave 67% full
  EXPECT_FALSE(gemm_stream_k_pays(4096, 3072, 4096, ctas));  // 384 tiles: the third wave 91% full
  EXPECT_FALSE(gemm_stream_k_pays(4096, 4096, 4096, ctas));  // 3.88 waves
  EXPECT_FALSE(gemm_stream_k_pays(4224, 2048, 4096, ctas));  // 264 tiles: two even waves
  EXPECT_FALSE(gemm_stream_k_pays(1792, 2560, 64, ctas));    // one k-step: nothing to share
  EXPECT_TRUE(gemm_stream_k_pays(1024, 1024, 16384, 114));   // an H100 PCIe's grid
  EXPECT_FALSE(gemm_stream_k_pays(1024, 1024, 16384, 0));
  EXPECT_FALSE(gemm_stream_k_pays(0, 1024, 16384, ctas));

  linpipe::kernels::GemmWorkspace moved_from;
  const linpipe::kernels::GemmWorkspace kept = std::move(moved_from);
  const linpipe::kernels::GemmConfig no_memory =
      linpipe::kernels::gemm_config_for(1024, 1024, 16384, moved_from);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(no_memory.split, linpipe::kernels::GemmSplit::none);
  EXPECT_EQ(no_memory.workspace, nullptr);
  const linpipe::kernels::GemmConfig short_k = linpipe::kernels::gemm_config_for(4096, 4096, 1024, kept);
  EXPECT_EQ(short_k.split, linpipe::kernels::GemmSplit::none) << "the ping-pong's shapes are not split";
  EXPECT_EQ(short_k.schedule, GemmSchedule::pingpong);
}

// Runs without a GPU: what the ping-pong schedule takes (N a multiple of 128 where the
// cooperative tile needs 256) and what it refuses (clusters along an M of odd tile count,
// tracing), each with its reason.
TEST(GemmShapes, PingPongSchedulesItsOwnShapesAndRefusesTracing) {
  using linpipe::kernels::gemm_bf16;
  using linpipe::kernels::gemm_bf16_traced;
  using linpipe::kernels::GemmConfig;
  alignas(16) static unsigned char fake[64];  // never dereferenced: rejected first
  const GemmConfig pingpong{1, 16, false, false, GemmSchedule::pingpong};
  const char* why = nullptr;
  // N = 384: three cooperative tiles' worth of columns is not whole; the cooperative kernel
  // refuses it and names the schedule that takes it.
  EXPECT_EQ(gemm_bf16(fake, fake, fake, 128, 384, 64, GemmConfig{}, nullptr, &why), cudaErrorInvalidValue);
  ASSERT_NE(why, nullptr);
  EXPECT_NE(std::string(why).find("GemmSchedule::pingpong"), std::string::npos) << why;
  why = nullptr;
  EXPECT_EQ(gemm_bf16(fake, fake, fake, 128, 200, 64, pingpong, nullptr, &why), cudaErrorInvalidValue);
  ASSERT_NE(why, nullptr);
  EXPECT_NE(std::string(why).find("128"), std::string::npos) << why;
  why = nullptr;
  GemmConfig clustered = pingpong;
  clustered.cluster_m = 2;
  EXPECT_EQ(gemm_bf16(fake, fake, fake, 384, 128, 64, clustered, nullptr, &why), cudaErrorInvalidValue);
  ASSERT_NE(why, nullptr);
  EXPECT_NE(std::string(why).find("multiple of 256"), std::string::npos) << why;
  why = nullptr;
  EXPECT_EQ(gemm_bf16_traced(fake, fake, fake, 128, 256, 64, pingpong, fake, 1, 16, nullptr, &why),
            cudaErrorInvalidValue);
  ASSERT_NE(why, nullptr);
  EXPECT_NE(std::string(why).find("cooperative"), std::string::npos) << why;
  why = nullptr;
  GemmConfig unknown;
  unknown.schedule = static_cast<GemmSchedule>(7);
  EXPECT_EQ(gemm_bf16(fake, fake, fake, 128, 256, 64, unknown, nullptr, &why), cudaErrorInvalidValue);
  EXPECT_NE(why, nullptr);
}

}  // namespace
