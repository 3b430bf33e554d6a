// Timing helpers shared by the benchmarks: CUDA events, warm-up, median of many runs.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define BENCH_CHECK(call)                                                               \
  do {                                                                                  \
    const cudaError_t status_ = (call);                                                 \
    if (status_ != cudaSuccess) {                                                       \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                \
                   cudaGetErrorString(status_));                                        \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

// Median milliseconds of `runs` timed calls of launch() after `warmup` untimed ones.
template <class Launch>
double median_ms(Launch&& launch, int warmup = 3, int runs = 20) {
  cudaEvent_t start, stop;
  BENCH_CHECK(cudaEventCreate(&start));
  BENCH_CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < warmup; ++i) BENCH_CHECK(launch());
  std::vector<float> times(runs);
  for (float& t : times) {
    BENCH_CHECK(cudaEventRecord(start));
    BENCH_CHECK(launch());
    BENCH_CHECK(cudaEventRecord(stop));
    BENCH_CHECK(cudaEventSynchronize(stop));
    BENCH_CHECK(cudaEventElapsedTime(&t, start, stop));
  }
  BENCH_CHECK(cudaEventDestroy(start));
  BENCH_CHECK(cudaEventDestroy(stop));
  std::nth_element(times.begin(), times.begin() + runs / 2, times.end());
  return times[runs / 2];
}
