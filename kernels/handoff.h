// Hand-off microbenchmark kernels: two threads in two warps pass `items` items through an
// N-stage pipeline, once on linpipe and once on hand-written inline PTX doing the same
// protocol. Each reports the consumer's SM cycles for the whole loop.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace linpipe::kernels {

enum class HandoffImpl { linpipe, raw_ptx };

// Runs one single-block launch and stores the consumer's loop cycles in *cycles (device memory)
// and a checksum of what it received in *checksum. stages: 1, 2 or 4.
cudaError_t handoff(HandoffImpl impl, int stages, std::uint32_t items, unsigned long long* cycles,
                    unsigned long long* checksum, cudaStream_t stream = nullptr);

}  // namespace linpipe::kernels
