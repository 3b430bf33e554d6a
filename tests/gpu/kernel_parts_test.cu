// The kernel parts on the GPU: a kernel built only from WarpRoles, a WorkSchedule, a
// SharedPlan, a StoreEpilogue and launch() transforms rows through a ring (a per-block extra
// filled by the consumers alone, behind WarpRoles::sync_consumers(); ragged last tile,
// one-shot and persistent grids, epilogue lags 0 and 1); launch() refuses what cannot run with
// a sentence and sizes a persistent grid to the SMs its stream may use (a green context's
// share; launch_grid_on_device: the whole device's); and a debug-build trap (an extra
// arrival) comes back from synchronize() with its report, and is printed at exit when nobody
// asks. Ordered turns: ordered_turns_test.cu; a stream's kept scratch memory:
// stream_scratch_test.cu.
import linpipe;

#include <cuda.h>  // green contexts, through linpipe::driver::entry_point: nothing links libcuda
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gpu_test_support.h"

namespace {

constexpr int row_words = 256;  // a row: 1 KiB of uint32
constexpr int tile_rows = 4;    // a tile: 4 rows, 4 KiB
constexpr int stages = 4;
using Roles = linpipe::WarpRoles<1, 2>;  // one producer warp, two consumer warps
using Pipeline = linpipe::ProducerConsumerPipeline<stages>;
using Release = linpipe::ReleaseToCluster<1>;
struct Tile {
  std::uint32_t words[tile_rows][row_words];
};
struct Shared {
  linpipe::PipelineStorage<Pipeline, Tile> rows;
  std::uint32_t offset[row_words];  // a per-block extra: added to every row
};
using Plan = linpipe::SharedPlan<Shared>;
using Schedule = linpipe::WorkSchedule<>;

// out[r][w] = 3 * in[r][w] + offset[w], row by row; each consumer warp takes every other row of
// a tile, writes it in place and stores it with the bulk engine through a StoreEpilogue.
template <int Lag>
__global__ void __launch_bounds__(Roles::threads) transform_rows(const std::uint32_t* in,
                                                                std::uint32_t* out,
                                                                const std::uint32_t* offset,
                                                                Schedule schedule) {
  extern __shared__ __align__(16) std::byte smem[];
  Shared& shared = Plan::place(smem);
  const auto me = Roles::this_thread();
  if (threadIdx.x == 0) Pipeline(shared.rows.barriers).init_mbars(linpipe::Arrivals<Roles, Release>{});
  __syncthreads();

  Pipeline pipe(shared.rows.barriers, "transform_rows");
  if (me.is_producer()) {
    if (!me.leader()) return;
    for (const linpipe::WorkItem item : schedule.items()) {
      auto stage = pipe.acquire_producer();
      const auto full = stage.mbar();
      full.arrive_expect_tx(item.bytes<std::uint32_t>());
      linpipe::ptx::cp_async_bulk_global_to_shared(&shared.rows[stage], in + item.origin.y * row_words,
                                                   item.bytes<std::uint32_t>(), full.address());
      stage.release();
    }
    pipe.drain();
    return;
  }
  // The consumers fill the per-block extra while the producer is already copying: their own
  // barrier orders the fill before every consumer's reads, without the producer warp.
  for (std::uint32_t w = me.thread_in_role(); w < row_words; w += Roles::consumer_threads) {
    shared.offset[w] = offset[w];
  }
  me.sync_consumers();
  linpipe::StoreEpilogue<Pipeline::ConsumerStageType, Lag, Release> epilogue(Release{me.lane()});
  for (const linpipe::WorkItem item : schedule.items()) {
    auto stage = pipe.acquire_consumer();
    Tile& tile = shared.rows[stage];
    for (std::uint32_t r = me.consumer(); r < item.extent.y; r += Roles::consumers) {
      for (std::uint32_t w = me.lane(); w < row_words; w += 32) {
        tile.words[r][w] = 3 * tile.words[r][w] + shared.offset[w];
      }
    }
    epilogue.store(std::move(stage), [&] {
      for (std::uint32_t r = me.consumer(); r < item.extent.y; r += Roles::consumers) {
        linpipe::ptx::cp_async_bulk_shared_to_global(out + (item.origin.y + r) * row_words,
                                                     tile.words[r], row_words * 4);
      }
    });
  }
  epilogue.finish();
}

template <int Lag>
void transform_and_check(std::uint64_t rows, linpipe::GridKind grid) {
  std::vector<std::uint32_t> in(rows * row_words), offset(row_words);
  std::mt19937 random(static_cast<unsigned>(rows) * 7 + Lag);
  for (auto& v : in) v = random();
  for (auto& v : offset) v = random();
  std::uint32_t *d_in = nullptr, *d_out = nullptr, *d_offset = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&d_in, in.size() * 4));
  LINPIPE_CUDA_OK(cudaMalloc(&d_out, in.size() * 4));
  LINPIPE_CUDA_OK(cudaMalloc(&d_offset, row_words * 4));
  LINPIPE_CUDA_OK(cudaMemcpy(d_in, in.data(), in.size() * 4, cudaMemcpyHostToDevice));
  LINPIPE_CUDA_OK(cudaMemcpy(d_offset, offset.data(), row_words * 4, cudaMemcpyHostToDevice));
  LINPIPE_CUDA_OK(cudaMemset(d_out, 0xff, in.size() * 4));  // poison

  const Schedule schedule(linpipe::TileSpace{{row_words, rows, 1}, {row_words, tile_rows, 1}});
  const linpipe::LaunchResult launched = linpipe::launch(
      transform_rows<Lag>,
      {.threads = Roles::threads, .shared_bytes = Plan::launch_bytes(),
       .items = schedule.count(), .grid = grid, .ctas_per_sm = 1},
      d_in, d_out, d_offset, schedule);
  ASSERT_TRUE(launched) << launched.why;
  if (grid == linpipe::GridKind::one_per_item) EXPECT_EQ(launched.grid, schedule.count());
  const linpipe::LaunchResult done = linpipe::synchronize();
  ASSERT_TRUE(done) << done.why;

  std::vector<std::uint32_t> back(in.size());
  LINPIPE_CUDA_OK(cudaMemcpy(back.data(), d_out, back.size() * 4, cudaMemcpyDeviceToHost));
  LINPIPE_CUDA_OK(cudaFree(d_in));
  LINPIPE_CUDA_OK(cudaFree(d_out));
  LINPIPE_CUDA_OK(cudaFree(d_offset));
  for (std::uint64_t r = 0; r < rows; ++r) {
    for (int w = 0; w < row_words; ++w) {
      const std::uint32_t expected = 3 * in[r * row_words + w] + offset[w];
      ASSERT_EQ(back[r * row_words + w], expected) << "row " << r << " word " << w;
    }
  }
}

