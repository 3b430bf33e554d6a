// rmsnorm_bf16 (linpipe's kernel, kernels/rmsnorm.cu) and rmsnorm_bf16_plain (the anchor)
// against a double-precision reference computed here from the same bf16 inputs, for every
// supported width, both kernel shapes, persistent and one-shot grids, and row counts that
// leave a ragged last tile (and one smaller than a tile).
// Bound: |y - ref| <= (2^-8 + 2^-12) x |ref| + 2^-24 for every element. Rounding the result to
// bf16 costs at most 2^-8 relative (half an ulp of an 8-bit significand); the fp32 sums and
// rsqrt add about 2^-20. A row read from the wrong place, a wrong weight element or a missing
// store misses this by orders of magnitude; outputs start poisoned (NaN), and the rows past
// the last one keep their poison. Bad arguments are refused before any CUDA call.
#include "rmsnorm.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gpu_test_support.h"

namespace {

using linpipe::kernels::RmsNormConfig;
using linpipe::kernels::RmsNormShape;
using linpipe::kernels::RmsNormStore;

double bf16_value(std::uint16_t bits) { return bf16_to_float(bits); }

constexpr float eps = 1e-6f;
constexpr std::uint16_t poison = 0x7fc1;  // a NaN
constexpr std::uint64_t guard_rows = 2;

struct Case {
  int n;
  std::uint64_t rows;
};

class RmsNorm : public ::testing::TestWithParam<Case> {};

// Runs `run` on random data and checks every row against the double reference.
template <class Run>
void check(const Case& c, Run run) {
  const std::uint64_t elements = c.rows * c.n;
  std::vector<std::uint16_t> x(elements), w(c.n);
  std::mt19937 random(static_cast<unsigned>(c.n * 31 + c.rows));
  std::uniform_real_distribution<float> value(-4.0f, 4.0f), weight(-2.0f, 2.0f);
  for (auto& v : x) v = float_to_bf16(value(random));
  for (auto& v : w) v = float_to_bf16(weight(random));
  // A few rows far from unit scale, so the statistics matter.
  for (std::uint64_t r = 0; r < c.rows; r += 7) {
    for (int i = 0; i < c.n; ++i) x[r * c.n + i] = float_to_bf16(bf16_value(x[r * c.n + i]) * 1e-3f);
  }
  std::uint16_t *d_x = nullptr, *d_w = nullptr, *d_y = nullptr;
  const std::uint64_t y_elements = (c.rows + guard_rows) * c.n;
  LINPIPE_CUDA_OK(cudaMalloc(&d_x, elements * 2));
  LINPIPE_CUDA_OK(cudaMalloc(&d_w, c.n * 2));
  LINPIPE_CUDA_OK(cudaMalloc(&d_y, y_elements * 2));
  LINPIPE_CUDA_OK(cudaMemcpy(d_x, x.data(), elements * 2, cudaMemcpyHostToDevice));
  LINPIPE_CUDA_OK(cudaMemcpy(d_w, w.data(), c.n * 2, cudaMemcpyHostToDevice));
  const std::vector<std::uint16_t> poisoned(y_elements, poison);
  LINPIPE_CUDA_OK(cudaMemcpy(d_y, poisoned.data(), y_elements * 2, cudaMemcpyHostToDevice));
  LINPIPE_CUDA_OK(run(d_x, d_w, d_y));
  LINPIPE_CUDA_OK(cudaDeviceSynchronize());
  std::vector<std::uint16_t> y(y_elements);
  LINPIPE_CUDA_OK(cudaMemcpy(y.data(), d_y, y_elements * 2, cudaMemcpyDeviceToHost));
  LINPIPE_CUDA_OK(cudaFree(d_x));
  LINPIPE_CUDA_OK(cudaFree(d_w));
  LINPIPE_CUDA_OK(cudaFree(d_y));

  int reported = 0;
  for (std::uint64_t r = 0; r < c.rows; ++r) {
    double squares = 0.0;
    for (int i = 0; i < c.n; ++i) squares += bf16_value(x[r * c.n + i]) * bf16_value(x[r * c.n + i]);
    const double scale = 1.0 / std::sqrt(squares / c.n + eps);
    for (int i = 0; i < c.n; ++i) {
      const double ref = bf16_value(x[r * c.n + i]) * scale * bf16_value(w[i]);
      const double got = bf16_value(y[r * c.n + i]);
      const double bound = (std::ldexp(1.0, -8) + std::ldexp(1.0, -12)) * std::fabs(ref) +
                           std::ldexp(1.0, -24);
      if (!(std::fabs(got - ref) <= bound) && reported++ < 5) {
        ADD_FAILURE() << "row " << r << " column " << i << ": got " << got << ", reference " << ref;
      }
    }
  }
  for (std::uint64_t i = c.rows * c.n; i < y_elements; ++i) {
    if (y[i] != poison && reported++ < 5) ADD_FAILURE() << "wrote past the last row, element " << i;
  }
  EXPECT_EQ(reported, 0);
}

// Every shape, store and grid of linpipe's kernel.
TEST_P(RmsNorm, LinpipeEveryConfiguration) {
  LINPIPE_REQUIRE_GPU();
  const Case c = GetParam();
  for (const RmsNormShape shape :
       {RmsNormShape::wide, RmsNormShape::narrow, RmsNormShape::shallow, RmsNormShape::held,
        RmsNormShape::held_deep, RmsNormShape::single, RmsNormShape::single_row, RmsNormShape::pair,
        RmsNormShape::row, RmsNormShape::held_single, RmsNormShape::held_single_half}) {
    const bool held = shape == RmsNormShape::held || shape == RmsNormShape::held_deep ||
                      shape == RmsNormShape::held_single || shape == RmsNormShape::held_single_half;
    for (const RmsNormStore store : {RmsNormStore::bulk, RmsNormStore::threads}) {
      if (held && store == RmsNormStore::bulk) continue;  // refused: see RmsNormArguments
      for (const bool persistent : {true, false}) {
        SCOPED_TRACE(::testing::Message() << "shape " << static_cast<int>(shape) << " store "
                                          << static_cast<int>(store) << " persistent " << persistent);
        const bool evict_first = persistent && shape == RmsNormShape::shallow;
        const int copy_lanes = shape == RmsNormShape::narrow ? 1 : 32;
        check(c, [&](auto* x, auto* w, auto* y) {
          return linpipe::kernels::rmsnorm_bf16(x, w, y, c.rows, c.n, eps,
                                                {shape, store, persistent, evict_first, copy_lanes});
        });
      }
    }
  }
}
// The default (rmsnorm_config_for(n)): what a caller without a configuration gets.
TEST_P(RmsNorm, LinpipeDefault) {
  LINPIPE_REQUIRE_GPU();
  const Case c = GetParam();
  check(c, [&](auto* x, auto* w, auto* y) {
    return linpipe::kernels::rmsnorm_bf16(x, w, y, c.rows, c.n, eps);
  });
}
TEST_P(RmsNorm, PlainAnchor) {
  LINPIPE_REQUIRE_GPU();
  const Case c = GetParam();
  for (int vectors : {1, 2, 4}) {
    check(c, [&](auto* x, auto* w, auto* y) {
      return linpipe::kernels::rmsnorm_bf16_plain(x, w, y, c.rows, c.n, eps, vectors);
    });
  }
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return "n" + std::to_string(info.param.n) + "_rows" + std::to_string(info.param.rows);
}

// Rows per tile at n = 1024 .. 8192: 16, 8, 4, 4 (wide, shallow, single), 8, 4, 2, 2 (narrow),
// 16, 8, 4, 2 (held, held_deep, held_single: two rows a consumer up to n = 4096), 8, 4, 2, 1
// (held_single_half), 4 (single_row), 2 (pair) and 1 (row). Each count leaves a ragged last
// tile in every shape whose tile has more than one row (at n = 4096 a held consumer with one
// row of its two, and one with none); 3 rows are less than one tile of most shapes; 4 x 2000
// + 1 rows give a persistent CTA several laps of its ring, so every slot is refilled.
INSTANTIATE_TEST_SUITE_P(Widths, RmsNorm,
                         ::testing::Values(Case{1024, 3}, Case{1024, 16 * 300 + 5},
                                           Case{2048, 8 * 100 + 3}, Case{4096, 4 * 200 + 1},
                                           Case{4096, 4 * 2000 + 1}, Case{8192, 3},
                                           Case{8192, 4 * 150 + 3}),
                         case_name);

TEST(RmsNormArguments, RefusedWithASentenceBeforeAnyCudaCall) {
  const char* why = nullptr;
  alignas(16) static std::uint16_t buffer[64];
  const RmsNormConfig config{};
  EXPECT_EQ(linpipe::kernels::rmsnorm_bf16(buffer, buffer, buffer, 4, 1000, eps, config, nullptr, &why),
            cudaErrorInvalidValue);
  EXPECT_STREQ(why, "rmsnorm_bf16: n must be 1024, 2048, 4096 or 8192");
  EXPECT_EQ(linpipe::kernels::rmsnorm_bf16(buffer + 1, buffer, buffer, 4, 1024, eps, config, nullptr, &why),
            cudaErrorInvalidValue);
  EXPECT_STREQ(why, "rmsnorm_bf16: x, w and y must be 16-byte aligned (bulk copies)");
  EXPECT_EQ(linpipe::kernels::rmsnorm_bf16(
                buffer, buffer, buffer, 4, 1024, eps,
                {RmsNormShape::held, RmsNormStore::bulk, true, false, 1}, nullptr,
                &why),
            cudaErrorInvalidValue);
  EXPECT_STREQ(why, "rmsnorm_bf16: the held shapes store from registers (store = threads)");
  EXPECT_EQ(linpipe::kernels::rmsnorm_bf16(buffer, buffer, buffer, 0, 1024, eps), cudaSuccess)
      << "no rows: nothing to do";
}

}  // namespace
