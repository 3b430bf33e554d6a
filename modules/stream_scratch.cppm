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
// forks onto other streams (which run at the same time in the graph) get one each. A capture's
// buffers live as long as a graph that holds them (the captured graph, its clones, and the
// executable graphs made from them) and are freed by stream_scratch_trim() after that.
// Two executable graphs instantiated from one captured graph share its buffers: replay them in
// turn. A stream's buffers live until stream_scratch_release(stream).
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
#include <utility>
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

// Frees `taken`, each on its own device, in relaxed capture mode: this thread's or another
// thread's global-mode capture would otherwise have the cudaFree refused (and that capture
// broken).
inline cudaError_t free_scratch(const std::vector<std::pair<int, void*>>& taken) {
  if (taken.empty()) return cudaSuccess;
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  cudaError_t status = cudaThreadExchangeStreamCaptureMode(&mode);
  if (status != cudaSuccess) return status;
  int current = 0;
  status = cudaGetDevice(&current);
  for (const auto& [device, memory] : taken) {
    cudaError_t step = cudaSetDevice(device);
    if (step == cudaSuccess) step = cudaFree(memory);
    if (status == cudaSuccess) status = step;
  }
  cudaError_t restored = cudaSetDevice(current);
  const cudaError_t mode_back = cudaThreadExchangeStreamCaptureMode(&mode);
  if (restored == cudaSuccess) restored = mode_back;
  return status != cudaSuccess ? status : restored;
}

// Every stream's buffers. A buffer outgrown by a larger request is kept allocated, not freed
// at once: a launch queued on the stream may still be using it, and cudaFree is refused during
// a capture. A stream's buffers are freed by stream_scratch_release; a capture's, once CUDA
// drops the last graph that holds them (a user object retained by the captured graph: every
// executable graph instantiated from it, and every clone, holds it too), by
// stream_scratch_trim().
class ScratchBuffers {
 public:
  // Device, whether `id` is a capture's (else a stream's), the ID, the captured stream (null
  // outside a capture), the capturing thread where that stream is its per-thread stream, the tag.
  using Key = std::tuple<int, bool, unsigned long long, const void*, const void*, const void*>;
  struct Buffer {
    void* memory = nullptr;
    std::size_t bytes = 0;
  };

  // Never destroyed: CUDA may call a graph's release callback while the process exits.
  static inline ScratchBuffers& get() {
    static ScratchBuffers* instance = new ScratchBuffers;
    return *instance;
  }

  // `capture_graph`: the graph being captured when the key is a capture's, else null.
  inline cudaError_t find(const Key& key, std::size_t bytes, cudaGraph_t capture_graph, void** memory) {
    const std::lock_guard<std::mutex> lock(mutex_);
    auto found = std::find_if(buffers_.begin(), buffers_.end(), [&](const Entry& e) { return e.key == key; });
    const bool fresh_key = found == buffers_.end();
    if (fresh_key) found = buffers_.insert(buffers_.end(), Entry{key, {}, {}});
    Entry& entry = *found;
    if (entry.buffer.memory == nullptr || entry.buffer.bytes < bytes) {
      void* fresh = nullptr;
      cudaError_t status = new_zeroed_scratch(bytes, &fresh);
      if (status == cudaSuccess && fresh_key && capture_graph != nullptr)
        status = release_with(capture_graph, key);
      if (status != cudaSuccess) {
        if (fresh != nullptr) (void)free_scratch({{std::get<0>(key), fresh}});
        if (fresh_key) buffers_.erase(found);
        return status;
      }
      if (entry.buffer.memory != nullptr) entry.outgrown.push_back(entry.buffer);
      entry.buffer = Buffer{fresh, bytes};
    }
    *memory = entry.buffer.memory;
    return cudaSuccess;
  }

  // Takes out every buffer kept under keys that `matches`, for the caller to free.
  template <class Matches>
  inline std::vector<std::pair<int, void*>> take(Matches matches) {
    std::vector<std::pair<int, void*>> taken;
    const std::lock_guard<std::mutex> lock(mutex_);
    for (auto entry = buffers_.begin(); entry != buffers_.end();) {
      if (!matches(entry->key)) {
        ++entry;
        continue;
      }
      taken.emplace_back(std::get<0>(entry->key), entry->buffer.memory);
      for (const Buffer& old : entry->outgrown) taken.emplace_back(std::get<0>(entry->key), old.memory);
      entry = buffers_.erase(entry);
    }
    return taken;
  }

  // The buffers of captures whose graphs are all gone.
  inline std::vector<std::pair<int, void*>> take_released() {
    std::vector<Key> released;
    {
      const std::lock_guard<std::mutex> lock(released_mutex_);
      released.swap(released_);
    }
    if (released.empty()) return {};
    return take([&](const Key& key) { return std::find(released.begin(), released.end(), key) != released.end(); });
  }

  inline std::size_t kept_bytes() {
    const std::lock_guard<std::mutex> lock(mutex_);
    std::size_t bytes = 0;
    for (const Entry& entry : buffers_) {
      bytes += entry.buffer.bytes;
      for (const Buffer& old : entry.outgrown) bytes += old.bytes;
    }
    return bytes;
  }

