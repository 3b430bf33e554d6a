// stream_copy against cudaMemcpy device-to-device and the best of a plain one-shot copy kernel's
// configurations (block size, plain or streaming loads), same buffers, same run.
// GB/s counts bytes read plus bytes written. Every configuration is checked bit-exact on
// random data with a poisoned output before it is timed.
//
//   stream_copy_bench [--csv FILE] [--min-mib N] [--max-mib N] [--config NAME] [--once]
//   --once: each copy checked and run once, untimed, no table (for a profiler such as ncu).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "check_buffers.h"
#include "../stream_copy.h"
#include "bench_timing.h"
#include "bench_trace.h"

namespace {

using linpipe::kernels::StoreEngine;
using linpipe::kernels::StreamCopyConfig;

// A persistent grid: SMs x blocks_per_sm blocks walk every tile.
StreamCopyConfig persistent(int stages, std::uint32_t tile, int consumer_warps, int blocks_per_sm,
                            StoreEngine store, int lag, bool evict_first) {
  return {stages, tile, consumer_warps, blocks_per_sm, store, lag, evict_first, /*tiles_per_block=*/0};
}
StreamCopyConfig bulk(int stages, std::uint32_t tile, int blocks_per_sm, int lag, bool evict_first) {
  return persistent(stages, tile, 1, blocks_per_sm, StoreEngine::bulk, lag, evict_first);
}

// Short-lived blocks, one per tiles_per_block tiles.
StreamCopyConfig short_lived(int stages, std::uint32_t tile, std::uint32_t tiles_per_block) {
  return {stages, tile, 1, 0, StoreEngine::bulk, stages > 1 ? 1 : 0, false, tiles_per_block};
}

std::vector<StreamCopyConfig> configs = {
    // stages, tile bytes, blocks per SM, store lag, L2 evict-first
    bulk(4, 32768, 1, 1, false), bulk(3, 65536, 1, 1, false), bulk(4, 49152, 1, 1, false),
    bulk(3, 65536, 1, 0, false), bulk(3, 65536, 1, 2, false), bulk(3, 65536, 1, 1, true),
    bulk(4, 24576, 2, 1, false), bulk(2, 49152, 2, 1, false),
    persistent(4, 16384, 4, 2, StoreEngine::threads, 0, false),
    // short-lived blocks, k tiles each (stages, tile bytes, k)
    short_lived(1, 32768, 1), short_lived(2, 32768, 1), short_lived(2, 16384, 1),
    short_lived(2, 49152, 1), short_lived(2, 65536, 1), short_lived(2, 32768, 2),
    short_lived(3, 32768, 8), short_lived(3, 65536, 4),
};

// A plain copy configuration as the tables print it: threads per block, "s" if streaming.
std::string plain_name(const linpipe::kernels::PlainCopyConfig& c) {
  return std::to_string(c.threads) + (c.streaming ? "s" : "");
}

std::string name(const StreamCopyConfig& c) {
  char text[64];
  if (c.tiles_per_block > 0) {
    std::snprintf(text, sizeof text, "%s%dx%uK k%u L%d", c.store == StoreEngine::bulk ? "B" : "T",
                  c.stages, c.tile_bytes / 1024, c.tiles_per_block, c.store_lag);
  } else {
    std::snprintf(text, sizeof text, "%s%dx%uK b%d L%d%s", c.store == StoreEngine::bulk ? "B" : "T",
                  c.stages, c.tile_bytes / 1024, c.blocks_per_sm, c.store_lag, c.evict_first ? "e" : "");
  }
  return text;
}

// --trace: a timeline of one copy of `mib` MiB with the default configuration (its first 4
// blocks), and the cost of tracing every block of it.
int trace_mode(const char* path, std::size_t mib) {
  const std::size_t bytes = mib << 20;
  void *src = nullptr, *dst = nullptr;
  BENCH_CHECK(cudaMalloc(&src, bytes));
  BENCH_CHECK(cudaMalloc(&dst, bytes));
  BENCH_CHECK(linpipe::kernels::fill_random(src, bytes, 5));
  const StreamCopyConfig config{};
  const std::size_t tiles = (bytes + config.tile_bytes - 1) / config.tile_bytes;
  const std::size_t blocks = (tiles + config.tiles_per_block - 1) / config.tiles_per_block;
  const unsigned warps = 1 + static_cast<unsigned>(config.consumer_warps);
  // Per warp: about 5 events a tile, and two per slot for the producer's drain.
  const unsigned per_slice = config.tiles_per_block * 5 + 2 * static_cast<unsigned>(config.stages) + 16;
  const auto traced = [&](void* buffer, unsigned slices, unsigned records) {
    return linpipe::kernels::stream_copy_traced(dst, src, bytes, config, buffer, slices, records);
  };
  char title[96];
  std::snprintf(title, sizeof title, "stream_copy %zu MiB, %s, first 4 of %zu blocks", mib,
                name(config).c_str(), blocks);
  if (!linpipe::bench::write_trace(path, title, 4 * warps, per_slice, traced)) return 1;
  unsigned long long wrong = 0;
  BENCH_CHECK(linpipe::kernels::count_mismatches(dst, src, bytes, &wrong));
  std::printf("traced copy: %llu wrong bytes\n", wrong);
  char what[96];
  std::snprintf(what, sizeof what, "stream_copy %zu MiB, all %zu blocks traced", mib, blocks);
  linpipe::bench::print_trace_overhead(
      what, [&] { return linpipe::kernels::stream_copy(dst, src, bytes, config); },
      static_cast<unsigned>(blocks) * warps, per_slice, traced);
  BENCH_CHECK(cudaFree(src));
  BENCH_CHECK(cudaFree(dst));
  return wrong == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const char* csv_path = nullptr;
  std::size_t max_mib = 4096, min_mib = 64;
  const char* only = nullptr;
  const char* trace_path = nullptr;
  bool once = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
    else if (!std::strcmp(argv[i], "--max-mib") && i + 1 < argc) max_mib = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--min-mib") && i + 1 < argc) min_mib = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--config") && i + 1 < argc) only = argv[++i];
    else if (!std::strcmp(argv[i], "--trace") && i + 1 < argc) trace_path = argv[++i];
    else if (!std::strcmp(argv[i], "--once")) once = true;
    else {
      std::fprintf(stderr, "usage: stream_copy_bench [--csv FILE] [--min-mib N] [--max-mib N] "
                           "[--config NAME] [--once] [--trace FILE]\n"
                           "  --trace FILE: instead of the table, one traced copy of --min-mib MiB "
                           "(default 64) with the default configuration, and the cost of tracing\n");
      return 2;
    }
  }
  if (trace_path != nullptr) return trace_mode(trace_path, min_mib);
  // --config NAME (as the table prints it, e.g. "B2x48K k1 L1"): time that one configuration,
  // e.g. to profile it with ncu next to cudaMemcpy and the plain copy.
  if (only != nullptr) {
    std::erase_if(configs, [only](const StreamCopyConfig& c) { return name(c) != only; });
    if (configs.empty()) {
      std::fprintf(stderr, "stream_copy_bench: no configuration named '%s'\n", only);
      return 2;
    }
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("stream_copy_bench: no GPU here, nothing to measure\n");
    return 0;
  }
  cudaDeviceProp prop{};
  BENCH_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("stream_copy_bench on %s (%d SMs)\n", prop.name, prop.multiProcessorCount);

  std::vector<std::size_t> sizes;
  for (std::size_t mib = min_mib; mib <= max_mib; mib *= 2) sizes.push_back(mib << 20);
  const std::size_t largest = sizes.back();
  void *src = nullptr, *dst = nullptr, *ref = nullptr;
  BENCH_CHECK(cudaMalloc(&src, largest));
  BENCH_CHECK(cudaMalloc(&dst, largest));
  BENCH_CHECK(cudaMalloc(&ref, largest));

  FILE* csv = csv_path ? std::fopen(csv_path, "w") : nullptr;
  if (csv) std::fprintf(csv, "bytes,impl,config,gbps\n");

  struct Row {
    std::size_t bytes;
    double memcpy_gbps;
    double best_gbps;
    std::string best;
    std::vector<double> all;
    double plain_gbps = 0.0;  // the best plain configuration's
    std::string plain_best;
    std::vector<double> plain_all;
  };
  std::vector<Row> rows;
  for (std::size_t bytes : sizes) {
    BENCH_CHECK(linpipe::kernels::fill_random(src, bytes, bytes * 7 + 1));
    BENCH_CHECK(cudaMemcpy(ref, src, bytes, cudaMemcpyDeviceToDevice));
    const auto gbps = [bytes](double ms) { return 2.0 * bytes / (ms * 1e-3) / 1e9; };
    const auto memcpy_once = [&] { return cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice); };
    Row row{bytes, once ? 0.0 : gbps(median_ms(memcpy_once)), 0.0, "", {}};
    if (once) BENCH_CHECK(memcpy_once());
    if (csv) std::fprintf(csv, "%zu,cudaMemcpy,,%.1f\n", bytes, row.memcpy_gbps);
    // A copy, checked bit-exact on a poisoned output, then timed (with --once: not, 0); -1 if
    // it copied wrong.
    const auto checked_rate = [&](const char* impl, const std::string& config, auto&& copy) -> double {
      BENCH_CHECK(cudaMemset(dst, 0xA5, bytes));
      BENCH_CHECK(copy());
      BENCH_CHECK(cudaDeviceSynchronize());
      unsigned long long wrong = 0;
      BENCH_CHECK(linpipe::kernels::count_mismatches(dst, ref, bytes, &wrong));
      if (wrong != 0) {
        std::fprintf(stderr, "%s %s at %zu MiB: %llu wrong bytes\n", impl, config.c_str(), bytes >> 20, wrong);
        return -1.0;
      }
      if (once) return 0.0;
      const double rate = gbps(median_ms(copy));
      if (csv) std::fprintf(csv, "%zu,%s,%s,%.1f\n", bytes, impl, config.c_str(), rate);
      return rate;
    };
    // The plain anchor is the best of its configurations.
    for (const linpipe::kernels::PlainCopyConfig& plain : linpipe::kernels::plain_copy_configs) {
      const double rate = checked_rate("plain_copy", plain_name(plain),
                                       [&] { return linpipe::kernels::plain_copy(dst, src, bytes, plain); });
      if (rate < 0) return 1;
      row.plain_all.push_back(rate);
      if (rate > row.plain_gbps) row.plain_gbps = rate, row.plain_best = plain_name(plain);
    }
    for (const StreamCopyConfig& config : configs) {
      const double rate = checked_rate("stream_copy", name(config),
                                       [&] { return linpipe::kernels::stream_copy(dst, src, bytes, config); });
      if (rate < 0) return 1;
      row.all.push_back(rate);
      if (rate > row.best_gbps) row.best_gbps = rate, row.best = name(config);
    }
    rows.push_back(row);
  }
  if (csv) std::fclose(csv);
  if (once) {
    for (void* p : {src, dst, ref}) BENCH_CHECK(cudaFree(p));
    return 0;
  }

  std::printf("\nall configurations, GB/s (read + write); config = B(ulk)/T(hread) stores, stages x tile, blocks/SM (b) or short-lived blocks of k tiles (k), L(ag of the empty signal behind the store), e = L2 evict-first\n");
  std::printf("%9s", "MiB");
  for (const auto& c : configs) std::printf(" %13s", name(c).c_str());
  std::printf("\n");
  for (const Row& row : rows) {
    std::printf("%9zu", row.bytes >> 20);
    for (double rate : row.all) std::printf(" %13.0f", rate);
    std::printf("\n");
  }
  std::printf("\nplain copy configurations, GB/s: threads per block, s = streaming (evict-first) loads\n%9s", "MiB");
  for (const auto& plain : linpipe::kernels::plain_copy_configs) std::printf(" %8s", plain_name(plain).c_str());
  std::printf("\n");
  for (const Row& row : rows) {
    std::printf("%9zu", row.bytes >> 20);
    for (double rate : row.plain_all) std::printf(" %8.0f", rate);
    std::printf("\n");
  }
  std::printf("\n%9s %12s %12s %9s %16s %12s %7s %7s\n", "MiB", "cudaMemcpy", "plain copy", "(config)",
              "best config", "stream_copy", "ratio", "/plain");
  for (const Row& row : rows) {
    std::printf("%9zu %12.0f %12.0f %9s %16s %12.0f %7.3f %7.3f\n", row.bytes >> 20, row.memcpy_gbps,
                row.plain_gbps, row.plain_best.c_str(), row.best.c_str(), row.best_gbps,
                row.best_gbps / row.memcpy_gbps, row.best_gbps / row.plain_gbps);
  }
  BENCH_CHECK(cudaFree(src));
  BENCH_CHECK(cudaFree(dst));
  BENCH_CHECK(cudaFree(ref));
  return 0;
}
