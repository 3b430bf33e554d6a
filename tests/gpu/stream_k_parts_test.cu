// StreamKSchedule and PartialFlags on the GPU, without the GEMM: a one-warp kernel sums rows of
// k-steps (out[t] = the sum over k of in[t][k], 32 words a k-step) with the tiles' k-steps
// shared among CTAs; the finishers add their peers' partials. Exact integer sums for grids
// with several waves, under one wave and in phase; the flags back at zero after each launch;
// a grid that finishes with one SM free beside a kernel holding the rest; and a publisher
// that skips its publish makes the finisher's debug wait trap with a report naming the flags
// and the slot instead of hanging.
import linpipe;

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "gpu_test_support.h"

namespace {

constexpr int step_words = 32;  // one word a lane

struct SumsArgs {
  const std::uint32_t* in;  // tiles x k_steps x 32
  std::uint32_t* out;       // tiles x 32
  std::uint32_t* partials;  // a slot of 32 words a CTA
  std::uint32_t* flags;     // a flag a CTA, zero at rest
  std::uint32_t tiles, k_steps, shared_waves;
  bool in_phase, skip_publish;
};

__global__ void __launch_bounds__(32) stream_k_sums(SumsArgs args) {
  const linpipe::StreamKSchedule<> schedule(linpipe::TileSpace{{args.tiles, 1, 1}, {1, 1, 1}}, {}, args.k_steps,
                                            gridDim.x, args.shared_waves,
                                            args.in_phase ? linpipe::KStepOrder::in_phase
                                                          : linpipe::KStepOrder::from_zero);
  const linpipe::PartialFlags flags(args.flags, "row sums");
  const std::uint32_t lane = threadIdx.x;
  for (const linpipe::SplitItem item : schedule.items(blockIdx.x)) {
    const std::uint32_t tile = item.tile.position;
    std::uint32_t sum = 0;
    for (std::uint32_t j = item.k_begin; j < item.k_end; ++j)
      sum += args.in[(std::size_t(tile) * args.k_steps + item.k_step(j)) * step_words + lane];
    if (item.publishes()) {
      args.partials[blockIdx.x * step_words + lane] = sum;
      __syncwarp();  // every lane's partial before the one release
      if (lane == 0 && !args.skip_publish) flags.publish(blockIdx.x);
      continue;
    }
    for (std::uint32_t peer = item.first_peer; peer <= item.last_peer; ++peer) {
      if (lane == 0) flags.wait(peer);
      __syncwarp();  // the acquire before every lane's load
      sum += __ldcg(&args.partials[peer * step_words + lane]);
    }
    args.out[tile * step_words + lane] = sum;
  }
}

struct Case {
  std::uint32_t tiles, k_steps, ctas, shared_waves;
  bool in_phase;
};

// A case's inputs (words made from `seed`) and expected sums, and its device buffers, freed
// with it: the flags zeroed once, as a stream-K workspace is.
struct SumsProblem {
  Case c;
  std::vector<std::uint32_t> want;
  std::uint32_t *in_d = nullptr, *out_d = nullptr, *partials_d = nullptr, *flags_d = nullptr;

  SumsProblem(const Case& c_, std::uint32_t seed) : c(c_), want(c.tiles * step_words, 0) {
    std::vector<std::uint32_t> in(std::size_t(c.tiles) * c.k_steps * step_words);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint32_t>(i * seed + 7);
    for (std::uint32_t t = 0; t < c.tiles; ++t)
      for (std::uint32_t k = 0; k < c.k_steps; ++k)
        for (int w = 0; w < step_words; ++w) want[t * step_words + w] += in[(std::size_t(t) * c.k_steps + k) * step_words + w];
    EXPECT_EQ(cudaMalloc(&in_d, in.size() * 4), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&out_d, want.size() * 4), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&partials_d, c.ctas * step_words * 4), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&flags_d, linpipe::PartialFlags::bytes(c.ctas)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(in_d, in.data(), in.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaMemset(flags_d, 0, linpipe::PartialFlags::bytes(c.ctas)), cudaSuccess);
  }
  ~SumsProblem() {
    for (void* p : {static_cast<void*>(in_d), static_cast<void*>(out_d), static_cast<void*>(partials_d),
                    static_cast<void*>(flags_d)})
      (void)cudaFree(p);
  }
  SumsProblem(const SumsProblem&) = delete;
  SumsProblem& operator=(const SumsProblem&) = delete;