TEST(KernelParts, PersistentGridRaggedTileLagOne) {
  LINPIPE_REQUIRE_GPU();
  transform_and_check<1>(4 * 1000 + 3, linpipe::GridKind::persistent);
}
TEST(KernelParts, OneShotGridLagZero) {
  LINPIPE_REQUIRE_GPU();
  transform_and_check<0>(4 * 37 + 1, linpipe::GridKind::one_per_item);
}
TEST(KernelParts, PersistentGridLagTwoFewRows) {
  LINPIPE_REQUIRE_GPU();
  transform_and_check<2>(3, linpipe::GridKind::persistent);
}

TEST(KernelParts, LaunchRefusesWhatCannotRunWithASentence) {
  LINPIPE_REQUIRE_GPU();
  const Schedule schedule(linpipe::TileSpace{{row_words, 8, 1}, {row_words, tile_rows, 1}});
  const linpipe::LaunchResult too_big = linpipe::launch(
      transform_rows<1>, {.threads = Roles::threads, .shared_bytes = 300 * 1024, .items = 2},
      nullptr, nullptr, nullptr, schedule);
  EXPECT_FALSE(too_big);
  EXPECT_NE(std::string(too_big.why).find("asks for 307200 bytes of dynamic shared memory"),
            std::string::npos)
      << too_big.why;
  const linpipe::LaunchResult nothing = linpipe::launch(
      transform_rows<1>, {.threads = Roles::threads, .shared_bytes = Plan::launch_bytes(), .items = 0},
      nullptr, nullptr, nullptr, schedule);
  EXPECT_FALSE(nothing);
  EXPECT_NE(std::string(nothing.why).find("0 CTAs for 0 work items"), std::string::npos)
      << nothing.why;
}

