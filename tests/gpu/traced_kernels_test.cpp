// Traced kernels on the GPU (linpipe:trace): the traced GEMM and copy compute exactly what the
// untraced ones compute, and their traces read back well formed: each role's claims match the
// work it did (every k-slice of every tile, every copy tile), each claim has its release, waits
// end on the slot they began on, times never go back, nothing is dropped in a large buffer, and
// a small buffer traces only the first CTAs without writing past its end.
import linpipe;

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "check_buffers.h"
#include "gemm.h"
#include "gemm_check.h"
#include "gpu_test_support.h"
#include "stream_copy.h"

namespace {

using linpipe::Role;
using linpipe::TraceEvent;
using linpipe::TraceLayout;
using linpipe::TraceRecord;
using linpipe::TraceSlice;

// A zeroed device trace buffer followed by a poisoned guard, and its contents read back.
class DeviceTrace {
 public:
  static constexpr std::size_t guard_bytes = 4096;
  DeviceTrace(unsigned slices, unsigned per_slice) : layout_{slices, per_slice} {
    EXPECT_EQ(cudaMalloc(&data_, layout_.bytes() + guard_bytes), cudaSuccess);
    EXPECT_EQ(cudaMemset(data_, 0, layout_.bytes()), cudaSuccess);
    EXPECT_EQ(cudaMemset(guard(), 0xA5, guard_bytes), cudaSuccess);
  }
  ~DeviceTrace() { cudaFree(data_); }
  DeviceTrace(const DeviceTrace&) = delete;
  DeviceTrace& operator=(const DeviceTrace&) = delete;

