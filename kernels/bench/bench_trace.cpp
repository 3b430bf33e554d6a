// See bench_trace.h.
#include "bench_trace.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_timing.h"

import linpipe;

namespace linpipe::bench {

bool write_trace(const char* path, const char* title, unsigned slices, unsigned per_slice,
                 const TracedLaunch& traced) {
  const TraceLayout layout{slices, per_slice};
  void* device = nullptr;
  if (cudaMalloc(&device, layout.bytes()) != cudaSuccess) return false;
  std::vector<TraceRecord> host(layout.records());
  const bool ran = cudaMemset(device, 0, layout.bytes()) == cudaSuccess &&
                   traced(device, slices, per_slice) == cudaSuccess &&
                   cudaDeviceSynchronize() == cudaSuccess &&
                   cudaMemcpy(host.data(), device, layout.bytes(), cudaMemcpyDeviceToHost) == cudaSuccess;
  cudaFree(device);
  if (!ran) {
    std::fprintf(stderr, "trace: the traced launch failed: %s\n", cudaGetErrorString(cudaGetLastError()));
    return false;
  }
  const std::string json = trace_to_json(host.data(), layout, title);
  FILE* out = std::fopen(path, "w");
  const bool written = out != nullptr && std::fwrite(json.data(), 1, json.size(), out) == json.size();
  if (out != nullptr && std::fclose(out) != 0) return false;
  if (!written) {
    std::fprintf(stderr, "trace: cannot write %s\n", path);
    return false;
  }
  std::printf("trace of one launch: %s (%zu bytes; open at https://ui.perfetto.dev)\n%s", path,
              json.size(), trace_summary_text(summarise_trace(host.data(), layout)).c_str());
  return true;
}

void print_trace_overhead(const char* what, const std::function<cudaError_t()>& untraced,
                          unsigned slices, unsigned per_slice, const TracedLaunch& traced,
                          int rounds) {
  const TraceLayout layout{slices, per_slice};
  void* device = nullptr;
  BENCH_CHECK(cudaMalloc(&device, layout.bytes()));
  // Cleared once: every launch rewrites each slice's header (count from 0) as its warp starts.
  BENCH_CHECK(cudaMemset(device, 0, layout.bytes()));
  const auto traced_once = [&] { return traced(device, slices, per_slice); };
  std::vector<double> off, on;
  for (int r = 0; r < rounds; ++r) {  // interleaved, so clocks and thermals hit both alike
    off.push_back(median_ms(untraced, 2, 10));
    on.push_back(median_ms(traced_once, 2, 10));
  }
  std::sort(off.begin(), off.end());
  std::sort(on.begin(), on.end());
  const double off_ms = off[off.size() / 2], on_ms = on[on.size() / 2];
  std::vector<TraceRecord> host(layout.records());
  BENCH_CHECK(cudaMemcpy(host.data(), device, layout.bytes(), cudaMemcpyDeviceToHost));
  BENCH_CHECK(cudaFree(device));
  std::uint64_t events = 0, dropped = 0;
  for (const TraceRoleSummary& role : summarise_trace(host.data(), layout)) {
    events += role.events;
    dropped += role.dropped;
  }
  std::printf("tracing cost, %s (median of %d interleaved rounds): untraced %.4f ms, traced %.4f ms: "
              "%+.2f%%; %llu events per launch, %llu dropped\n",
              what, rounds, off_ms, on_ms, 100.0 * (on_ms / off_ms - 1.0),
              static_cast<unsigned long long>(events), static_cast<unsigned long long>(dropped));
}

}  // namespace linpipe::bench