// Each CTA writes 1 + its rank in its cluster, after touching the last byte of its dynamic
// shared memory (so a launch that did not opt into that much fails).
__global__ void mark_ctas(std::uint32_t* out, unsigned shared_bytes) {
  extern __shared__ __align__(16) std::byte smem[];
  if (threadIdx.x == 0) {
    smem[shared_bytes - 1] = std::byte{1};
    out[blockIdx.x] = 1 + linpipe::ptx::cluster_ctarank();
  }
}

// A persistent grid of clusters holds the clusters that fit at once (cluster placement, not
// SMs x CTAs per SM), whole clusters, each CTA knowing its rank.
TEST(KernelParts, PersistentClusterGridIsWhatFitsAtOnce) {
  LINPIPE_REQUIRE_GPU();
  constexpr unsigned cluster = 2, threads = 128, bytes = 150 * 1024;  // one CTA an SM
  std::uint32_t* out = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&out, 4096 * 4));
  LINPIPE_CUDA_OK(cudaMemset(out, 0, 4096 * 4));
  const linpipe::LaunchResult launched = linpipe::launch(
      mark_ctas, {.threads = threads, .shared_bytes = bytes, .items = 1u << 20,
                  .grid = linpipe::GridKind::persistent, .cluster = cluster},
      out, bytes);
  ASSERT_TRUE(launched) << launched.why;
  const linpipe::LaunchResult done = linpipe::synchronize();
  ASSERT_TRUE(done) << done.why;

  cudaLaunchConfig_t probe{};
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim = {cluster, 1, 1};
  int sms = 0, clusters = 0;
  LINPIPE_CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  probe.gridDim = dim3(sms / cluster * cluster);
  probe.blockDim = dim3(threads);
  probe.dynamicSmemBytes = bytes;
  probe.attrs = &attribute;
  probe.numAttrs = 1;
  LINPIPE_CUDA_OK(cudaOccupancyMaxActiveClusters(&clusters, mark_ctas, &probe));
  EXPECT_EQ(launched.grid, static_cast<unsigned>(clusters) * cluster);
  EXPECT_LE(launched.grid, static_cast<unsigned>(sms));

  std::vector<std::uint32_t> back(4096);
  LINPIPE_CUDA_OK(cudaMemcpy(back.data(), out, back.size() * 4, cudaMemcpyDeviceToHost));
  LINPIPE_CUDA_OK(cudaFree(out));
  for (unsigned cta = 0; cta < 4096; ++cta) {
    const std::uint32_t expected = cta < launched.grid ? 1 + cta % cluster : 0;
    ASSERT_EQ(back[cta], expected) << "CTA " << cta;
  }
}

// max_ctas caps a persistent grid below what fits (SMs left to concurrent work), in whole
// clusters, and never raises it above what fits.
TEST(KernelParts, PersistentGridStopsAtMaxCtas) {
  LINPIPE_REQUIRE_GPU();
  constexpr unsigned threads = 128, bytes = 150 * 1024;  // one CTA an SM
  int sms = 0;
  LINPIPE_CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const auto grid = [&](unsigned max_ctas, unsigned cluster) {
    const linpipe::LaunchResult r = linpipe::launch_grid(
        mark_ctas, {.threads = threads, .shared_bytes = bytes, .items = 1u << 20,
                    .grid = linpipe::GridKind::persistent, .max_ctas = max_ctas, .cluster = cluster});
    EXPECT_TRUE(r) << r.why;
    return r.grid;
  };
  EXPECT_EQ(grid(7, 1), 7u);
  EXPECT_EQ(grid(7, 2), 6u) << "a cap is rounded down to whole clusters";
  EXPECT_EQ(grid(1, 2), 2u) << "a cap below one cluster still launches one";
  EXPECT_EQ(grid(100000, 1), static_cast<unsigned>(sms)) << "a cap above what fits changes nothing";
  EXPECT_EQ(grid(0, 1), static_cast<unsigned>(sms)) << "0 is no cap";
}

