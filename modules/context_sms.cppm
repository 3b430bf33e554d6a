// linpipe:context_sms — how many SMs the calling thread's CUDA context may run on. An MPS
// client (its execution affinity, or an active-thread percentage) and a green context each get
// a share of the device's SMs, while the device's SM count still reports them all; a
// persistent grid sized from that count then holds more CTAs than can be resident at once, and
// a grid whose CTAs wait on one another (stream-K's finishers on their peers) never finishes.
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
export module linpipe:context_sms;
#if defined(__CUDA__)
import :driver_api;

namespace linpipe::detail {

// The driver queries, found once; a driver without one leaves it null and that query unasked.
struct ContextQueries {
  PFN_cuCtxGetCurrent_v4000 current = nullptr;
  PFN_cuCtxGetId_v12000 id = nullptr;
  PFN_cuCtxGetExecAffinity_v11040 exec_affinity = nullptr;
  PFN_cuCtxGetDevResource_v12040 resource = nullptr;

  static inline const ContextQueries& get() {
    static const ContextQueries queries = [] {
      ContextQueries found;
      cudaError_t status;  // a missing entry point is a null pointer: nothing more to say
      found.current = driver::entry_point<PFN_cuCtxGetCurrent_v4000>("cuCtxGetCurrent", 4000, &status);
      found.id = driver::entry_point<PFN_cuCtxGetId_v12000>("cuCtxGetId", 12000, &status);
      found.exec_affinity =
          driver::entry_point<PFN_cuCtxGetExecAffinity_v11040>("cuCtxGetExecAffinity", 11040, &status);
      found.resource = driver::entry_point<PFN_cuCtxGetDevResource_v12040>("cuCtxGetDevResource", 12040, &status);
      return found;
    }();
    return queries;
  }
};

// Each context's count, by the context's ID (unique for the process's life, unlike its
// handle): a context's share is fixed when it is created.
class ContextSmCounts {
 public:
  static inline ContextSmCounts& get() {
    static ContextSmCounts instance;
    return instance;
  }
  inline bool find(unsigned long long id, int& sms) {
    const std::lock_guard<std::mutex> lock(mutex_);
    for (const Known& known : known_) {
      if (known.id == id) {
        sms = known.sms;
        return true;
      }
    }
    return false;
  }
  inline void keep(unsigned long long id, int sms) {
    const std::lock_guard<std::mutex> lock(mutex_);
    known_.push_back({id, sms});
  }

 private:
  struct Known {
    unsigned long long id;
    int sms;
  };
  std::mutex mutex_;
  std::vector<Known> known_;
};

// The calling thread's current context and its ID; false where none is current yet (the
// runtime makes its primary context current at its first call that needs one) or the driver
// cannot say.
inline bool current_context(CUcontext& context, unsigned long long& id) {
  const ContextQueries& queries = ContextQueries::get();
  context = nullptr;
  return queries.current != nullptr && queries.current(&context) == CUDA_SUCCESS && context != nullptr &&
         queries.id != nullptr && queries.id(context, &id) == CUDA_SUCCESS;
}

// A key for what the runtime sets per context (a kernel's shared-memory opt-in): the current
// context's ID, or 0 where none is current yet.
inline unsigned long long current_context_key() {
  CUcontext context;
  unsigned long long id = 0;
  return current_context(context, id) ? id : 0;
}

}  // namespace linpipe::detail

export namespace linpipe {

// The SMs the calling thread's current context may run on, given the device's count: the
// smallest of that count, the context's execution-affinity SM count (an MPS client's share)
// and its SM resource (a green context's partition). Where the driver answers neither, or no
// context is current yet, or the driver cannot name the context, the device's count. Asked of
// the driver once per context.
inline int context_sms(int device_sms) {
  const detail::ContextQueries& queries = detail::ContextQueries::get();
  CUcontext context;
  unsigned long long id = 0;
  if (!detail::current_context(context, id)) return device_sms;
  int sms = device_sms;
  if (detail::ContextSmCounts::get().find(id, sms)) return sms;
  CUexecAffinityParam affinity{};
  if (queries.exec_affinity != nullptr &&
      queries.exec_affinity(&affinity, CU_EXEC_AFFINITY_TYPE_SM_COUNT) == CUDA_SUCCESS &&
      affinity.param.smCount.val > 0)
    sms = std::min(sms, static_cast<int>(affinity.param.smCount.val));
  CUdevResource resource{};
  if (queries.resource != nullptr && queries.resource(context, &resource, CU_DEV_RESOURCE_TYPE_SM) == CUDA_SUCCESS &&
      resource.sm.smCount > 0)
    sms = std::min(sms, static_cast<int>(resource.sm.smCount));
  detail::ContextSmCounts::get().keep(id, sms);
  return sms;
}

}  // namespace linpipe
#endif  // __CUDA__