 private:
  struct Entry {
    Key key;
    Buffer buffer;
    std::vector<Buffer> outgrown;
  };

  // A user object owned by `graph` whose destructor (on a CUDA thread, which may not call CUDA)
  // only notes that `key`'s buffers are free to go.
  struct Noted {
    Key key;
    bool armed = true;  // false: the graph never took it, nothing to note
  };
  inline cudaError_t release_with(cudaGraph_t graph, const Key& key) {
    auto* noted = new Noted{key};
    cudaUserObject_t object = nullptr;
    cudaError_t status = cudaUserObjectCreate(&object, noted, &ScratchBuffers::graph_released, 1,
                                              cudaUserObjectNoDestructorSync);
    if (status != cudaSuccess) {
      delete noted;
      return status;
    }
    status = cudaGraphRetainUserObject(graph, object, 1, cudaGraphUserObjectMove);
    if (status != cudaSuccess) {
      noted->armed = false;
      (void)cudaUserObjectRelease(object, 1);  // its destructor now only deletes `noted`
    }
    return status;
  }
  static inline void graph_released(void* pointer) {
    auto* noted = static_cast<Noted*>(pointer);
    if (noted->armed) {
      ScratchBuffers& buffers = get();
      const std::lock_guard<std::mutex> lock(buffers.released_mutex_);
      buffers.released_.push_back(noted->key);
    }
    delete noted;
  }

  std::mutex mutex_;
  std::vector<Entry> buffers_;  // a few streams a process: a list is enough
  std::mutex released_mutex_;   // taken alone, never with mutex_ held
  std::vector<Key> released_;
};

}  // namespace linpipe::detail

export namespace linpipe {

// At least `bytes` of zeroed device memory on the current device, kept for the launches of
// `stream` under `tag` (any address unique to the use, e.g. a static's) until
// stream_scratch_release(stream), or for a capture until its graphs are gone and
// stream_scratch_trim() runs. Zeroed once, when it is made: every launch that uses it must
// leave it at zero. Refused on a stream whose capture was invalidated.
inline cudaError_t stream_scratch(cudaStream_t stream, const void* tag, std::size_t bytes, void** memory) {
  *memory = nullptr;
  if (bytes == 0) return cudaErrorInvalidValue;
  int device = 0;
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  unsigned long long id = 0;
  cudaGraph_t graph = nullptr;
  cudaError_t status = cudaGetDevice(&device);
  if (status != cudaSuccess || (status = cudaStreamGetCaptureInfo(stream, &capture, &id, &graph)) != cudaSuccess)
    return status;
  // The capture's ID and graph are only given while it is active.
  if (capture == cudaStreamCaptureStatusInvalidated) return cudaErrorStreamCaptureInvalidated;
  const bool captured = capture == cudaStreamCaptureStatusActive;
  if (captured && graph == nullptr) return cudaErrorStreamCaptureUnsupported;
  if (!captured && (status = cudaStreamGetId(stream, &id)) != cudaSuccess) return status;
  // A capture's branches: one handle each, except a per-thread stream's handle, which is every
  // thread's (the null handle is, where the default stream is per-thread).
  static thread_local const char this_thread = 0;
  const bool per_thread = stream == cudaStreamPerThread || stream == nullptr;
  const void* branch = captured ? static_cast<const void*>(stream) : nullptr;
  const void* thread = captured && per_thread ? &this_thread : nullptr;
  return detail::ScratchBuffers::get().find({device, captured, id, branch, thread, tag}, bytes,
                                            captured ? graph : nullptr, memory);
}

// Frees `stream`'s buffers (every tag's) once the work queued on it is done: call it before
// destroying a stream whose launches used stream_scratch (gemm_bf16 without a config, the
// attention kernels' dynamic schedules), or they stay allocated for the process. Not during
// the stream's capture. A later request on the stream gets a new zeroed buffer.
inline cudaError_t stream_scratch_release(cudaStream_t stream) {
  int device = 0;
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  unsigned long long id = 0;
  cudaError_t status = cudaGetDevice(&device);
  if (status != cudaSuccess || (status = cudaStreamIsCapturing(stream, &capture)) != cudaSuccess) return status;
  if (capture != cudaStreamCaptureStatusNone) return cudaErrorStreamCaptureUnsupported;
  if ((status = cudaStreamGetId(stream, &id)) != cudaSuccess || (status = cudaStreamSynchronize(stream)) != cudaSuccess)
    return status;
  return detail::free_scratch(detail::ScratchBuffers::get().take([&](const detail::ScratchBuffers::Key& key) {
    return std::get<0>(key) == device && !std::get<1>(key) && std::get<2>(key) == id;
  }));
}

// Frees the buffers of captures whose graphs are all gone (CUDA says so on a thread of its own,
// which may not free them) and sets `kept`, if given, to the bytes stream_scratch still keeps
// on every device. It synchronizes the device where there is something to free (cudaFree):
// call it where a program may wait, e.g. after destroying graphs; never during a capture.
inline cudaError_t stream_scratch_trim(std::size_t* kept = nullptr) {
  const cudaError_t status = detail::free_scratch(detail::ScratchBuffers::get().take_released());
  if (kept != nullptr) *kept = detail::ScratchBuffers::get().kept_bytes();
  return status;
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
