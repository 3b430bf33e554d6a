// CUDA: device and kernel functions are analysed like host ones, on the device side
// (clang-tidy's default for a .cu command) and on the host side.
// REQUIRES: cuda
// RUN: %check_linpipe -checks='-*,linpipe-*' %s -- %stage_flags %cuda_flags --cuda-device-only \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
// RUN: %check_linpipe -checks='-*,linpipe-*' %s -- %stage_flags %cuda_flags --cuda-host-only \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
#include "stage_types.h"
using namespace lp;

__device__ void consumerRole(Pipeline &pipe, int lane) {
  auto stage = pipe.acquire_consumer();
  if (lane >= 32)
    return;
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'stage' is not released on this path [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-4]]:8: note: 'stage' acquired here
  // CHECK-NOTES: :[[@LINE-3]]:5: note: 'return' leaves the scope here
  // CHECK-NOTES: :[[@LINE-4]]:5: note: call release() or release_without_signal() before leaving the scope
  if (lane < 2)
    stage.arrive();
  std::move(stage).release_without_signal();
}

__global__ void kernel(Pipeline *pipe) {
  auto stage = pipe->acquire_producer();
  if (threadIdx.x != 0)
    __trap();
  stage.mbar().expect_tx(256);
  stage.release();
  stage.release();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'stage' released twice [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-3]]:3: note: 'stage' released here
  auto next = pipe->acquire_consumer();
  next.arrive();
  next.release();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'next' arrives on its barrier twice: 'release' arrives again after an earlier arrival [linpipe-stage-protocol]
  // CHECK-NOTES: :[[@LINE-3]]:3: note: first arrival here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: after an explicit arrival, end with release_without_signal(), which does not arrive
}

__host__ __device__ void bothSides(Pipeline &pipe) {
  pipe.acquire_consumer();
  // CHECK-NOTES: :[[@LINE-1]]:8: warning: linear value returned by 'acquire_consumer' is discarded without being released [linpipe-linear-stage]
  // CHECK-NOTES: :[[@LINE-2]]:8: note: bind it to a variable and call release() or release_without_signal() on every path
}
