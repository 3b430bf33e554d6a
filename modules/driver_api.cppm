// linpipe:driver_api — driver entry points reached through the CUDA runtime, so nothing that
// imports linpipe links libcuda: the runtime hands out the driver function of a given ABI
// version (cudaGetDriverEntryPointByVersion), typed here with cudaTypedefs.h.
module;
#include "linpipe_macros.h"
#if defined(__CUDA__)
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#endif
export module linpipe:driver_api;

#if defined(__CUDA__)
export namespace linpipe::driver {

// The driver function `name` as of CUDA `version` (e.g. 12000), cast to Fn; nullptr and
// *status set when the driver lacks it.
template <class Fn>
inline Fn entry_point(const char* name, unsigned version, cudaError_t* status) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  *status = cudaGetDriverEntryPointByVersion(name, &fn, version, cudaEnableDefault, &found);
  if (*status == cudaSuccess && (found != cudaDriverEntryPointSuccess || fn == nullptr))
    *status = cudaErrorNotSupported;
  return *status == cudaSuccess ? reinterpret_cast<Fn>(fn) : nullptr;
}

}  // namespace linpipe::driver
#endif  // __CUDA__