  SumsArgs args() const { return {in_d, out_d, partials_d, flags_d, c.tiles, c.k_steps, c.shared_waves, c.in_phase, false}; }
  std::vector<std::uint32_t> sums() const { return copied(out_d, want.size()); }
  std::vector<std::uint32_t> flags() const { return copied(flags_d, c.ctas); }
  static std::vector<std::uint32_t> copied(const std::uint32_t* device, std::size_t words) {
    std::vector<std::uint32_t> host(words);
    EXPECT_EQ(cudaMemcpy(host.data(), device, words * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    return host;
  }
};

class StreamKParts : public ::testing::TestWithParam<Case> {};

TEST_P(StreamKParts, SharedSumsAreExactAndTheFlagsComeBackToRest) {
  LINPIPE_REQUIRE_GPU();
  const SumsProblem problem(GetParam(), 2654435761u);
  for (int launch = 0; launch < 3; ++launch) {
    LINPIPE_CUDA_OK(cudaMemset(problem.out_d, 0xff, problem.want.size() * 4));
    stream_k_sums<<<problem.c.ctas, 32>>>(problem.args());
    LINPIPE_CUDA_OK(cudaDeviceSynchronize());
    ASSERT_EQ(problem.sums(), problem.want) << "launch " << launch;
    ASSERT_EQ(problem.flags(), std::vector<std::uint32_t>(problem.c.ctas, 0)) << "a flag left set after launch " << launch;
  }
}

// Several waves (the last partial one and one whole wave shared, or the last alone), fewer
// tiles than CTAs (every tile shared, a tile on up to 16 CTAs), in phase, and even waves.
INSTANTIATE_TEST_SUITE_P(Grids, StreamKParts,
                         ::testing::Values(Case{50, 7, 16, 1, false}, Case{50, 7, 16, 0, false},
                                           Case{37, 64, 16, 1, true}, Case{37, 64, 16, 0, true},
                                           Case{10, 40, 132, 1, false}, Case{3, 48, 132, 1, true},
                                           Case{64, 9, 16, 1, false}));

// Holds one SM a CTA (its dynamic shared memory leaves no room for another such CTA) until the
// host sets `*release`; each CTA sets its own word of `running` first (plain stores, which the
// host may read at any time, unlike an atomic on host memory).
__global__ void hold_sms(volatile std::uint32_t* release, volatile std::uint32_t* running) {
  if (threadIdx.x == 0) {
    running[blockIdx.x] = 1;
    __threadfence_system();
    while (*release == 0) __nanosleep(1000);
  }
}

// Mapped host words: [0] lets the holders go, [1 + i] says holder i runs. Its destructor lets
// them go whatever happened, so a failed assertion cannot leave the GPU held (and the test's
// cudaFree waiting on it for ever).
struct HolderWords {
  std::uint32_t* host = nullptr;
  std::uint32_t* device = nullptr;
  explicit HolderWords(int holders) {
    EXPECT_EQ(cudaHostAlloc(&host, (1 + holders) * sizeof(std::uint32_t), cudaHostAllocMapped), cudaSuccess);
    EXPECT_EQ(cudaHostGetDevicePointer(&device, host, 0), cudaSuccess);
    for (int i = 0; i <= holders; ++i) static_cast<volatile std::uint32_t*>(host)[i] = 0;
  }
  ~HolderWords() {
    let_go();
    (void)cudaDeviceSynchronize();
    (void)cudaFreeHost(host);
  }
  void let_go() { static_cast<volatile std::uint32_t*>(host)[0] = 1; }
  int running(int holders) const {
    int n = 0;
    for (int i = 1; i <= holders; ++i) n += static_cast<volatile const std::uint32_t*>(host)[i] != 0 ? 1 : 0;
    return n;
  }
};

// The schedule's promise: a finisher waits only for CTAs started before it, so the grid need
// not be resident at once. 132 CTAs of one SM each run on the one SM another stream's kernel
// leaves free, and finish before that kernel lets go. (With two SMs free, the old order, where
// the first CTA finished a tile and waited for later ones, also got through: the second SM let
// the later CTAs through one by one. With one, its finisher waited for a CTA that never ran.)
TEST(StreamKPartsResidency, FinishesOnOneFreeSmBesideAKernelHoldingTheRest) {
  LINPIPE_REQUIRE_GPU();
  int device = 0, sms = 0, smem_per_sm = 0;
  LINPIPE_CUDA_OK(cudaGetDevice(&device));
  LINPIPE_CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  LINPIPE_CUDA_OK(cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  const int one_per_sm = smem_per_sm / 2 + 1024;  // two such CTAs never fit on one SM
  LINPIPE_CUDA_OK(cudaFuncSetAttribute(hold_sms, cudaFuncAttributeMaxDynamicSharedMemorySize, one_per_sm));
  LINPIPE_CUDA_OK(cudaFuncSetAttribute(stream_k_sums, cudaFuncAttributeMaxDynamicSharedMemorySize, one_per_sm));
  cudaStream_t holder_stream, grid_stream;
  LINPIPE_CUDA_OK(cudaStreamCreateWithFlags(&holder_stream, cudaStreamNonBlocking));
  LINPIPE_CUDA_OK(cudaStreamCreateWithFlags(&grid_stream, cudaStreamNonBlocking));
  const SumsProblem problem(Case{10, 40, 132, 1, false}, 40503u);  // every tile shared by 13 or 14 CTAs
  LINPIPE_CUDA_OK(cudaMemset(problem.out_d, 0xff, problem.want.size() * 4));
  LINPIPE_CUDA_OK(cudaDeviceSynchronize());

  using Clock = std::chrono::steady_clock;
  const int holders = sms - 1;
  int held = 0;
  bool launched = false, finished_while_held = false;
  {
    HolderWords words(holders);  // declared after the problem: lets go before its buffers are freed
    hold_sms<<<holders, 32, one_per_sm, holder_stream>>>(&words.device[0], &words.device[1]);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    const auto holding_by = Clock::now() + std::chrono::seconds(10);
    while ((held = words.running(holders)) < holders && Clock::now() < holding_by) {
    }
    if (held == holders) {
      stream_k_sums<<<problem.c.ctas, 32, one_per_sm, grid_stream>>>(problem.args());
      launched = cudaGetLastError() == cudaSuccess;
      const auto done_by = Clock::now() + std::chrono::seconds(20);
      cudaError_t query = cudaErrorNotReady;
      while (launched && (query = cudaStreamQuery(grid_stream)) == cudaErrorNotReady && Clock::now() < done_by) {
      }
      finished_while_held = launched && query == cudaSuccess;
    }
  }  // let go either way, so a stuck grid finishes too and frees the GPU
  LINPIPE_CUDA_OK(cudaStreamDestroy(holder_stream));
  LINPIPE_CUDA_OK(cudaStreamDestroy(grid_stream));
  if (held < holders) GTEST_SKIP() << "only " << held << " of " << holders << " holding CTAs ran at once";
  EXPECT_TRUE(launched);
  EXPECT_TRUE(finished_while_held) << "the grid did not finish on the SM left free";
  EXPECT_EQ(problem.sums(), problem.want);
  EXPECT_EQ(problem.flags(), std::vector<std::uint32_t>(problem.c.ctas, 0)) << "a flag left set";
}

int run_unpublished_child() {
  std::uint32_t *in_d, *out_d, *partials_d, *flags_d;
  if (cudaMalloc(&in_d, 4 * 8 * step_words * 4) != cudaSuccess || cudaMalloc(&out_d, 4 * step_words * 4) != cudaSuccess ||
      cudaMalloc(&partials_d, 8 * step_words * 4) != cudaSuccess || cudaMalloc(&flags_d, 8 * 4) != cudaSuccess ||
      cudaMemset(flags_d, 0, 8 * 4) != cudaSuccess)
    return 3;
  // 4 tiles of 8 k-steps on 8 CTAs: every tile shared by two, and no publisher publishes.
  const linpipe::LaunchResult launched = linpipe::launch(
      stream_k_sums, {.threads = 32, .items = 8},
      SumsArgs{in_d, out_d, partials_d, flags_d, 4, 8, 1, false, true});
  return trap_child_status(launched, [] { return linpipe::synchronize(); });
}

TEST(StreamKPartsDebug, UnpublishedPartialTrapsWithItsReport) {
  if (std::getenv("LINPIPE_UNPUBLISHED_CHILD")) std::exit(run_unpublished_child());
  if (!linpipe::debug_checks) GTEST_SKIP() << "built without debug checks (NDEBUG)";
  LINPIPE_REQUIRE_GPU();
  const auto [status, output] =
      run_in_child_process("LINPIPE_UNPUBLISHED_CHILD", "1", "StreamKPartsDebug.UnpublishedPartialTrapsWithItsReport");
  EXPECT_EQ(status, 1) << "the finisher's wait should trap";
  EXPECT_NE(output.find("synchronize says: linpipe: wait for a shared tile's partial sum exceeded its budget"),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("partial flags 'row sums'"), std::string::npos) << output;
}

}  // namespace
