// Programmatic dependent launch through linpipe::launch (LaunchOptions::early_start) and the
// griddepcontrol wrappers: a kernel launched with early_start begins while the kernel before it
// still runs, and still reads everything that kernel wrote once past griddepcontrol_wait();
// one launched without it begins only after the kernel before it has ended.
import linpipe;

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "gpu_test_support.h"

namespace {

namespace ptx = linpipe::ptx;

// Each CTA: lets a dependent grid be scheduled, waits for the grid before it, holds for
// hold_ns (so this grid's end is late), then writes out[i] = in[i] + 1 over its share of n
// and records when it began and ended (globaltimer, shared by every SM).
__global__ void add_one_late(const std::uint32_t* in, std::uint32_t* out, int n,
                             unsigned long long hold_ns, unsigned long long* began_ended) {
  const unsigned long long began = ptx::globaltimer();
  ptx::griddepcontrol_launch_dependents();
  ptx::griddepcontrol_wait();
  while (ptx::globaltimer() - began < hold_ns) {
  }
  for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < n;
       i += static_cast<int>(gridDim.x * blockDim.x)) {
    out[i] = in[i] + 1;
  }
  __syncthreads();
  if (threadIdx.x == 0 && began_ended != nullptr) {
    began_ended[2 * blockIdx.x] = began;
    began_ended[2 * blockIdx.x + 1] = ptx::globaltimer();
  }
}

struct Buffers {
  std::uint32_t* a = nullptr;
  std::uint32_t* b = nullptr;
  std::uint32_t* c = nullptr;
  unsigned long long* times = nullptr;  // [2 launches][ctas][began, ended]
  explicit Buffers(int n, int ctas) {
    EXPECT_EQ(cudaMalloc(&a, n * sizeof(std::uint32_t)), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&b, n * sizeof(std::uint32_t)), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&c, n * sizeof(std::uint32_t)), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&times, 4 * ctas * sizeof(unsigned long long)), cudaSuccess);
  }
  ~Buffers() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    cudaFree(times);
  }
};

constexpr int n = 1 << 20;
constexpr int ctas = 8;  // a few SMs: the rest are free for an early-started grid
constexpr unsigned threads = 256;
constexpr unsigned long long hold_ns = 200'000;

// a = 7i; b = a + 1 (held late); c = b + 1, launched with or without early_start: c and the
// two launches' CTA times into `result`.
struct TwoLaunches {
  std::vector<std::uint32_t> c;
  std::vector<unsigned long long> times;
  unsigned long long first_ended() const {
    unsigned long long last = 0;
    for (int cta = 0; cta < ctas; ++cta) last = std::max(last, times[2 * cta + 1]);
    return last;
  }
  unsigned long long second_began() const {
    unsigned long long first = ~0ull;
    for (int cta = 0; cta < ctas; ++cta) first = std::min(first, times[2 * (ctas + cta)]);
    return first;
  }
};
void run_two(bool early_start, TwoLaunches& result) {
  Buffers buffers(n, ctas);
  std::vector<std::uint32_t> a(n);
  for (int i = 0; i < n; ++i) a[i] = static_cast<std::uint32_t>(i) * 7u;
  LINPIPE_CUDA_OK(cudaMemcpy(buffers.a, a.data(), n * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  LINPIPE_CUDA_OK(cudaMemset(buffers.c, 0, n * sizeof(std::uint32_t)));
  const linpipe::LaunchOptions first{.threads = threads, .items = ctas};
  linpipe::LaunchOptions second = first;
  second.early_start = early_start;
  const linpipe::LaunchResult one =
      linpipe::launch(add_one_late, first, buffers.a, buffers.b, n, hold_ns, buffers.times);
  EXPECT_TRUE(one) << one.why;
  const linpipe::LaunchResult two =
      linpipe::launch(add_one_late, second, buffers.b, buffers.c, n, 0ull, buffers.times + 2 * ctas);
  EXPECT_TRUE(two) << two.why;
  const linpipe::LaunchResult done = linpipe::synchronize();
  EXPECT_TRUE(done) << done.why;
  result = {std::vector<std::uint32_t>(n), std::vector<unsigned long long>(4 * ctas)};
  LINPIPE_CUDA_OK(cudaMemcpy(result.c.data(), buffers.c, n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  LINPIPE_CUDA_OK(cudaMemcpy(result.times.data(), buffers.times, result.times.size() * sizeof(unsigned long long),
                             cudaMemcpyDeviceToHost));
}

void expect_plus_two(const std::vector<std::uint32_t>& c) {
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(c[i], static_cast<std::uint32_t>(i) * 7u + 2u) << "element " << i;
  }
}

TEST(EarlyStart, SeesAllThePreviousKernelWrote) {
  LINPIPE_REQUIRE_GPU();
  TwoLaunches run;
  ASSERT_NO_FATAL_FAILURE(run_two(true, run));
  expect_plus_two(run.c);
}

// Timing only, so kept apart from the data check above: compute-sanitizer runs one kernel at a
// time, where no launch can begin early, and its runs leave this case out
// (kernels/bench/run_common.sh: early_start_sanitized).
TEST(EarlyStart, BeginsWhileThePreviousKernelRuns) {
  LINPIPE_REQUIRE_GPU();
  TwoLaunches run;
  ASSERT_NO_FATAL_FAILURE(run_two(true, run));
  EXPECT_LT(run.second_began(), run.first_ended())
      << "the early-started kernel began only after the one before it ended";
}

TEST(EarlyStart, WithoutItTheNextKernelBeginsAfterThePreviousEnds) {
  LINPIPE_REQUIRE_GPU();
  TwoLaunches run;
  ASSERT_NO_FATAL_FAILURE(run_two(false, run));
  expect_plus_two(run.c);
  EXPECT_GE(run.second_began(), run.first_ended());
}

// Many early-started launches back to back, each a multi-wave grid reading what the one before
// wrote: every step sees the whole of the last.
TEST(EarlyStart, AChainOfEarlyStartsAddsUpExactly) {
  LINPIPE_REQUIRE_GPU();
  constexpr int big = 1 << 24, steps = 64;
  Buffers buffers(big, 1);
  LINPIPE_CUDA_OK(cudaMemset(buffers.a, 0, big * sizeof(std::uint32_t)));
  const linpipe::LaunchOptions how{.threads = threads, .items = 4096, .early_start = true};
  std::uint32_t* from = buffers.a;
  std::uint32_t* to = buffers.b;
  for (int step = 0; step < steps; ++step) {
    const linpipe::LaunchResult launched = linpipe::launch(add_one_late, how, from, to, big, 0ull, nullptr);
    ASSERT_TRUE(launched) << launched.why;
    std::swap(from, to);
  }
  const linpipe::LaunchResult done = linpipe::synchronize();
  ASSERT_TRUE(done) << done.why;
  std::vector<std::uint32_t> back(big);
  LINPIPE_CUDA_OK(cudaMemcpy(back.data(), from, big * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  for (int i = 0; i < big; ++i) ASSERT_EQ(back[i], static_cast<std::uint32_t>(steps)) << "element " << i;
}

}  // namespace
