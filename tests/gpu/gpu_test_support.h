// Shared by the GPU tests: skip cleanly without a GPU, and check every CUDA call.
#pragma once
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>

// GTEST_SKIPs the current test when no CUDA device can be used.
#define LINPIPE_REQUIRE_GPU()                                                          \
  do {                                                                                 \
    int devices = 0;                                                                   \
    const cudaError_t status = cudaGetDeviceCount(&devices);                           \
    if (status != cudaSuccess || devices == 0)                                         \
      GTEST_SKIP() << "no CUDA GPU here (" << cudaGetErrorString(status) << ")";        \
    cudaDeviceProp prop{};                                                             \
    ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);                         \
    if (prop.major < 9) GTEST_SKIP() << "needs sm_90 or newer, found " << prop.name;   \
  } while (0)

#define LINPIPE_CUDA_OK(call)                                                          \
  do {                                                                                 \
    const cudaError_t status_ = (call);                                                \
    ASSERT_EQ(status_, cudaSuccess) << #call << ": " << cudaGetErrorString(status_);   \
  } while (0)
