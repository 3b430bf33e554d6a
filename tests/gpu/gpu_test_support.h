// Shared by the GPU tests: skip cleanly without a GPU, and check every CUDA call.
#pragma once
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

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

// Runs this test binary again in a child process, with `variable=value` in its environment
// and only the tests matching `filter`, under a 60 s timeout: for kernels that trap (a trap
// ends the CUDA context, so it cannot run in the parent). Returns the child's exit status
// (124: it hung until the timeout) and its output, which is echoed.
inline std::pair<int, std::string> run_in_child_process(const std::string& variable,
                                                        const std::string& value,
                                                        const std::string& filter) {
  const std::string command = variable + "=" + value + " timeout 60 /proc/" +
                              std::to_string(getpid()) + "/exe --gtest_filter=" + filter + " 2>&1";
  FILE* child = popen(command.c_str(), "r");
  if (child == nullptr) return {-1, "popen failed"};
  std::string output;
  std::array<char, 512> chunk{};
  while (std::fgets(chunk.data(), chunk.size(), child) != nullptr) output += chunk.data();
  const int status = pclose(child);
  std::printf("%s", output.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

// A trap child's exit status after its launch (a linpipe::LaunchResult): 2 if the launch
// failed, else what `synchronize()` (linpipe::synchronize) says, printed for the parent to
// find ("child: synchronize says: <report>"): 1 if the kernel trapped, 0 if it finished.
template <class LaunchResult, class Synchronize>
int trap_child_status(const LaunchResult& launched, Synchronize&& synchronize) {
  if (!launched) {
    std::fprintf(stderr, "child: %s\n", launched.why);
    return 2;
  }
  const LaunchResult done = synchronize();
  std::fprintf(stderr, "child: synchronize says: %s\n", done.why);
  return done ? 0 : 1;
}

// bf16 on the host: the bits of a bfloat16 <-> float (round to nearest even; finite inputs).
inline float bf16_to_float(std::uint16_t bits) {
  const std::uint32_t wide = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &wide, sizeof f);
  return f;
}
inline std::uint16_t float_to_bf16(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return static_cast<std::uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

// n bf16 values in [-1, 1), the same for the same seed (a linear congruential sequence).
inline std::vector<std::uint16_t> random_bf16(std::size_t n, std::uint32_t seed) {
  std::vector<std::uint16_t> out(n);
  std::uint32_t x = seed * 2654435761u + 1;
  for (auto& e : out) {
    x = x * 1664525u + 1013904223u;
    e = float_to_bf16(static_cast<float>(x >> 8) / static_cast<float>(1u << 24) * 2.0f - 1.0f);
  }
  return out;
}