  void* data() const { return data_; }
  TraceLayout layout() const { return layout_; }
  std::vector<TraceSlice> read() const {
    std::vector<TraceRecord> host(layout_.records());
    EXPECT_EQ(cudaMemcpy(host.data(), data_, layout_.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
    return linpipe::read_trace(host.data(), layout_);
  }
  // Bytes of the guard after the buffer that a launch changed.
  std::size_t clobbered_guard() const {
    std::vector<unsigned char> host(guard_bytes);
    EXPECT_EQ(cudaMemcpy(host.data(), guard(), guard_bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    std::size_t changed = 0;
    for (unsigned char byte : host) changed += byte != 0xA5;
    return changed;
  }

 private:
  void* guard() const { return static_cast<char*>(data_) + layout_.bytes(); }
  TraceLayout layout_;
  void* data_ = nullptr;
};

// What one slice's events say, checked as it is read: times never go back, each wait ends on
// the slot and lap it began on before the claim, each release ends a claim of the same slot
// and lap, a role claims slots in ring order (claim n: slot n % stages, lap n / stages, plus 1
// for the producer).
struct SliceSummary {
  int acquires = 0, releases = 0, issues = 0, waits = 0;
  bool has_role = false;
  Role role = Role::producer;
};

SliceSummary check_slice(const TraceSlice& slice, int stages, const std::string& where) {
  SliceSummary out;
  std::uint64_t last_ns = 0;
  const linpipe::TimedTraceEvent* open_wait = nullptr;
  std::map<std::pair<int, std::uint32_t>, int> held;
  for (const auto& e : slice.events) {
    if (!out.has_role) {
      out.has_role = true;
      out.role = e.role;
    }
    EXPECT_EQ(e.role, out.role) << where << ": one role per slice";
    EXPECT_GE(e.ns, last_ns) << where << ": time went back";
    last_ns = e.ns;
    EXPECT_LT(e.stage, stages) << where;
    int& holders = held[std::make_pair(static_cast<int>(e.stage), e.lap)];
    switch (e.event) {
      case TraceEvent::wait_begin:
        EXPECT_EQ(open_wait, nullptr) << where << ": a wait began inside another";
        open_wait = &e;
        ++out.waits;
        break;
      case TraceEvent::wait_end:
        EXPECT_NE(open_wait, nullptr) << where << ": a wait ended that never began";
        if (open_wait != nullptr) {
          EXPECT_EQ(e.stage, open_wait->stage) << where;
          EXPECT_EQ(e.lap, open_wait->lap) << where;
        }
        open_wait = nullptr;
        break;
      case TraceEvent::acquire:
        EXPECT_EQ(open_wait, nullptr) << where << ": claimed while still waiting";
        EXPECT_EQ(e.stage, out.acquires % stages) << where << ": claim " << out.acquires;
        // The producer's laps count from 1 (its first wait passes on fresh empty barriers).
        EXPECT_EQ(e.lap, static_cast<std::uint32_t>(out.acquires / stages) +
                             (e.role == Role::producer ? 1u : 0u))
            << where;
        EXPECT_EQ(holders++, 0) << where << ": slot claimed twice in one lap";
        ++out.acquires;
        break;
      case TraceEvent::release:
        EXPECT_EQ(holders--, 1) << where << ": a release without its claim";
        ++out.releases;
        break;
      case TraceEvent::issue:
        EXPECT_EQ(holders, 1) << where << ": issue on a slot not held";
        ++out.issues;
        break;
      case TraceEvent::arrive:
        break;
    }
  }
  EXPECT_EQ(open_wait, nullptr) << where << ": a wait never ended";
  return out;
}

// The GEMM's per-CTA slices: warp 0 the producer, warps 4 and 8 the two consumer warpgroups.
constexpr unsigned gemm_warps = linpipe::kernels::gemm_warps_per_cta;
constexpr int gemm_stages = 4;

struct GemmRun {
  int m, n, k;
};

class TracedGemm : public ::testing::TestWithParam<GemmRun> {};

TEST_P(TracedGemm, ComputesTheSameAndTracesEveryKSlice) {
  LINPIPE_REQUIRE_GPU();
  using namespace linpipe::kernels;
  const GemmRun s = GetParam();
  const std::size_t na = std::size_t(s.m) * s.k, nb = std::size_t(s.n) * s.k,
                    nc = std::size_t(s.m) * s.n;
  void *a = nullptr, *b = nullptr, *c = nullptr, *traced_c = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&a, na * 2));
  LINPIPE_CUDA_OK(cudaMalloc(&b, nb * 2));
  LINPIPE_CUDA_OK(cudaMalloc(&c, nc * 2));
  LINPIPE_CUDA_OK(cudaMalloc(&traced_c, nc * 2));
  LINPIPE_CUDA_OK(fill_random_bf16(a, na, 11));
  LINPIPE_CUDA_OK(fill_random_bf16(b, nb, 12));
  LINPIPE_CUDA_OK(poison_bf16(c, nc));
  LINPIPE_CUDA_OK(poison_bf16(traced_c, nc));

  int ctas = 0;
  GemmConfig config{};
  config.cluster_m = 1;  // CTA i walks tiles i, i + grid, ... (the checks below rely on it)
  LINPIPE_CUDA_OK(gemm_bf16_grid_ctas(config, &ctas));
  const int tiles = (s.m / gemm_tile_m) * (s.n / gemm_tile_n);
  const int k_tiles = s.k / gemm_tile_k;
  const int grid = tiles < ctas ? tiles : ctas;  // the launch's persistent grid
  // Room for every event: each k-slice is at most a wait (2 records), a claim and an issue.
  const unsigned per_slice = static_cast<unsigned>(4 * k_tiles * ((tiles + ctas - 1) / ctas) + 16);
  DeviceTrace trace(static_cast<unsigned>(ctas) * gemm_warps, per_slice);

  const char* why = nullptr;
  LINPIPE_CUDA_OK(gemm_bf16(a, b, c, s.m, s.n, s.k, config, nullptr, &why));
  LINPIPE_CUDA_OK(gemm_bf16_traced(a, b, traced_c, s.m, s.n, s.k, config, trace.data(),
                                   trace.layout().slices, per_slice, nullptr, &why));
  LINPIPE_CUDA_OK(cudaDeviceSynchronize());
  Bf16Comparison cmp{};
  LINPIPE_CUDA_OK(compare_bf16(traced_c, c, nc, &cmp));
  EXPECT_EQ(cmp.relative_error, 0.0) << "tracing changed the result";
  EXPECT_EQ(cmp.non_finite, 0u);
  EXPECT_EQ(trace.clobbered_guard(), 0u) << "trace written past its buffer";

  const std::vector<TraceSlice> slices = trace.read();
  long long produced = 0;
  for (int cta = 0; cta < ctas; ++cta) {
    const std::string at = "CTA " + std::to_string(cta);
    const auto slice_of = [&](unsigned warp) -> const TraceSlice& {
      return slices.at(static_cast<std::size_t>(cta) * gemm_warps + warp);
    };
    for (unsigned warp = 0; warp < gemm_warps; ++warp) {
      const TraceSlice& slice = slice_of(warp);
      const bool traced = cta < grid && (warp == 0 || warp == 4 || warp == 8);
      EXPECT_EQ(slice.header.capacity, traced ? per_slice : 0u) << at << " warp " << warp;
      if (traced) {
        EXPECT_EQ(slice.header.block, static_cast<std::uint32_t>(cta));
        EXPECT_EQ(slice.header.warp, warp);
        EXPECT_LE(slice.header.count, per_slice) << at << " warp " << warp << ": dropped events";
      }
    }
    const SliceSummary producer = check_slice(slice_of(0), gemm_stages, at + " producer");
    // The persistent grid gives CTA i tiles i, i + grid, ...: every k-slice of each.
    const int own_tiles = cta < grid ? (tiles - cta + grid - 1) / grid : 0;
    EXPECT_EQ(producer.acquires, own_tiles * k_tiles) << at;
    EXPECT_EQ(producer.releases, producer.acquires) << at;
    EXPECT_EQ(producer.issues, producer.acquires) << at;
    if (producer.has_role) EXPECT_EQ(producer.role, Role::producer) << at;
    produced += producer.acquires;
    for (unsigned warp : {4u, 8u}) {
      const SliceSummary consumer =
          check_slice(slice_of(warp), gemm_stages, at + " consumer warp " + std::to_string(warp));
      EXPECT_EQ(consumer.acquires, producer.acquires) << at << ": each warpgroup reads every stage";
      EXPECT_EQ(consumer.releases, consumer.acquires) << at;
      EXPECT_EQ(consumer.issues, 0) << at;
      if (consumer.has_role) EXPECT_EQ(consumer.role, Role::consumer) << at;
    }
  }
  EXPECT_EQ(produced, static_cast<long long>(tiles) * k_tiles);
  for (void* p : {a, b, c, traced_c}) LINPIPE_CUDA_OK(cudaFree(p));
}

INSTANTIATE_TEST_SUITE_P(Shapes, TracedGemm,
                         ::testing::Values(GemmRun{256, 512, 256},      // fewer tiles than CTAs
                                           GemmRun{4096, 4096, 512}),  // several tiles per CTA
                         [](const auto& info) {
                           return std::to_string(info.param.m) + "x" + std::to_string(info.param.n) +
                                  "x" + std::to_string(info.param.k);
                         });

// A buffer with room for the first CTA's slices and a handful of records each: those warps
// record what fits and count the rest; nothing past the buffer changes.
TEST(TracedGemmSmallBuffer, CountsDropsAndStaysInItsBuffer) {
  LINPIPE_REQUIRE_GPU();
  using namespace linpipe::kernels;
  const int m = 1024, n = 1024, k = 1024;
  void *a = nullptr, *b = nullptr, *c = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&a, std::size_t(m) * k * 2));
  LINPIPE_CUDA_OK(cudaMalloc(&b, std::size_t(n) * k * 2));
  LINPIPE_CUDA_OK(cudaMalloc(&c, std::size_t(m) * n * 2));
  LINPIPE_CUDA_OK(fill_random_bf16(a, std::size_t(m) * k, 3));
  LINPIPE_CUDA_OK(fill_random_bf16(b, std::size_t(n) * k, 4));
  constexpr unsigned per_slice = 5;
  DeviceTrace trace(gemm_warps, per_slice);  // CTA 0 only
  const char* why = nullptr;
  LINPIPE_CUDA_OK(gemm_bf16_traced(a, b, c, m, n, k, GemmConfig{}, trace.data(), gemm_warps,
                                   per_slice, nullptr, &why));
  LINPIPE_CUDA_OK(cudaDeviceSynchronize());
  EXPECT_EQ(trace.clobbered_guard(), 0u) << "trace written past its buffer";
  const std::vector<TraceSlice> slices = trace.read();
  const int k_tiles = k / gemm_tile_k;
  for (unsigned warp : {0u, 4u, 8u}) {
    const TraceSlice& slice = slices.at(warp);
    EXPECT_GE(slice.header.count, static_cast<std::uint32_t>(k_tiles)) << "warp " << warp;
    int records = 0;
    for (const auto& e : slice.events) records += e.event != TraceEvent::release;
    EXPECT_EQ(records, static_cast<int>(per_slice)) << "warp " << warp << ": the first events stored";
  }
  for (void* p : {a, b, c}) LINPIPE_CUDA_OK(cudaFree(p));
}

// GemmTraceRoles: a launch that traces one role fills that role's slices and leaves the
// other traced warps' slices as zeroed (no header), and still computes what the untraced
// kernel does.
TEST(TracedGemmRoles, OnlyTheChosenRoleRecords) {
  LINPIPE_REQUIRE_GPU();
  using namespace linpipe::kernels;
  const int m = 1024, n = 1024, k = 512;
  const std::size_t nc = std::size_t(m) * n;
  void *a = nullptr, *b = nullptr, *c = nullptr, *traced_c = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&a, std::size_t(m) * k * 2));
  LINPIPE_CUDA_OK(cudaMalloc(&b, std::size_t(n) * k * 2));
  LINPIPE_CUDA_OK(cudaMalloc(&c, nc * 2));
  LINPIPE_CUDA_OK(cudaMalloc(&traced_c, nc * 2));
  LINPIPE_CUDA_OK(fill_random_bf16(a, std::size_t(m) * k, 5));
  LINPIPE_CUDA_OK(fill_random_bf16(b, std::size_t(n) * k, 6));
  LINPIPE_CUDA_OK(gemm_bf16(a, b, c, m, n, k, GemmConfig{}));
  const int k_tiles = k / gemm_tile_k;
  constexpr unsigned per_slice = 256;  // CTA 0's one or more tiles: every event fits
  for (const GemmTraceRoles roles : {GemmTraceRoles::producer, GemmTraceRoles::consumers}) {
    const bool producer_only = roles == GemmTraceRoles::producer;
    SCOPED_TRACE(producer_only ? "producer only" : "consumers only");
    LINPIPE_CUDA_OK(poison_bf16(traced_c, nc));
    DeviceTrace trace(gemm_warps, per_slice);  // CTA 0 only
    const char* why = nullptr;
    LINPIPE_CUDA_OK(gemm_bf16_traced(a, b, traced_c, m, n, k, GemmConfig{}, trace.data(), gemm_warps,
                                     per_slice, roles, nullptr, &why));
    LINPIPE_CUDA_OK(cudaDeviceSynchronize());
    Bf16Comparison cmp{};
    LINPIPE_CUDA_OK(compare_bf16(traced_c, c, nc, &cmp));
    EXPECT_EQ(cmp.relative_error, 0.0) << "tracing changed the result";
    EXPECT_EQ(trace.clobbered_guard(), 0u) << "trace written past its buffer";
    const std::vector<TraceSlice> slices = trace.read();
    for (unsigned warp : {0u, 4u, 8u}) {
      const bool recorded = (warp == 0) == producer_only;
      const TraceSlice& slice = slices.at(warp);
      EXPECT_EQ(slice.header.capacity, recorded ? per_slice : 0u) << "warp " << warp;
      const SliceSummary summary = check_slice(slice, gemm_stages, "warp " + std::to_string(warp));
      if (recorded) {
        EXPECT_GE(summary.acquires, k_tiles) << "warp " << warp << ": at least one tile's k-slices";
        EXPECT_EQ(summary.acquires % k_tiles, 0) << "warp " << warp << ": whole tiles";
      } else {
        EXPECT_EQ(summary.acquires, 0) << "warp " << warp << ": recorded a role not asked for";
      }
    }
  }
  for (void* p : {a, b, c, traced_c}) LINPIPE_CUDA_OK(cudaFree(p));
}

