// linpipe::stream_scratch on the GPU: a stream's buffer is zeroed when made and the same one on
// every later call; two streams, or two tags on one stream, never share one; a stream made
// after another was destroyed (which may reuse its handle) gets its own; a larger request
// gets a new zeroed buffer and leaves the old one allocated; and the first call may come while
// the stream is being captured without breaking the capture.
import linpipe;

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpu_test_support.h"

namespace {

bool all_zero(const void* device, std::size_t bytes) {
  std::vector<std::uint8_t> host(bytes, 0xab);
  EXPECT_EQ(cudaMemcpy(host.data(), device, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  return std::all_of(host.begin(), host.end(), [](std::uint8_t b) { return b == 0; });
}

cudaStream_t new_stream() {
  cudaStream_t stream = nullptr;
  EXPECT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  return stream;
}

TEST(StreamScratch, OneZeroedBufferPerStreamAndTag) {
  LINPIPE_REQUIRE_GPU();
  static const char tag = 0, other_tag = 0;
  cudaStream_t first = new_stream(), second = new_stream();
  void* kept = nullptr;
  LINPIPE_CUDA_OK(linpipe::stream_scratch(first, &tag, 256, &kept));
  ASSERT_NE(kept, nullptr);
  EXPECT_TRUE(all_zero(kept, 256));
  // The same buffer on every later call, whatever its launches left in it, and for a smaller size.
  LINPIPE_CUDA_OK(cudaMemset(kept, 0x5a, 256));
  void* again = nullptr;
  LINPIPE_CUDA_OK(linpipe::stream_scratch(first, &tag, 256, &again));
  EXPECT_EQ(again, kept);
  LINPIPE_CUDA_OK(linpipe::stream_scratch(first, &tag, 64, &again));
  EXPECT_EQ(again, kept);
  LINPIPE_CUDA_OK(cudaMemset(kept, 0, 256));
  // Another stream, or another tag on this one: a buffer of its own, zeroed.
  void* of_second = nullptr;
  void* of_other_tag = nullptr;
  LINPIPE_CUDA_OK(linpipe::stream_scratch(second, &tag, 256, &of_second));
  LINPIPE_CUDA_OK(linpipe::stream_scratch(first, &other_tag, 256, &of_other_tag));
  EXPECT_NE(of_second, kept);
  EXPECT_NE(of_other_tag, kept);
  EXPECT_NE(of_other_tag, of_second);
  EXPECT_TRUE(all_zero(of_second, 256));
  EXPECT_TRUE(all_zero(of_other_tag, 256));
  // Typed: count objects of T.
  std::uint64_t* words = nullptr;
  LINPIPE_CUDA_OK(linpipe::stream_scratch(second, &other_tag, &words, 4));
  ASSERT_NE(words, nullptr);
  EXPECT_TRUE(all_zero(words, 4 * sizeof(std::uint64_t)));
  LINPIPE_CUDA_OK(cudaStreamDestroy(first));
  LINPIPE_CUDA_OK(cudaStreamDestroy(second));
}

TEST(StreamScratch, ALargerRequestGetsANewBufferAndTheOldStaysAllocated) {
  LINPIPE_REQUIRE_GPU();
  static const char tag = 0;
  cudaStream_t stream = new_stream();
  void* small = nullptr;
  void* large = nullptr;
  LINPIPE_CUDA_OK(linpipe::stream_scratch(stream, &tag, 128, &small));
  LINPIPE_CUDA_OK(linpipe::stream_scratch(stream, &tag, 1 << 20, &large));
  EXPECT_NE(large, small);
  EXPECT_TRUE(all_zero(large, 1 << 20));
  // A launch queued before the larger request may still use the smaller buffer.
  LINPIPE_CUDA_OK(cudaMemset(small, 0, 128));
  void* kept = nullptr;
  LINPIPE_CUDA_OK(linpipe::stream_scratch(stream, &tag, 128, &kept));
  EXPECT_EQ(kept, large);
  LINPIPE_CUDA_OK(cudaStreamDestroy(stream));
}

TEST(StreamScratch, AStreamMadeAfterAnotherWasDestroyedGetsItsOwn) {
  LINPIPE_REQUIRE_GPU();
  static const char tag = 0;
  cudaStream_t old_stream = new_stream();
  void* old_buffer = nullptr;
  LINPIPE_CUDA_OK(linpipe::stream_scratch(old_stream, &tag, 256, &old_buffer));
  LINPIPE_CUDA_OK(cudaStreamDestroy(old_stream));
  cudaStream_t new_one = new_stream();  // often the same handle as old_stream
  void* new_buffer = nullptr;
  LINPIPE_CUDA_OK(linpipe::stream_scratch(new_one, &tag, 256, &new_buffer));
  EXPECT_NE(new_buffer, old_buffer);
  LINPIPE_CUDA_OK(cudaStreamDestroy(new_one));
}

TEST(StreamScratch, FirstCallInsideAGlobalCaptureKeepsTheCapture) {
  LINPIPE_REQUIRE_GPU();
  static const char tag = 0;
  cudaStream_t stream = new_stream();
  LINPIPE_CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  void* captured = nullptr;
  const cudaError_t asked = linpipe::stream_scratch(stream, &tag, 512, &captured);
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  EXPECT_EQ(asked, cudaSuccess) << cudaGetErrorString(asked);
  EXPECT_EQ(ended, cudaSuccess) << "the capture was broken: " << cudaGetErrorString(ended);
  ASSERT_NE(captured, nullptr);
  EXPECT_TRUE(all_zero(captured, 512));
  if (graph != nullptr) LINPIPE_CUDA_OK(cudaGraphDestroy(graph));
  LINPIPE_CUDA_OK(cudaStreamDestroy(stream));
}

// Refused before any CUDA call: runs on every machine.
TEST(StreamScratch, NoBytesIsRefused) {
  static const char tag = 0;
  void* memory = &memory;
  EXPECT_EQ(linpipe::stream_scratch(nullptr, &tag, 0, &memory), cudaErrorInvalidValue);
  EXPECT_EQ(memory, nullptr);
}

}  // namespace