// A green context holding `sms` of the GPU's SMs and a stream of its own (cuGreenCtxStreamCreate),
// with the green context current on this thread while it lives where `current` (the context
// before it current again after). ok() false with why() where the driver or GPU has no green
// contexts; a step that should work and fails is an error() instead.
class GreenContext {
 public:
  GreenContext(unsigned sms, bool current) {
    cudaError_t status;
    const auto get_device = linpipe::driver::entry_point<PFN_cuDeviceGet_v2000>("cuDeviceGet", 2000, &status);
    const auto device_resource = linpipe::driver::entry_point<PFN_cuDeviceGetDevResource_v12040>(
        "cuDeviceGetDevResource", 12040, &status);
    const auto split = linpipe::driver::entry_point<PFN_cuDevSmResourceSplitByCount_v12040>(
        "cuDevSmResourceSplitByCount", 12040, &status);
    const auto describe = linpipe::driver::entry_point<PFN_cuDevResourceGenerateDesc_v12040>(
        "cuDevResourceGenerateDesc", 12040, &status);
    const auto create = linpipe::driver::entry_point<PFN_cuGreenCtxCreate_v12040>("cuGreenCtxCreate", 12040, &status);
    const auto as_context =
        linpipe::driver::entry_point<PFN_cuCtxFromGreenCtx_v12040>("cuCtxFromGreenCtx", 12040, &status);
    const auto new_stream = linpipe::driver::entry_point<PFN_cuGreenCtxStreamCreate_v12050>(
        "cuGreenCtxStreamCreate", 12050, &status);
    const auto get_current = linpipe::driver::entry_point<PFN_cuCtxGetCurrent_v4000>("cuCtxGetCurrent", 4000, &status);
    set_current_ = linpipe::driver::entry_point<PFN_cuCtxSetCurrent_v4000>("cuCtxSetCurrent", 4000, &status);
    destroy_ = linpipe::driver::entry_point<PFN_cuGreenCtxDestroy_v12040>("cuGreenCtxDestroy", 12040, &status);
    destroy_stream_ = linpipe::driver::entry_point<PFN_cuStreamDestroy_v4000>("cuStreamDestroy", 4000, &status);
    if (!get_device || !device_resource || !split || !describe || !create || !as_context || !new_stream ||
        !get_current || !set_current_ || !destroy_ || !destroy_stream_) {
      why_ = "this driver has no green-context entry points";
      return;
    }
    CUdevice device = 0;
    CUdevResource whole{}, part{}, rest{};
    unsigned groups = 1;
    CUdevResourceDesc desc = nullptr;
    if (cudaGetDevice(&ordinal_) != cudaSuccess || cudaFree(nullptr) != cudaSuccess ||
        get_device(&device, ordinal_) != CUDA_SUCCESS || get_current(&before_) != CUDA_SUCCESS ||
        device_resource(device, &whole, CU_DEV_RESOURCE_TYPE_SM) != CUDA_SUCCESS ||
        split(&part, &groups, &whole, &rest, 0, sms) != CUDA_SUCCESS || groups != 1 ||
        describe(&desc, &part, 1) != CUDA_SUCCESS) {
      error_ = "could not split " + std::to_string(sms) + " SMs off the device";
      return;
    }
    const CUresult created = create(&green_, desc, device, CU_GREEN_CTX_DEFAULT_STREAM);
    if (created == CUDA_ERROR_NOT_SUPPORTED) {  // MIG, some virtual GPUs
      why_ = "this GPU does not create green contexts";
      return;
    }
    CUstream stream = nullptr;
    if (created != CUDA_SUCCESS || as_context(&context_, green_) != CUDA_SUCCESS ||
        new_stream(&stream, green_, CU_STREAM_NON_BLOCKING, 0) != CUDA_SUCCESS ||
        (current && set_current_(context_) != CUDA_SUCCESS)) {
      error_ = "could not create a green context of " + std::to_string(sms) + " SMs and its stream";
      return;
    }
    stream_ = stream;
    made_current_ = current;
    sms_ = part.sm.smCount;
  }
  ~GreenContext() {
    if (stream_ != nullptr) (void)destroy_stream_(stream_);
    if (made_current_) (void)set_current_(before_);
    if (green_ != nullptr) (void)destroy_(green_);
  }
  GreenContext(const GreenContext&) = delete;
  GreenContext& operator=(const GreenContext&) = delete;

  bool ok() const { return sms_ != 0; }
  const std::string& why() const { return why_; }
  const std::string& error() const { return error_; }
  int ordinal() const { return ordinal_; }
  unsigned sms() const { return sms_; }  // as the driver split them (rounded to its granule)
  cudaStream_t stream() const { return stream_; }