// A role set outside GemmTraceRoles is refused with a sentence before any CUDA call.
TEST(TracedGemmRoles, AnUnknownRoleSetIsRejectedWithAReason) {
  using namespace linpipe::kernels;
  alignas(16) static unsigned char fake[64];  // never dereferenced: rejected first
  for (const unsigned bits : {0u, 4u, 7u}) {
    const char* why = nullptr;
    EXPECT_EQ(gemm_bf16_traced(fake, fake, fake, 128, 256, 64, GemmConfig{}, fake, 1, 1,
                               static_cast<GemmTraceRoles>(bits), nullptr, &why),
              cudaErrorInvalidValue)
        << "roles " << bits;
    ASSERT_NE(why, nullptr);
    EXPECT_NE(std::string(why).find("GemmTraceRoles"), std::string::npos) << why;
  }
}

// The traced copy: exact bytes, and each block's claims cover its tiles, for the persistent
// grid and for short-lived blocks.
class TracedStreamCopy : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(TracedStreamCopy, CopiesExactlyAndTracesEveryTile) {
  LINPIPE_REQUIRE_GPU();
  using namespace linpipe::kernels;
  StreamCopyConfig config{3, 16384, 2};
  config.tiles_per_block = GetParam();
  const std::size_t bytes = std::size_t{16384} * 300 + 48;  // a short last tile
  const long long tiles = static_cast<long long>((bytes + config.tile_bytes - 1) / config.tile_bytes);
  void *src = nullptr, *dst = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&src, bytes));
  LINPIPE_CUDA_OK(cudaMalloc(&dst, bytes));
  LINPIPE_CUDA_OK(fill_random(src, bytes, 5));
  LINPIPE_CUDA_OK(cudaMemset(dst, 0, bytes));
  int sms = 0;
  LINPIPE_CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const long long blocks = config.tiles_per_block > 0
                               ? (tiles + config.tiles_per_block - 1) / config.tiles_per_block
                               : sms;  // one per SM at most (blocks_per_sm 1)
  const unsigned warps = 1 + static_cast<unsigned>(config.consumer_warps);
  const unsigned per_slice = static_cast<unsigned>(4 * (tiles / blocks + 2) + 16);
  DeviceTrace trace(static_cast<unsigned>(blocks) * warps, per_slice);
  const char* why = nullptr;
  LINPIPE_CUDA_OK(stream_copy_traced(dst, src, bytes, config, trace.data(), trace.layout().slices,
                                     per_slice, nullptr, &why));
  LINPIPE_CUDA_OK(cudaDeviceSynchronize());
  unsigned long long wrong = 0;
  LINPIPE_CUDA_OK(count_mismatches(dst, src, bytes, &wrong));
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(trace.clobbered_guard(), 0u) << "trace written past its buffer";

  const std::vector<TraceSlice> slices = trace.read();
  long long produced = 0;
  for (long long block = 0; block < blocks; ++block) {
    const std::string at = "block " + std::to_string(block);
    const auto& producer_slice = slices.at(static_cast<std::size_t>(block) * warps);
    const SliceSummary producer = check_slice(producer_slice, config.stages, at + " producer");
    EXPECT_EQ(producer.releases, producer.acquires) << at;
    EXPECT_EQ(producer.issues, producer.acquires) << at;
    EXPECT_LE(producer_slice.header.count, per_slice) << at << ": dropped events";
    produced += producer.acquires;
    for (unsigned warp = 1; warp < warps; ++warp) {
      const SliceSummary consumer = check_slice(slices.at(static_cast<std::size_t>(block) * warps + warp),
                                                config.stages, at + " consumer " + std::to_string(warp));
      EXPECT_EQ(consumer.acquires, producer.acquires) << at << ": every consumer warp reads every tile";
      EXPECT_EQ(consumer.releases, consumer.acquires) << at;
    }
  }
  EXPECT_EQ(produced, tiles) << "the producers' claims cover every tile once";
  LINPIPE_CUDA_OK(cudaFree(src));
  LINPIPE_CUDA_OK(cudaFree(dst));
}

INSTANTIATE_TEST_SUITE_P(Grids, TracedStreamCopy, ::testing::Values(0u, 4u),
                         [](const auto& info) {
                           return info.param == 0 ? std::string("Persistent")
                                                  : "ShortLived" + std::to_string(info.param);
                         });

}  // namespace
