// Tracing a benchmark's kernel (linpipe:trace): one traced launch into a device buffer, written
// out as trace-event JSON with a per-role summary, and the cost of tracing, timed side by side.
#pragma once

#include <cuda_runtime.h>

#include <functional>

namespace linpipe::bench {

// A launch into a trace buffer: device memory of TraceLayout{slices, per_slice}.bytes().
using TracedLaunch = std::function<cudaError_t(void* buffer, unsigned slices, unsigned per_slice)>;

// Runs `traced` once into a zeroed buffer, writes the JSON timeline to `path` and prints the
// summary (roles, waiting vs working, drops). False if a launch or the write failed.
bool write_trace(const char* path, const char* title, unsigned slices, unsigned per_slice,
                 const TracedLaunch& traced);

// Median milliseconds of the untraced launch and of the traced one (every warp's slice large
// enough for all its events), timed in `rounds` interleaved rounds; prints both and the ratio.
void print_trace_overhead(const char* what, const std::function<cudaError_t()>& untraced,
                          unsigned slices, unsigned per_slice, const TracedLaunch& traced,
                          int rounds = 11);

}  // namespace linpipe::bench