 private:
  PFN_cuCtxSetCurrent_v4000 set_current_ = nullptr;
  PFN_cuGreenCtxDestroy_v12040 destroy_ = nullptr;
  PFN_cuStreamDestroy_v4000 destroy_stream_ = nullptr;
  CUcontext before_ = nullptr, context_ = nullptr;
  CUgreenCtx green_ = nullptr;
  CUstream stream_ = nullptr;
  bool made_current_ = false;
  int ordinal_ = 0;
  unsigned sms_ = 0;
  std::string why_, error_;
};

// Every CTA counts itself in and waits, at most `budget_ns`, until the whole grid has; then
// writes 1 if it saw the whole grid, 2 if not. A grid larger than what can run at once never
// counts full while its first CTAs wait: as stream-K's finishers wait for their peers.
__global__ void wait_for_the_whole_grid(unsigned* arrived, std::uint32_t* out, unsigned shared_bytes,
                                        unsigned long long budget_ns) {
  extern __shared__ __align__(16) std::byte smem[];
  if (threadIdx.x != 0) return;
  smem[shared_bytes - 1] = std::byte{1};
  atomicAdd(arrived, 1u);
  const std::uint64_t start = linpipe::ptx::globaltimer();
  unsigned seen = 0;
  while ((seen = atomicAdd(arrived, 0u)) < gridDim.x && linpipe::ptx::globaltimer() - start < budget_ns) {
  }
  out[blockIdx.x] = seen >= gridDim.x ? 1 : 2;
}

// A persistent grid of wait_for_the_whole_grid on `stream` in `green`'s share of the SMs: one
// CTA on each of its SMs (150 KiB of shared memory allow one an SM), every one of which saw
// the whole grid run with it. Sized from the whole GPU's SMs, most CTAs could not start until
// the first ones gave up waiting.
void expect_grid_fits(const GreenContext& green, cudaStream_t stream) {
  int device_sms = 0;
  LINPIPE_CUDA_OK(cudaDeviceGetAttribute(&device_sms, cudaDevAttrMultiProcessorCount, green.ordinal()));
  ASSERT_LT(green.sms(), static_cast<unsigned>(device_sms)) << "the green context must hold a share of the SMs";
  const linpipe::StreamShare share = linpipe::stream_share(stream, green.ordinal(), device_sms);
  EXPECT_TRUE(share.green);
  EXPECT_EQ(share.sms, static_cast<int>(green.sms()));

  constexpr unsigned threads = 128, bytes = 150 * 1024, slots = 4096;
  unsigned* arrived = nullptr;
  std::uint32_t* out = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&arrived, sizeof(unsigned) + slots * 4));
  out = reinterpret_cast<std::uint32_t*>(arrived + 1);
  LINPIPE_CUDA_OK(cudaMemset(arrived, 0, sizeof(unsigned) + slots * 4));
  const linpipe::LaunchResult launched = linpipe::launch(
      wait_for_the_whole_grid,
      {.threads = threads, .shared_bytes = bytes, .items = 1u << 20, .grid = linpipe::GridKind::persistent,
       .stream = stream},
      arrived, out, bytes, 200'000'000ull);
  // The green context's stream does not block on the legacy stream: wait for it first.
  const cudaError_t finished = cudaStreamSynchronize(stream);
  const linpipe::LaunchResult done = launched ? linpipe::synchronize() : launched;
  std::vector<std::uint32_t> back(slots);
  const cudaError_t copied = cudaMemcpy(back.data(), out, slots * 4, cudaMemcpyDeviceToHost);
  LINPIPE_CUDA_OK(cudaFree(arrived));
  ASSERT_TRUE(launched) << launched.why;
  LINPIPE_CUDA_OK(finished);
  ASSERT_TRUE(done) << done.why;
  LINPIPE_CUDA_OK(copied);
  EXPECT_EQ(launched.grid, green.sms()) << "one CTA on each of the green context's SMs";
  for (unsigned cta = 0; cta < launched.grid; ++cta)
    ASSERT_EQ(back[cta], 1u) << "CTA " << cta << " of " << launched.grid << " waited for CTAs that never ran with it";
  // Memory indexed by CTA that every share's launches use is sized on the whole device.
  const linpipe::LaunchResult whole = linpipe::launch_grid_on_device(
      wait_for_the_whole_grid,
      {.threads = threads, .shared_bytes = bytes, .items = 1u << 20, .grid = linpipe::GridKind::persistent,
       .stream = stream});
  ASSERT_TRUE(whole) << whole.why;
  EXPECT_EQ(whole.grid, static_cast<unsigned>(device_sms)) << "one CTA on each of the device's SMs";
}

