// linpipe:stream_scratch — zeroed device memory kept for the launches of one stream: a dynamic
// schedule's WorkCounter, stream-K's partial flags and sums. Such state must start at zero,
// each launch leaves it at zero for the next, and two launches that may run at once (two
// streams) must not share it. Launches on one stream run in turn, so one buffer per stream
// serves them all, and a library entry point that takes no workspace can still keep one.
//
//   void* counter = nullptr;
//   static const char tag = 0;  // one buffer per use: two uses on one stream get two
//   if (cudaError_t e = linpipe::stream_scratch(stream, &tag, sizeof(WorkCounter), &counter)) ...
//
// The first call for a stream may be made while the stream is being captured into a graph:
// the memory is then allocated in relaxed capture mode (cudaMalloc is refused under global
// capture) and zeroed on a private stream (the legacy stream would join, and so break, the
// capture). A stream is known by its ID, not its handle (a new stream may reuse a destroyed
// one's handle while the old stream's last launch still runs, and cudaStreamPerThread is one
// handle for every thread's stream). During a capture, where a stream's ID may not be asked
// for, the buffer is the capture's own (by its capture ID) and the captured stream's: each
// captured graph keeps one for each of its streams that asks, so graphs may be replayed at the
// same time as each other and as the stream's direct launches, and the branches a capture
// forks onto other streams (which run at the same time in the graph) get one each; at the
// cost of a buffer for every capture and stream that asks, kept for the process: a program
// that captures anew at every step grows by an allocation a capture. Two executable graphs
// instantiated from one captured graph share its buffers: replay them in turn.
//
// A kernel launched early (programmatic dependent launch) must wait for the kernel before it
// (griddepcontrol.wait) before it touches the buffer: the launch before may still be using it.
module;
#include "linpipe_macros.h"
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <tuple>
#include <type_traits>
#include <vector>
#if defined(__CUDA__)
#include <cuda_runtime_api.h>
#endif
export module linpipe:stream_scratch;
#if defined(__CUDA__)

namespace linpipe::detail {

// `bytes` of device memory on the current device, zeroed before it is returned; safe to call
// while the calling thread captures a stream (see above).
inline cudaError_t new_zeroed_scratch(std::size_t bytes, void** fresh) {
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  cudaError_t status = cudaThreadExchangeStreamCaptureMode(&mode);
  if (status != cudaSuccess) return status;
  cudaStream_t zeroing = nullptr;
  *fresh = nullptr;
  status = cudaMalloc(fresh, bytes);
  if (status == cudaSuccess) status = cudaStreamCreateWithFlags(&zeroing, cudaStreamNonBlocking);
  if (status == cudaSuccess) status = cudaMemsetAsync(*fresh, 0, bytes, zeroing);
  if (status == cudaSuccess) status = cudaStreamSynchronize(zeroing);
  if (zeroing != nullptr) (void)cudaStreamDestroy(zeroing);
  if (status != cudaSuccess && *fresh != nullptr) {
    (void)cudaFree(*fresh);
    *fresh = nullptr;
  }
  const cudaError_t restored = cudaThreadExchangeStreamCaptureMode(&mode);
  return status != cudaSuccess ? status : restored;
}

// Every stream's buffers for the process. A buffer outgrown by a larger request is kept
// allocated, not freed: a launch queued on the stream may still be using it, and cudaFree is
// refused during a capture.
class ScratchBuffers {
 public:
  // Device, whether `id` is a capture's (else a stream's), the ID, the captured stream (null
  // outside a capture), the capturing thread where that stream is its per-thread stream, the tag.
  using Key = std::tuple<int, bool, unsigned long long, const void*, const void*, const void*>;
  struct Buffer {
    void* memory = nullptr;
    std::size_t bytes = 0;
  };

  static inline ScratchBuffers& get() {
    static ScratchBuffers instance;
    return instance;
  }

  inline cudaError_t find(const Key& key, std::size_t bytes, void** memory) {
    const std::lock_guard<std::mutex> lock(mutex_);
    auto found = std::find_if(buffers_.begin(), buffers_.end(), [&](const Entry& e) { return e.key == key; });
    if (found == buffers_.end()) found = buffers_.insert(buffers_.end(), Entry{key, {}});
    Buffer& kept = found->buffer;
    if (kept.memory == nullptr || kept.bytes < bytes) {
      void* fresh = nullptr;
      if (const cudaError_t status = new_zeroed_scratch(bytes, &fresh); status != cudaSuccess) return status;
      if (kept.memory != nullptr) outgrown_.push_back(kept.memory);
      kept = Buffer{fresh, bytes};
    }
    *memory = kept.memory;
    return cudaSuccess;
  }

 private:
  struct Entry {
    Key key;
    Buffer buffer;
  };
  std::mutex mutex_;
  std::vector<Entry> buffers_;  // a few streams a process: a list is enough
  std::vector<void*> outgrown_;
};

}  // namespace linpipe::detail

export namespace linpipe {

// At least `bytes` of zeroed device memory on the current device, kept for the launches of
// `stream` under `tag` (any address unique to the use, e.g. a static's) for the process's
// life. Zeroed once, when it is made: every launch that uses it must leave it at zero.
inline cudaError_t stream_scratch(cudaStream_t stream, const void* tag, std::size_t bytes, void** memory) {
  *memory = nullptr;
  if (bytes == 0) return cudaErrorInvalidValue;
  int device = 0;
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  unsigned long long id = 0;
  cudaError_t status = cudaGetDevice(&device);
  if (status != cudaSuccess || (status = cudaStreamGetCaptureInfo(stream, &capture, &id)) != cudaSuccess)
    return status;
  const bool captured = capture != cudaStreamCaptureStatusNone;
  if (!captured && (status = cudaStreamGetId(stream, &id)) != cudaSuccess) return status;
  // A capture's branches: one handle each, except a per-thread stream's handle, which is every
  // thread's (the null handle is, where the default stream is per-thread).
  static thread_local const char this_thread = 0;
  const bool per_thread = stream == cudaStreamPerThread || stream == nullptr;
  const void* branch = captured ? static_cast<const void*>(stream) : nullptr;
  const void* thread = captured && per_thread ? &this_thread : nullptr;
  return detail::ScratchBuffers::get().find({device, captured, id, branch, thread, tag}, bytes, memory);
}

// The same, typed: `count` zeroed objects of T.
template <class T>
inline cudaError_t stream_scratch(cudaStream_t stream, const void* tag, T** memory, std::size_t count = 1) {
  static_assert(!std::is_void_v<T>, "stream_scratch(stream, tag, T**, count) counts objects of T: for bytes, "
                                    "call stream_scratch(stream, tag, bytes, void**)");
  *memory = nullptr;
  if (count > SIZE_MAX / sizeof(T)) return cudaErrorInvalidValue;  // the byte count would wrap
  void* raw = nullptr;
  const cudaError_t status = stream_scratch(stream, tag, sizeof(T) * count, &raw);
  *memory = static_cast<T*>(raw);
  return status;
}

}  // namespace linpipe

#endif
