// The debug-build hang detector on the GPU: a deliberately unbalanced pipeline (the full barrier
// expects two producer arrivals, only one comes), a consumer that acquires a third stage of a
// two-stage ring while holding both, a kernel that never calls init_mbars, and a traced role
// whose trace ring nobody drains must each trap
// with a report naming the pipeline, stage, lap, role, block and warp, instead of hanging. The device writes the report into a
// linpipe::DeviceReports record (zero-copy host memory) and the host prints it after the launch
// fails. The trap ruins the CUDA context, so each kernel runs in a child process (this binary,
// re-run with LINPIPE_HANG_CHILD=<case>).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu_test_support.h"

import linpipe;

namespace {

__global__ void unbalanced_pipeline(std::uint32_t* out) {
  using Pipeline = linpipe::ProducerConsumerPipeline<2>;
  __shared__ std::uint64_t barriers[Pipeline::BackendType::storage_elems()];
  if (threadIdx.x == 0) Pipeline(barriers).init_mbars(/*producer_arrive_count=*/2, 1);
  __syncthreads();
  Pipeline pipe(barriers, "unbalanced");
  if (threadIdx.x == 0) {
    auto stage = pipe.acquire_producer();
    stage.mbar().arrive();  // one arrival of the two the full barrier expects
    stage.release();
  } else if (threadIdx.x == 32) {
    auto stage = pipe.acquire_consumer();  // never completes: must trap, not hang
    *out = stage.index();
    stage.release();
  }
}

// The consumer holds both slots of the ring and acquires again: slot 0 can never refill.
__global__ void over_acquiring_consumer(std::uint32_t* out) {
  using Pipeline = linpipe::ProducerConsumerPipeline<2>;
  __shared__ std::uint64_t barriers[Pipeline::BackendType::storage_elems()];
  if (threadIdx.x == 0) Pipeline(barriers).init_mbars(1, 1);
  __syncthreads();
  Pipeline pipe(barriers, "greedy");
  if (threadIdx.x == 0) {
    for (int i = 0; i < 2; ++i) {
      auto stage = pipe.acquire_producer();
      stage.mbar().arrive();
      stage.release();
    }
  } else if (threadIdx.x == 32) {
    auto first = pipe.acquire_consumer();
    auto second = pipe.acquire_consumer();
    auto third = pipe.acquire_consumer();  // slot 0, lap 1: `first` still holds it
    *out = first.index() + second.index() + third.index();
    third.release();
    second.release();
    first.release();
  }
}

// One producer thread fills a stage, one consumer reads it; with `init` false, nobody set the
// barriers up. Run once with init first, so the shared memory the second launch gets still holds
// this kernel's initialised barriers: the check must not take them for this launch's.
__global__ void maybe_initialised_pipeline(std::uint32_t* out, bool init) {
  using Pipeline = linpipe::ProducerConsumerPipeline<2>;
  __shared__ std::uint64_t barriers[Pipeline::BackendType::storage_elems()];
  if (init && threadIdx.x == 0) Pipeline(barriers).init_mbars(1, 1);
  __syncthreads();
  Pipeline pipe(barriers, "forgot init");
  if (threadIdx.x == 0) {
    auto stage = pipe.acquire_producer();
    stage.mbar().arrive();
    stage.release();
  } else if (threadIdx.x == 32) {
    auto stage = pipe.acquire_consumer();
    *out = stage.index() + 1;
    stage.release();
  }
}

// A traced role whose trace ring nobody drains (no TraceDrainer runs): its third record finds
// the two-record ring full and must trap with a report, not wait forever.
__global__ void undrained_trace_ring(std::uint32_t* out) {
  using Ring = linpipe::TraceRing<2, 2>;
  __shared__ Ring ring;
  if (threadIdx.x == 0) ring.reset(0, 0, 1);
  __syncthreads();
  if (threadIdx.x == 32) {
    linpipe::DrainedTrace<Ring> tracer(&ring);
    for (std::uint32_t i = 0; i < 3; ++i) tracer.record(linpipe::TraceEvent::issue, linpipe::Role::producer, i, 0);
    *out = tracer.recorded();
  }
}

cudaError_t launch(const std::string& which, linpipe::DeviceReports& reports, std::uint32_t* out) {
  if (which == "undrained") {
    std::fprintf(stderr, "child: watch gave %s\n", cudaGetErrorName(reports.watch(undrained_trace_ring)));
    undrained_trace_ring<<<1, 64>>>(out);
  } else if (which == "greedy") {
    std::fprintf(stderr, "child: watch gave %s\n",
                 cudaGetErrorName(reports.watch(over_acquiring_consumer)));
    over_acquiring_consumer<<<1, 64>>>(out);
  } else if (which == "no_init") {
    std::fprintf(stderr, "child: watch gave %s\n",
                 cudaGetErrorName(reports.watch(maybe_initialised_pipeline)));
    maybe_initialised_pipeline<<<1, 64>>>(out, /*init=*/true);
    const cudaError_t first = cudaDeviceSynchronize();
    std::fprintf(stderr, "child: the initialised launch finished with %s\n", cudaGetErrorName(first));
    if (first != cudaSuccess) return first;
    maybe_initialised_pipeline<<<1, 64>>>(out, /*init=*/false);
  } else {
    std::fprintf(stderr, "child: watch gave %s\n",
                 cudaGetErrorName(reports.watch(unbalanced_pipeline)));
    unbalanced_pipeline<<<1, 64>>>(out);
  }
  return cudaDeviceSynchronize();
}

int run_child(const std::string& which) {
  std::uint32_t* out = nullptr;
  if (cudaMalloc(&out, sizeof(*out)) != cudaSuccess) return 3;
  linpipe::DeviceReports reports;
  const cudaError_t status = launch(which, reports, out);
  if (status != cudaSuccess) reports.print(stderr);
  std::fprintf(stderr, "child: kernel finished with %s\n", cudaGetErrorName(status));
  return status == cudaSuccess ? 0 : 1;
}

// Runs `which` in a child process; returns its exit status (124: it hung) and output.
std::pair<int, std::string> run_in_child(const std::string& which) {
  return run_in_child_process("LINPIPE_HANG_CHILD", which, "HangDetector.*");
}

TEST(HangDetector, UnbalancedPipelineTrapsWithReport) {
  if (const char* which = std::getenv("LINPIPE_HANG_CHILD")) std::exit(run_child(which));
  if (!linpipe::debug_checks) GTEST_SKIP() << "built without debug checks (NDEBUG)";
  LINPIPE_REQUIRE_GPU();

  const auto [status, output] = run_in_child("unbalanced");
  EXPECT_NE(status, 124) << "the child hung until timeout killed it";
  EXPECT_EQ(status, 1) << "the kernel should fail with a trap";
  EXPECT_NE(output.find("linpipe: wait exceeded its budget (the barrier never completed): "
                        "pipeline 'unbalanced'"),
            std::string::npos);
  EXPECT_NE(output.find("stage 0 lap 0 role consumer, block (0,0,0) warp 1 lane 0"),
            std::string::npos);
  EXPECT_NE(output.find("the producer never filled this stage"), std::string::npos);
  EXPECT_NE(output.find("(this stage's full barrier expects 2 arrivals per phase)"), std::string::npos)
      << "the report must state init_mbars' producer count, the one that cannot be met";
  EXPECT_NE(output.find("child: watch gave cudaSuccess"), std::string::npos)
      << "a debug-build kernel's module must hold the report sink";
  EXPECT_NE(output.find("child: kernel finished with cudaError"), std::string::npos)
      << "the trap must fail the launch";
}

TEST(HangDetector, OverAcquiringConsumerTrapsAtOnceWithReport) {
  if (const char* which = std::getenv("LINPIPE_HANG_CHILD")) std::exit(run_child(which));
  if (!linpipe::debug_checks) GTEST_SKIP() << "built without debug checks (NDEBUG)";
  LINPIPE_REQUIRE_GPU();

  const auto [status, output] = run_in_child("greedy");
  EXPECT_NE(status, 124) << "the child hung until timeout killed it";
  EXPECT_EQ(status, 1) << "the kernel should fail with a trap";
  EXPECT_NE(output.find("linpipe: acquired a slot this role still holds"), std::string::npos);
  EXPECT_NE(output.find("pipeline 'greedy'"), std::string::npos);
  EXPECT_NE(output.find("stage 0 lap 1 role consumer, block (0,0,0) warp 1 lane 0"),
            std::string::npos);
  EXPECT_EQ(output.find("wait exceeded its budget"), std::string::npos)
      << "reported before waiting, not after the budget ran out";
}

TEST(HangDetector, MissingInitMbarsReportsInsteadOfUsingStaleBarriers) {
  if (const char* which = std::getenv("LINPIPE_HANG_CHILD")) std::exit(run_child(which));
  if (!linpipe::debug_checks) GTEST_SKIP() << "built without debug checks (NDEBUG)";
  LINPIPE_REQUIRE_GPU();

  const auto [status, output] = run_in_child("no_init");
  EXPECT_NE(status, 124) << "the child hung until timeout killed it";
  EXPECT_NE(output.find("child: the initialised launch finished with cudaSuccess"), std::string::npos);
  EXPECT_EQ(status, 1) << "the launch without init_mbars should fail with a trap";
  EXPECT_NE(output.find("linpipe: barriers used before init_mbars: pipeline 'forgot init'"),
            std::string::npos);
  EXPECT_NE(output.find("call pipeline.init_mbars(producer_count, consumer_count)"),
            std::string::npos);
  EXPECT_EQ(output.find("wait exceeded its budget"), std::string::npos)
      << "reported at the first wait, not after the budget ran out";
}

TEST(HangDetector, UndrainedTraceRingTrapsWithReport) {
  if (const char* which = std::getenv("LINPIPE_HANG_CHILD")) std::exit(run_child(which));
  if (!linpipe::debug_checks) GTEST_SKIP() << "built without debug checks (NDEBUG)";
  LINPIPE_REQUIRE_GPU();

  const auto [status, output] = run_in_child("undrained");
  EXPECT_NE(status, 124) << "the child hung until timeout killed it";
  EXPECT_EQ(status, 1) << "the kernel should fail with a trap";
  EXPECT_NE(output.find("linpipe: a traced role's trace ring stayed full past the wait budget"),
            std::string::npos);
  EXPECT_NE(output.find("role producer, record 2, block (0,0,0) warp 1 lane 0"), std::string::npos);
  EXPECT_NE(output.find("run a TraceDrainer's drain(ring)"), std::string::npos);
}

}  // namespace