// A persistent grid fits the SMs its stream may use: a green context's 16, whether the green
// context is current and the launch goes to the default stream, or the primary context stays
// current and the launch goes to a stream of the green context (the usual way to use one).
TEST(KernelParts, PersistentGridFitsAGreenContextsShareOfTheSms) {
  LINPIPE_REQUIRE_GPU();
  {
    const GreenContext green(16, /*current=*/true);
    ASSERT_TRUE(green.error().empty()) << green.error();
    if (!green.ok()) GTEST_SKIP() << green.why();
    SCOPED_TRACE("green context current, default stream");
    expect_grid_fits(green, nullptr);
  }
  const GreenContext green(16, /*current=*/false);
  ASSERT_TRUE(green.error().empty()) << green.error();
  SCOPED_TRACE("primary context current, a stream of the green context");
  expect_grid_fits(green, green.stream());
}

// kept_why hands a launch's reason to a `const char** why` caller: the text outlives the
// LaunchResult it came from, and a later call on the same thread replaces it. No GPU needed.
TEST(KernelParts, KeptWhyOutlivesItsLaunchResult) {
  const char* kept = nullptr;
  {
    linpipe::LaunchResult failed;
    failed.status = cudaErrorInvalidValue;
    std::snprintf(failed.why, sizeof(failed.why), "use fewer stages");
    kept = linpipe::kept_why(failed);
    std::memset(failed.why, 0, sizeof(failed.why));
  }
  EXPECT_STREQ(kept, "use fewer stages");
  linpipe::LaunchResult next;
  std::snprintf(next.why, sizeof(next.why), "a longer reason than the first one");
  EXPECT_STREQ(linpipe::kept_why(next), "a longer reason than the first one");
}

// The shared-memory opt-in is remembered per kernel, and raised, never lowered, by later
// launches: a smaller launch between two larger ones leaves the larger one launchable.
TEST(KernelParts, SharedMemoryOptInFollowsTheLargestLaunch) {
  LINPIPE_REQUIRE_GPU();
  std::uint32_t* out = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&out, 4));
  for (const unsigned bytes : {100u * 1024, 50u * 1024, 100u * 1024, 200u * 1024, 1024u}) {
    const linpipe::LaunchResult launched =
        linpipe::launch(mark_ctas, {.threads = 32, .shared_bytes = bytes, .items = 1}, out, bytes);
    ASSERT_TRUE(launched) << bytes << " bytes: " << launched.why;
    const linpipe::LaunchResult done = linpipe::synchronize();
    ASSERT_TRUE(done) << bytes << " bytes: " << done.why;
  }
  LINPIPE_CUDA_OK(cudaFree(out));
}

// Every lane of a consumer warp releases where init_mbars counted one arrival per warp.
__global__ void every_lane_releases(std::uint32_t* out) {
  using Small = linpipe::ProducerConsumerPipeline<2>;
  __shared__ Small::Barriers barriers;
  if (threadIdx.x == 0) Small(barriers).init_mbars(1, /*one per warp=*/1);
  __syncthreads();
  Small pipe(barriers, "every lane");
  if (threadIdx.x == 0) {
    auto stage = pipe.acquire_producer();
    stage.mbar().arrive();
    stage.release();
  } else if (threadIdx.x >= 32) {
    auto stage = pipe.acquire_consumer();
    out[threadIdx.x] = stage.index();
    stage.release();  // 32 arrivals where 1 was counted
  }
}

