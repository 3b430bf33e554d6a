// linpipe::stream_scratch on the GPU: a stream's buffer is zeroed when made and the same one on
// every later call; two streams, two threads' per-thread streams, or two tags on one stream
// never share one; a stream made after another was destroyed (which may reuse its handle)
// gets its own; a larger request gets a new zeroed buffer and leaves the old one allocated;
// and a call made while a stream is captured keeps the capture (even of a stream the legacy
// stream would join), restores the thread's capture mode, and gets the capture's own buffer,
// one for each stream a capture forks onto (the branches run at the same time in the graph);
// a capture's buffers are freed once its graph and executable graph are gone, and a stream's
// by stream_scratch_release; a capture that was invalidated is refused.
import linpipe;

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

#include "gpu_test_support.h"

namespace {

bool all_zero(const void* device, std::size_t bytes) {
  std::vector<std::uint8_t> host(bytes, 0xab);
  EXPECT_EQ(cudaMemcpy(host.data(), device, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  return std::all_of(host.begin(), host.end(), [](std::uint8_t b) { return b == 0; });
}

// The bytes stream_scratch keeps, after freeing what released graphs left.
std::size_t kept_bytes() {
  std::size_t kept = 0;
  EXPECT_EQ(linpipe::stream_scratch_trim(&kept), cudaSuccess);
  return kept;
}
// The same once earlier tests' destroyed graphs have all been released (CUDA releases them on a
// thread of its own, a little later): unchanged over five polls 20 ms apart.
std::size_t settled_kept_bytes() {
  std::size_t kept = kept_bytes();
  for (int same = 0, polls = 0; same < 5 && polls < 100; ++polls) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const std::size_t now = kept_bytes();
    same = now == kept ? same + 1 : 0;
    kept = now;
  }
  return kept;
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
  cudaPointerAttributes attributes{};
  LINPIPE_CUDA_OK(cudaPointerGetAttributes(&attributes, small));
  EXPECT_EQ(attributes.type, cudaMemoryTypeDevice) << "the outgrown buffer was freed";
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

TEST(StreamScratch, PerThreadStreamsOfTwoThreadsGetTwo) {
  LINPIPE_REQUIRE_GPU();
  static const char tag = 0;
  int device = 0;
  LINPIPE_CUDA_OK(cudaGetDevice(&device));
  void* got[2] = {nullptr, nullptr};
  cudaError_t status[2] = {cudaErrorUnknown, cudaErrorUnknown};
  for (int t = 0; t < 2; ++t) {
    // One after the other: the handle is the same constant in both; the streams are not.
    std::thread([&, t] {
      status[t] = cudaSetDevice(device);
      if (status[t] == cudaSuccess) status[t] = linpipe::stream_scratch(cudaStreamPerThread, &tag, 64, &got[t]);
    }).join();
  }
  LINPIPE_CUDA_OK(status[0]);
  LINPIPE_CUDA_OK(status[1]);
  EXPECT_NE(got[0], got[1]);
}

// A blocking stream: the legacy stream joins its capture, so a memset on the legacy stream
// would break it (a non-blocking stream would hide that).
TEST(StreamScratch, ACallInsideAGlobalCaptureKeepsItAndGetsTheCapturesOwnBuffer) {
  LINPIPE_REQUIRE_GPU();
  static const char tag = 0;
  cudaStream_t stream = nullptr;
  LINPIPE_CUDA_OK(cudaStreamCreate(&stream));
  void* direct = nullptr;
  LINPIPE_CUDA_OK(linpipe::stream_scratch(stream, &tag, 512, &direct));
  void* in_capture[2] = {nullptr, nullptr};
  for (void*& captured : in_capture) {
    LINPIPE_CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    const cudaError_t asked = linpipe::stream_scratch(stream, &tag, 512, &captured);
    cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
    const cudaError_t exchanged = cudaThreadExchangeStreamCaptureMode(&mode);
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
    EXPECT_EQ(asked, cudaSuccess) << cudaGetErrorString(asked);
    EXPECT_EQ(exchanged, cudaSuccess);
    EXPECT_EQ(mode, cudaStreamCaptureModeGlobal) << "the thread's capture mode was not restored";
    EXPECT_EQ(ended, cudaSuccess) << "the capture was broken: " << cudaGetErrorString(ended);
    ASSERT_NE(captured, nullptr);
    EXPECT_TRUE(all_zero(captured, 512));
    if (graph != nullptr) LINPIPE_CUDA_OK(cudaGraphDestroy(graph));
  }
  // Each graph may replay beside the stream's direct launches and beside the other graph.
  EXPECT_NE(in_capture[0], direct);
  EXPECT_NE(in_capture[1], direct);
  EXPECT_NE(in_capture[0], in_capture[1]);
  LINPIPE_CUDA_OK(cudaStreamDestroy(stream));
}

// A capture forked onto a second stream: both streams share the capture's ID, and the graph runs
// their launches at the same time, so each branch gets its own buffer; a later call on a
// branch's stream in the same capture gets that branch's again (its launches run in turn).
TEST(StreamScratch, EachBranchOfAForkedCaptureGetsItsOwn) {
  LINPIPE_REQUIRE_GPU();
  static const char tag = 0;
  cudaStream_t origin = new_stream(), branch = new_stream();
  cudaEvent_t fork = nullptr, join = nullptr;
  LINPIPE_CUDA_OK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  LINPIPE_CUDA_OK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  void *on_origin = nullptr, *on_branch = nullptr, *on_origin_again = nullptr;
  LINPIPE_CUDA_OK(cudaStreamBeginCapture(origin, cudaStreamCaptureModeGlobal));
  LINPIPE_CUDA_OK(cudaEventRecord(fork, origin));
  LINPIPE_CUDA_OK(cudaStreamWaitEvent(branch, fork, 0));
  const cudaError_t asked[3] = {linpipe::stream_scratch(origin, &tag, 256, &on_origin),
                                linpipe::stream_scratch(branch, &tag, 256, &on_branch),
                                linpipe::stream_scratch(origin, &tag, 256, &on_origin_again)};
  LINPIPE_CUDA_OK(cudaEventRecord(join, branch));
  LINPIPE_CUDA_OK(cudaStreamWaitEvent(origin, join, 0));
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(origin, &graph);
  for (const cudaError_t status : asked) EXPECT_EQ(status, cudaSuccess) << cudaGetErrorString(status);
  EXPECT_EQ(ended, cudaSuccess) << "the capture was broken: " << cudaGetErrorString(ended);
  ASSERT_NE(on_origin, nullptr);
  ASSERT_NE(on_branch, nullptr);
  EXPECT_NE(on_origin, on_branch) << "two branches of one capture share a buffer";
  EXPECT_EQ(on_origin, on_origin_again);
  if (graph != nullptr) LINPIPE_CUDA_OK(cudaGraphDestroy(graph));
  for (cudaEvent_t e : {fork, join}) LINPIPE_CUDA_OK(cudaEventDestroy(e));
  for (cudaStream_t s : {origin, branch}) LINPIPE_CUDA_OK(cudaStreamDestroy(s));
}

// The executable graph holds the capture's buffer after the captured graph is destroyed; once
// both are gone stream_scratch_trim frees it (CUDA calls the release on a thread of its own,
// so the test waits for it a little).
TEST(StreamScratch, ACapturesBufferIsFreedOnceItsGraphsAreGone) {
  LINPIPE_REQUIRE_GPU();
  static const char tag = 0;
  constexpr std::size_t bytes = 3u << 20;
  cudaStream_t stream = new_stream();
  const std::size_t before = settled_kept_bytes();
  void* captured = nullptr;
  LINPIPE_CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  const cudaError_t asked = linpipe::stream_scratch(stream, &tag, bytes, &captured);
  LINPIPE_CUDA_OK(cudaMemsetAsync(captured, 0, 16, stream));  // a node, so the graph is not empty
  cudaGraph_t graph = nullptr;
  LINPIPE_CUDA_OK(cudaStreamEndCapture(stream, &graph));
  LINPIPE_CUDA_OK(asked);
  EXPECT_EQ(kept_bytes(), before + bytes);
  cudaGraphExec_t exec = nullptr;
  LINPIPE_CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  LINPIPE_CUDA_OK(cudaGraphDestroy(graph));
  LINPIPE_CUDA_OK(cudaGraphLaunch(exec, stream));
  LINPIPE_CUDA_OK(cudaStreamSynchronize(stream));
  EXPECT_EQ(kept_bytes(), before + bytes) << "freed while the executable graph holds it";
  LINPIPE_CUDA_OK(cudaGraphExecDestroy(exec));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  std::size_t kept = kept_bytes();
  while (kept != before && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    kept = kept_bytes();
  }
  EXPECT_EQ(kept, before) << "the capture's buffer outlived its graphs";
  LINPIPE_CUDA_OK(cudaStreamDestroy(stream));
}

// stream_scratch_release frees every tag's buffer of the stream (after its queued work), and
// the stream's next request gets a new zeroed one; other streams keep theirs; refused during
// the stream's capture.
TEST(StreamScratch, ReleasingAStreamFreesItsBuffersAndTheNextRequestIsZeroed) {
  LINPIPE_REQUIRE_GPU();
  static const char tag_a = 0, tag_b = 0;
  cudaStream_t stream = new_stream(), other = new_stream();
  void *a = nullptr, *b = nullptr, *kept = nullptr;
  LINPIPE_CUDA_OK(linpipe::stream_scratch(stream, &tag_a, 1u << 20, &a));
  LINPIPE_CUDA_OK(linpipe::stream_scratch(stream, &tag_b, 1u << 20, &b));
  LINPIPE_CUDA_OK(linpipe::stream_scratch(other, &tag_a, 1u << 20, &kept));
  LINPIPE_CUDA_OK(cudaMemsetAsync(a, 0x5a, 1u << 20, stream));  // dirty: a fresh buffer must be zero
  const std::size_t with_both = settled_kept_bytes();
  LINPIPE_CUDA_OK(linpipe::stream_scratch_release(stream));
  EXPECT_EQ(kept_bytes(), with_both - (2u << 20));
  void* again = nullptr;
  LINPIPE_CUDA_OK(linpipe::stream_scratch(stream, &tag_a, 1u << 20, &again));
  EXPECT_TRUE(all_zero(again, 1u << 20));
  void* other_again = nullptr;
  LINPIPE_CUDA_OK(linpipe::stream_scratch(other, &tag_a, 1u << 20, &other_again));
  EXPECT_EQ(other_again, kept) << "another stream's buffer was released";
  LINPIPE_CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  const cudaError_t during_capture = linpipe::stream_scratch_release(stream);
  cudaGraph_t graph = nullptr;
  LINPIPE_CUDA_OK(cudaStreamEndCapture(stream, &graph));
  EXPECT_EQ(during_capture, cudaErrorStreamCaptureUnsupported);
  if (graph != nullptr) LINPIPE_CUDA_OK(cudaGraphDestroy(graph));
  for (cudaStream_t s : {stream, other}) {
    LINPIPE_CUDA_OK(linpipe::stream_scratch_release(s));
    LINPIPE_CUDA_OK(cudaStreamDestroy(s));
  }
}

// A capture an illegal call has invalidated (synchronizing the captured stream): refused, with
// nothing kept for it (CUDA gives no ID or graph for it any more).
TEST(StreamScratch, AnInvalidatedCaptureIsRefused) {
  LINPIPE_REQUIRE_GPU();
  static const char tag = 0;
  cudaStream_t stream = new_stream();
  const std::size_t before = settled_kept_bytes();
  LINPIPE_CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  EXPECT_NE(cudaStreamSynchronize(stream), cudaSuccess);  // not allowed while capturing: invalidates it
  void* memory = &memory;
  const cudaError_t asked = linpipe::stream_scratch(stream, &tag, 64, &memory);
  cudaGraph_t graph = nullptr;
  EXPECT_EQ(cudaStreamEndCapture(stream, &graph), cudaErrorStreamCaptureInvalidated);
  (void)cudaGetLastError();
  EXPECT_EQ(asked, cudaErrorStreamCaptureInvalidated) << cudaGetErrorString(asked);
  EXPECT_EQ(memory, nullptr);
  EXPECT_EQ(kept_bytes(), before);
  LINPIPE_CUDA_OK(cudaStreamDestroy(stream));
}

// Refused before any CUDA call: runs on every machine.
TEST(StreamScratch, NoBytesOrAWrappingCountIsRefused) {
  static const char tag = 0;
  void* memory = &memory;
  EXPECT_EQ(linpipe::stream_scratch(nullptr, &tag, 0, &memory), cudaErrorInvalidValue);
  EXPECT_EQ(memory, nullptr);
  std::uint64_t* words = reinterpret_cast<std::uint64_t*>(&memory);
  EXPECT_EQ(linpipe::stream_scratch(nullptr, &tag, &words, SIZE_MAX / 4), cudaErrorInvalidValue);
  EXPECT_EQ(words, nullptr);
}

}  // namespace
