// One stage hand-off, linpipe against hand-written inline PTX doing the same protocol, same
// run: SM cycles per hand-off measured by the consumer, median of several launches.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "../handoff.h"
#include "bench_timing.h"

namespace {

using linpipe::kernels::HandoffImpl;
constexpr std::uint32_t items = 1u << 20;
constexpr int launches = 9;

double cycles_per_handoff(HandoffImpl impl, int stages, unsigned long long* device_out) {
  std::vector<double> per_item;
  for (int i = 0; i < launches + 1; ++i) {  // the first launch is the warm-up
    BENCH_CHECK(linpipe::kernels::handoff(impl, stages, items, device_out, device_out + 1));
    BENCH_CHECK(cudaDeviceSynchronize());
    unsigned long long host[2];
    BENCH_CHECK(cudaMemcpy(host, device_out, sizeof host, cudaMemcpyDeviceToHost));
    const unsigned long long want = static_cast<unsigned long long>(items) * (items - 1) / 2;
    if (host[1] != want) {
      std::fprintf(stderr, "handoff checksum %llu, expected %llu\n", host[1], want);
      std::exit(1);
    }
    if (i > 0) per_item.push_back(static_cast<double>(host[0]) / items);
  }
  std::nth_element(per_item.begin(), per_item.begin() + launches / 2, per_item.end());
  return per_item[launches / 2];
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("handoff_bench: no GPU here, nothing to measure\n");
    return 0;
  }
  cudaDeviceProp prop{};
  BENCH_CHECK(cudaGetDeviceProperties(&prop, 0));
  unsigned long long* device_out = nullptr;
  BENCH_CHECK(cudaMalloc(&device_out, 2 * sizeof(unsigned long long)));
  std::printf("handoff_bench on %s: %u items per launch, median of %d launches\n", prop.name, items,
              launches);
  std::printf("%7s %16s %16s %8s\n", "stages", "raw PTX cyc/item", "linpipe cyc/item", "ratio");
  for (int stages : {1, 2, 4}) {
    // Interleave the two so clock drift hits both alike.
    const double raw = cycles_per_handoff(HandoffImpl::raw_ptx, stages, device_out);
    const double lin = cycles_per_handoff(HandoffImpl::linpipe, stages, device_out);
    const double raw2 = cycles_per_handoff(HandoffImpl::raw_ptx, stages, device_out);
    const double raw_best = std::min(raw, raw2);
    std::printf("%7d %16.1f %16.1f %8.3f\n", stages, raw_best, lin, lin / raw_best);
  }
  BENCH_CHECK(cudaFree(device_out));
  return 0;
}
