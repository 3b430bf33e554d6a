// linpipe:stream_share — how many SMs a launch on a stream may run on. An MPS client (its
// execution affinity, or an active-thread percentage) and a green context each get a share of
// the device's SMs, while the device's SM count still reports them all; a persistent grid
// sized from that count then holds more CTAs than can be resident at once: its last CTAs wait
// for the first to finish, a wave late, and a grid whose CTAs wait on CTAs that start after
// them would never finish.
module;
#include "linpipe_macros.h"
#include <algorithm>
#include <mutex>
#include <vector>
#if defined(__CUDA__)
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#endif
export module linpipe:stream_share;
#if defined(__CUDA__)
import :driver_api;

export namespace linpipe {

// Where a stream's launches run and on how many SMs: a regular context or a green one, named by
// its ID (unique for the process's life, unlike a handle; 0 where the driver cannot give one).
struct StreamShare {
  bool green = false;
  unsigned long long id = 0;
  int sms = 0;
};

}  // namespace linpipe

namespace linpipe::detail {

// The driver queries, found once; a driver without one leaves it null and that query unasked.
struct ContextQueries {
  PFN_cuCtxGetCurrent_v4000 current = nullptr;
  PFN_cuCtxGetId_v12000 context_id = nullptr;
  PFN_cuCtxGetExecAffinity_v11040 exec_affinity = nullptr;
  PFN_cuCtxGetDevResource_v12040 context_resource = nullptr;
  PFN_cuStreamGetCtx_v12050 stream_context = nullptr;  // the _ptsz form where the build asks
  PFN_cuGreenCtxGetDevResource_v12040 green_resource = nullptr;
  PFN_cuGreenCtxGetId_v12090 green_id = nullptr;

  static inline const ContextQueries& get() {
    static const ContextQueries queries = [] {
      ContextQueries found;
      cudaError_t status;  // a missing entry point is a null pointer: nothing more to say
      found.current = driver::entry_point<PFN_cuCtxGetCurrent_v4000>("cuCtxGetCurrent", 4000, &status);
      found.context_id = driver::entry_point<PFN_cuCtxGetId_v12000>("cuCtxGetId", 12000, &status);
      found.exec_affinity =
          driver::entry_point<PFN_cuCtxGetExecAffinity_v11040>("cuCtxGetExecAffinity", 11040, &status);
      found.context_resource =
          driver::entry_point<PFN_cuCtxGetDevResource_v12040>("cuCtxGetDevResource", 12040, &status);
      found.stream_context = driver::entry_point<PFN_cuStreamGetCtx_v12050>("cuStreamGetCtx", 12050, &status);
      found.green_resource =
          driver::entry_point<PFN_cuGreenCtxGetDevResource_v12040>("cuGreenCtxGetDevResource", 12040, &status);
      found.green_id = driver::entry_point<PFN_cuGreenCtxGetId_v12090>("cuGreenCtxGetId", 12090, &status);
      return found;
    }();
    return queries;
  }
};

// Each share's SM count, by kind and ID: a context's or green context's share is fixed when it
// is created, so the driver is asked once per context.
class ShareCounts {
 public:
  static inline ShareCounts& get() {
    static ShareCounts instance;
    return instance;
  }
  inline bool find(linpipe::StreamShare& share) {
    const std::lock_guard<std::mutex> lock(mutex_);
    for (const linpipe::StreamShare& known : known_) {
      if (known.green == share.green && known.id == share.id) {
        share.sms = known.sms;
        return true;
      }
    }
    return false;
  }
  inline void keep(const linpipe::StreamShare& share) {
    const std::lock_guard<std::mutex> lock(mutex_);
    known_.push_back(share);
  }

 private:
  std::mutex mutex_;
  std::vector<linpipe::StreamShare> known_;
};

// The SMs of a green context, or of a regular one (its SM resource and, where it is the
// current context, its execution affinity: an MPS client's share); at most `device_sms`.
inline int green_sms(const ContextQueries& queries, CUgreenCtx green, int device_sms) {
  CUdevResource resource{};
  if (queries.green_resource != nullptr &&
      queries.green_resource(green, &resource, CU_DEV_RESOURCE_TYPE_SM) == CUDA_SUCCESS && resource.sm.smCount > 0)
    return std::min(device_sms, static_cast<int>(resource.sm.smCount));
  return device_sms;
}
inline int regular_sms(const ContextQueries& queries, CUcontext context, CUcontext current, int device_sms) {
  int sms = device_sms;
  CUdevResource resource{};
  if (queries.context_resource != nullptr &&
      queries.context_resource(context, &resource, CU_DEV_RESOURCE_TYPE_SM) == CUDA_SUCCESS && resource.sm.smCount > 0)
    sms = std::min(sms, static_cast<int>(resource.sm.smCount));
  CUexecAffinityParam affinity{};
  if (queries.exec_affinity != nullptr && context == current &&
      queries.exec_affinity(&affinity, CU_EXEC_AFFINITY_TYPE_SM_COUNT) == CUDA_SUCCESS &&
      affinity.param.smCount.val > 0)
    sms = std::min(sms, static_cast<int>(affinity.param.smCount.val));
  return sms;
}

}  // namespace linpipe::detail

export namespace linpipe {

// Where a launch on `stream` runs on `device` (of `device_sms` SMs), and on how many: the SMs
// of the green context the stream belongs to (a stream made by cuGreenCtxStreamCreate, or a
// special stream while a green context is current), else of its regular context (the smaller
// of its SM resource and, for the current context, its execution affinity: an MPS client's
// share). Where the driver answers none of this, the device's count. With no context current
// on the thread yet, the device's primary context is made current first (cudaSetDevice), as
// the launch would.
inline StreamShare stream_share(cudaStream_t stream, int device, int device_sms) {
  const detail::ContextQueries& queries = detail::ContextQueries::get();
  StreamShare share;
  share.sms = device_sms;
  CUcontext current = nullptr;
  if (queries.current == nullptr || queries.current(&current) != CUDA_SUCCESS) return share;
  if (current == nullptr && (cudaSetDevice(device) != cudaSuccess || queries.current(&current) != CUDA_SUCCESS ||
                             current == nullptr))
    return share;
  CUcontext context = current;
  CUgreenCtx green = nullptr;
  // A per-thread default stream inside a green context is refused (CUDA_ERROR_INVALID_HANDLE):
  // the current context then answers.
  if (queries.stream_context != nullptr &&
      queries.stream_context(stream, &context, &green) != CUDA_SUCCESS) {
    context = current;
    green = nullptr;
  }
  share.green = green != nullptr;
  const bool named = share.green ? queries.green_id != nullptr && queries.green_id(green, &share.id) == CUDA_SUCCESS
                                 : queries.context_id != nullptr && context != nullptr &&
                                       queries.context_id(context, &share.id) == CUDA_SUCCESS;
  if (!named) share.id = 0;
  if (named && detail::ShareCounts::get().find(share)) return share;
  share.sms = share.green ? detail::green_sms(queries, green, device_sms)
                          : context != nullptr ? detail::regular_sms(queries, context, current, device_sms)
                                               : device_sms;
  if (named) detail::ShareCounts::get().keep(share);
  return share;
}

}  // namespace linpipe
#endif  // __CUDA__
