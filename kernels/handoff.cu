// The hand-off microbenchmark's kernels. See handoff.h. The two versions must stay the same
// protocol: producer waits empty (parity of its lap, starting at 1), writes, arrives full;
// consumer waits full (starting at lap 0), reads, arrives empty.
#include "handoff.h"

#include <cuda_runtime.h>

#include <cstdint>

import linpipe;

namespace linpipe::kernels {
namespace {

__device__ unsigned long long clock_now() { return __nvvm_read_ptx_sreg_clock64(); }

template <int Stages>
__global__ void handoff_linpipe(std::uint32_t items, unsigned long long* cycles,
                                unsigned long long* checksum) {
  using Pipeline = ProducerConsumerPipeline<Stages>;
  __shared__ std::uint64_t barriers[Pipeline::BackendType::storage_elems()];
  __shared__ std::uint32_t slots[Stages];
  if (threadIdx.x == 0) Pipeline(barriers).init_mbars(1, 1);
  __syncthreads();
  Pipeline pipe(barriers, "handoff");
  if (threadIdx.x == 0) {
    for (std::uint32_t i = 0; i < items; ++i) {
      auto stage = pipe.acquire_producer();
      slots[stage.index()] = i;
      stage.mbar().arrive();
      stage.release();
    }
    pipe.drain();
  } else if (threadIdx.x == 32) {
    unsigned long long sum = 0;
    const unsigned long long start = clock_now();
    for (std::uint32_t i = 0; i < items; ++i) {
      auto stage = pipe.acquire_consumer();
      sum += slots[stage.index()];
      stage.release();
    }
    *cycles = clock_now() - start;
    *checksum = sum;
  }
}

__device__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(
      reinterpret_cast<std::uintptr_t>((const __attribute__((address_space(3))) void*)p));
}
__device__ void raw_wait(std::uint32_t bar, std::uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n"
      "wait_%=:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra wait_%=;\n\t}" ::"r"(bar),
      "r"(parity)
      : "memory");
}
__device__ void raw_arrive(std::uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

template <int Stages>
__global__ void handoff_raw_ptx(std::uint32_t items, unsigned long long* cycles,
                                unsigned long long* checksum) {
  __shared__ std::uint64_t full[Stages], empty[Stages];
  __shared__ std::uint32_t slots[Stages];
  if (threadIdx.x == 0) {
    for (int s = 0; s < Stages; ++s) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&full[s])) : "memory");
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&empty[s])) : "memory");
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  std::uint32_t stage = 0;
  if (threadIdx.x == 0) {
    std::uint32_t lap = 1;
    for (std::uint32_t i = 0; i < items + Stages; ++i) {  // + Stages: the drain
      raw_wait(smem_addr(&empty[stage]), lap & 1);
      if (i < items) {
        slots[stage] = i;
        raw_arrive(smem_addr(&full[stage]));
      }
      if (++stage == Stages) stage = 0, ++lap;
    }
  } else if (threadIdx.x == 32) {
    std::uint32_t lap = 0;
    unsigned long long sum = 0;
    const unsigned long long start = clock_now();
    for (std::uint32_t i = 0; i < items; ++i) {
      raw_wait(smem_addr(&full[stage]), lap & 1);
      sum += slots[stage];
      raw_arrive(smem_addr(&empty[stage]));
      if (++stage == Stages) stage = 0, ++lap;
    }
    *cycles = clock_now() - start;
    *checksum = sum;
  }
}

template <int Stages>
cudaError_t launch(HandoffImpl impl, std::uint32_t items, unsigned long long* cycles,
                   unsigned long long* checksum, cudaStream_t stream) {
  if (impl == HandoffImpl::linpipe) {
    handoff_linpipe<Stages><<<1, 64, 0, stream>>>(items, cycles, checksum);
  } else {
    handoff_raw_ptx<Stages><<<1, 64, 0, stream>>>(items, cycles, checksum);
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t handoff(HandoffImpl impl, int stages, std::uint32_t items, unsigned long long* cycles,
                    unsigned long long* checksum, cudaStream_t stream) {
  switch (stages) {
    case 1: return launch<1>(impl, items, cycles, checksum, stream);
    case 2: return launch<2>(impl, items, cycles, checksum, stream);
    case 4: return launch<4>(impl, items, cycles, checksum, stream);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace linpipe::kernels