int run_trap_child(const std::string& which) {
  std::uint32_t* out = nullptr;
  if (cudaMalloc(&out, 64 * 4) != cudaSuccess) return 3;
  const linpipe::LaunchResult launched =
      linpipe::launch(every_lane_releases, {.threads = 64, .items = 1}, out);
  if (which == "ask") return trap_child_status(launched, [] { return linpipe::synchronize(); });
  if (!launched) {
    std::fprintf(stderr, "child: %s\n", launched.why);
    return 2;
  }
  // "exit": the program never asks; the report must still reach stderr when it exits.
  std::fprintf(stderr, "child: leaving without asking (%s)\n",
               cudaGetErrorName(cudaDeviceSynchronize()));
  return 1;
}

std::pair<int, std::string> run_trap_in_child(const std::string& which) {
  return run_in_child_process("LINPIPE_TRAP_CHILD", which, "KernelParts.ExtraArrival*");
}

TEST(KernelParts, ExtraArrivalTrapsAndSynchronizeReturnsTheReport) {
  if (const char* which = std::getenv("LINPIPE_TRAP_CHILD")) std::exit(run_trap_child(which));
  if (!linpipe::debug_checks) GTEST_SKIP() << "built without debug checks (NDEBUG)";
  LINPIPE_REQUIRE_GPU();
  const auto [status, output] = run_trap_in_child("ask");
  EXPECT_EQ(status, 1) << "the kernel should fail with a trap";
  EXPECT_NE(output.find("synchronize says: linpipe: more arrivals on this stage's empty barrier "
                        "than one phase expects"),
            std::string::npos);
  EXPECT_NE(output.find("pipeline 'every lane'"), std::string::npos);
  EXPECT_NE(output.find("(this stage's empty barrier expects 1 arrival per phase)"),
            std::string::npos);
}

TEST(KernelParts, ExtraArrivalReportIsPrintedAtExitWhenNobodyAsks) {
  if (const char* which = std::getenv("LINPIPE_TRAP_CHILD")) std::exit(run_trap_child(which));
  if (!linpipe::debug_checks) GTEST_SKIP() << "built without debug checks (NDEBUG)";
  LINPIPE_REQUIRE_GPU();
  const auto [status, output] = run_trap_in_child("exit");
  EXPECT_EQ(status, 1);
  EXPECT_NE(output.find("leaving without asking"), std::string::npos);
  EXPECT_NE(output.find("linpipe: more arrivals on this stage's empty barrier"), std::string::npos)
      << "the report must reach stderr at exit";
}

// One thread fills slot 0 once, then, as a consumer, steps its cursor two laps past it (four
// slots of a two-stage ring) and waits: the full barrier's parity matches the completed fill,
// so the wait passes on a phase two laps old, and the debug claim traps with the report.
__global__ void consumer_steps_two_laps_ahead(std::uint32_t* out) {
  using Small = linpipe::ProducerConsumerPipeline<2>;
  __shared__ Small::Barriers barriers;
  Small(barriers).init_mbars(1, 1);
  Small producer(barriers, "stepped");
  Small consumer(barriers, "stepped");
  auto filled = producer.acquire_producer();
  filled.mbar().arrive();
  filled.release();
  consumer.consumer_step(4);
  auto stale = consumer.acquire_consumer();
  *out = stale.index();
  stale.release();
}

int run_laps_ahead_child() {
  std::uint32_t* out = nullptr;
  if (cudaMalloc(&out, 4) != cudaSuccess) return 3;
  const linpipe::LaunchResult launched =
      linpipe::launch(consumer_steps_two_laps_ahead, {.threads = 1, .items = 1}, out);
  return trap_child_status(launched, [] { return linpipe::synchronize(); });
}

TEST(KernelParts, ConsumerTwoLapsAheadOfTheProducerTrapsWithItsReport) {
  if (std::getenv("LINPIPE_LAPS_CHILD") != nullptr) std::exit(run_laps_ahead_child());
  if (!linpipe::debug_checks) GTEST_SKIP() << "built without debug checks (NDEBUG)";
  LINPIPE_REQUIRE_GPU();
  const auto [status, output] =
      run_in_child_process("LINPIPE_LAPS_CHILD", "1", "KernelParts.ConsumerTwoLapsAhead*");
  EXPECT_EQ(status, 1) << output;
  EXPECT_NE(output.find("synchronize says: linpipe: a consumer's wait on this stage passed on a "
                        "phase two laps old"),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("pipeline 'stepped'"), std::string::npos) << output;
  EXPECT_NE(output.find("stage 0 lap 2 role consumer"), std::string::npos) << output;
}

}  // namespace
