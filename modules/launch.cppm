// linpipe:launch — one host call that launches a warp-specialised kernel: the dynamic
// shared-memory opt-in, the cluster shape, the grid (one CTA per work item, or a persistent
// grid sized by the occupancy calculator: CTAs per SM of the SMs the stream's context may use,
// or clusters that fit at once), the
// launch itself (early, under the last CTAs of the kernel before it, where asked), and the
// debug report sink. What it asks the runtime is asked once per kernel, device, SM share and
// shape, so a repeated launch costs only the launch (and, for a persistent grid, a few driver
// lookups of the stream's context).
//
//   const linpipe::LaunchResult launched = linpipe::launch(
//       rmsnorm_kernel, {.threads = Roles::threads, .shared_bytes = Plan::launch_bytes(),
//                        .items = schedule.count(), .grid = linpipe::GridKind::persistent},
//       x, w, y, rows);
//   if (!launched) std::fprintf(stderr, "%s\n", launched.why);
//   if (const auto done = linpipe::synchronize(); !done) std::fprintf(stderr, "%s\n", done.why);
//
// A kernel built with debug checks that traps (a hung wait, a leaked stage, an extra arrival)
// writes its report to a record every launch() points it at: synchronize() returns it in
// `why`, and a process that never asks still prints it on exit.
module;
#include "linpipe_macros.h"
#include <algorithm>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_set>
#include <vector>
#if defined(__CUDA__)
// After the standard headers: linpipe_cuda_attributes.h says why.
#include <cuda_runtime_api.h>
#endif
export module linpipe:launch;
#if defined(__CUDA__)
import :device_reports;
import :stream_share;

export namespace linpipe {

// How many CTAs to launch for `items` work items.
enum class GridKind : std::uint8_t {
  one_per_item,  // a one-shot grid: CTA i takes item i
  persistent,    // as many CTAs as fit at once on the stream's SMs (at most one per item)
};

struct LaunchOptions {
  unsigned threads = 0;              // block size (WarpRoles::threads)
  std::size_t shared_bytes = 0;      // dynamic shared memory (SharedPlan::launch_bytes())
  std::uint64_t items = 0;           // work items (WorkSchedule::count())
  GridKind grid = GridKind::one_per_item;
  unsigned ctas_per_sm = 0;          // persistent: at most this many per SM (0: as many as fit)
  unsigned max_ctas = 0;             // persistent: at most this many CTAs in all (0: no cap),
                                     // leaving SMs to concurrent work; whole clusters
  unsigned cluster = 1;              // CTAs per cluster (along x)
  cudaStream_t stream = nullptr;
  // Programmatic dependent launch: the kernel may be scheduled before the kernel ahead of it
  // on the stream has finished (once every CTA of that one has executed
  // ptx::griddepcontrol_launch_dependents() or exited), so its launch and its prologue (barrier
  // setup, tensor-map prefetch) run under the other's last CTAs. Only for a kernel whose every
  // thread calls ptx::griddepcontrol_wait() before it touches global memory another kernel
  // may use: launched so, a kernel that does not wait reads and writes while the kernel
  // before it still runs.
  bool early_start = false;
};

// A launch's (or a synchronize()'s) outcome: the CUDA status and, on failure, a sentence that
// says what went wrong and what to change.
struct LaunchResult {
  cudaError_t status = cudaSuccess;
  unsigned grid = 0;  // CTAs launched
  char why[640] = {};
  inline explicit operator bool() const { return status == cudaSuccess; }
};

// `result.why` copied where it outlives `result`: a buffer of the calling thread, valid until
// its next kept_why(). For an entry point that hands a `const char** why` back to its caller.
inline const char* kept_why(const LaunchResult& result) {
  thread_local char kept[sizeof(result.why)];
  std::snprintf(kept, sizeof(kept), "%s", result.why);
  return kept;
}

}  // namespace linpipe

namespace linpipe::detail {

// The process's report record: every launch() points its kernel's module here once. (Members
// are `inline` by hand: in a named module, a member defined in its class is not.)
class LaunchReports {
 public:
  static inline LaunchReports& get() {
    static LaunchReports instance;
    return instance;
  }
  // Watches `kernel` once per process (a module keeps the record it was pointed at).
  inline void watch(const void* kernel) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!watched_.insert(kernel).second) return;
    if (reports_ == nullptr) {
      reports_ = new DeviceReports();  // kept: the record must outlive every kernel
      std::atexit(&LaunchReports::print_on_exit);
    }
    // Release-build kernels have no sink (cudaErrorSymbolNotFound): nothing to watch.
    (void)reports_->watch(reinterpret_cast<void (*)()>(const_cast<void*>(kernel)));
  }
  // The report of a trapped kernel, once: empty if none (or already handed out).
  inline std::string take() {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (reports_ == nullptr || !reports_->has_report() || handed_out_) return {};
    handed_out_ = true;
    return reports_->text();
  }

 private:
  static inline void print_on_exit() {
    const std::string text = get().take();
    if (!text.empty()) std::fputs(text.c_str(), stderr);
  }

  std::mutex mutex_;
  std::unordered_set<const void*> watched_;
  DeviceReports* reports_ = nullptr;
  bool handed_out_ = false;
};

// Fills `result` with `status` and a sentence (printf-style), then CUDA's own words.
[[gnu::format(printf, 3, 4)]] inline void say(LaunchResult& result, cudaError_t status,
                                              const char* format, ...) {
  result.status = status;
  std::va_list words;
  va_start(words, format);
  const int used = std::vsnprintf(result.why, sizeof(result.why), format, words);
  va_end(words);
  if (used >= 0 && static_cast<std::size_t>(used) < sizeof(result.why)) {
    std::snprintf(result.why + used, sizeof(result.why) - used, " (%s: %s)",
                  cudaGetErrorName(status), cudaGetErrorString(status));
  }
}

// What launch() asks the runtime about a kernel, asked once per kernel, device, SM share and
// shape: the SM count, the shared-memory opt-in (a per-kernel, per-device setting, raised to
// the largest size launched so far) and, for persistent grids, how many CTAs (or clusters) fit
// at once on the SMs the launch's stream may use (stream_share). Later launches only read it,
// so a launch costs the launch itself (a GEMM of a few microseconds must not wait on occupancy
// queries).
class LaunchFits {
 public:
  static inline LaunchFits& get() {
    static LaunchFits instance;
    return instance;
  }

  // The CTAs a persistent grid of `how` may keep resident on `share` of `device`'s
  // `device_sms` SMs: SMs x CTAs per SM, or whole clusters x cluster size (cluster placement,
  // not the SM count, bounds a cluster grid; on a share of the device, also no more CTAs than
  // its SMs hold).
  inline cudaError_t resident_ctas(const void* kernel, int device, const StreamShare& share, int device_sms,
                                   const LaunchOptions& how, std::uint64_t& ctas) {
    const std::lock_guard<std::mutex> lock(mutex_);
    for (const Fit& fit : fits_) {
      if (fit.kernel == kernel && fit.device == device && fit.green == share.green && fit.share == share.id &&
          fit.sms == share.sms && fit.threads == how.threads && fit.bytes == how.shared_bytes &&
          fit.cluster == how.cluster) {
        ctas = fit.ctas;
        return cudaSuccess;
      }
    }
    const auto sms = static_cast<std::uint64_t>(share.sms);
    int per_sm = 0, clusters = 0;
    cudaError_t status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, kernel, static_cast<int>(how.threads), how.shared_bytes);
    ctas = static_cast<std::uint64_t>(per_sm) * sms;
    if (status == cudaSuccess && per_sm != 0 && how.cluster > 1) {
      cudaLaunchConfig_t probe{};
      cudaLaunchAttribute cluster{};
      cluster.id = cudaLaunchAttributeClusterDimension;
      cluster.val.clusterDim = {how.cluster, 1, 1};
      probe.gridDim = dim3(static_cast<unsigned>(share.sms) / how.cluster * how.cluster, 1, 1);
      probe.blockDim = dim3(how.threads, 1, 1);
      probe.dynamicSmemBytes = how.shared_bytes;
      probe.stream = how.stream;
      probe.attrs = &cluster;
      probe.numAttrs = 1;
      status = cudaOccupancyMaxActiveClusters(&clusters, kernel, &probe);
      // The clusters that fit, and on a share of the device no more CTAs than its SMs hold.
      const std::uint64_t placed = static_cast<std::uint64_t>(clusters) * how.cluster;
      ctas = share.sms < device_sms ? std::min(placed, ctas / how.cluster * how.cluster) : placed;
    }
    if (status != cudaSuccess || ctas == 0) return status == cudaSuccess ? cudaErrorInvalidConfiguration : status;
    fits_.push_back({kernel, device, share.green, share.id, share.sms, how.threads, how.shared_bytes, how.cluster, ctas});
    return cudaSuccess;
  }

  // Opts `kernel` into `bytes` of dynamic shared memory on `device`, unless it already is.
  inline cudaError_t opt_in(const void* kernel, int device, std::size_t bytes) {
    const std::lock_guard<std::mutex> lock(mutex_);
    for (OptIn& seen : opt_ins_) {
      if (seen.kernel != kernel || seen.device != device) continue;
      if (seen.bytes >= bytes) return cudaSuccess;
      const cudaError_t status = set(kernel, bytes);
      if (status == cudaSuccess) seen.bytes = bytes;
      return status;
    }
    const cudaError_t status = set(kernel, bytes);
    if (status == cudaSuccess) opt_ins_.push_back({kernel, device, bytes});
    return status;
  }

  // The SM count and per-block shared-memory limit of `device`.
  inline cudaError_t device_limits(int device, int& sms, int& optin) {
    const std::lock_guard<std::mutex> lock(mutex_);
    for (const Device& known : devices_) {
      if (known.device == device) {
        sms = known.sms;
        optin = known.optin;
        return cudaSuccess;
      }
    }
    cudaError_t status = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (status == cudaSuccess)
      status = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    if (status == cudaSuccess) devices_.push_back({device, sms, optin});
    return status;
  }

 private:
  static inline cudaError_t set(const void* kernel, std::size_t bytes) {
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                static_cast<int>(bytes));
  }
  struct Fit {
    const void* kernel;
    int device;
    bool green;
    unsigned long long share;
    int sms;
    unsigned threads;
    std::size_t bytes;
    unsigned cluster;
    std::uint64_t ctas;
  };
  struct OptIn {
    const void* kernel;
    int device;
    std::size_t bytes;
  };
  struct Device {
    int device, sms, optin;
  };
  std::mutex mutex_;
  std::vector<Fit> fits_;
  std::vector<OptIn> opt_ins_;
  std::vector<Device> devices_;
};

// `whole_device`: a persistent grid on every SM of the device, not only the stream's share.
inline LaunchResult grid_for(const void* kernel, const LaunchOptions& how, bool whole_device = false) {
  LaunchResult result;
  LaunchFits& fits = LaunchFits::get();
  int device = 0, sms = 0, optin = 0;
  cudaError_t status = cudaGetDevice(&device);
  if (status == cudaSuccess) status = fits.device_limits(device, sms, optin);
  if (status != cudaSuccess) {
    say(result, status, "linpipe::launch: no usable CUDA device");
    return result;
  }
  if (how.shared_bytes > static_cast<std::size_t>(optin)) {
    say(result, cudaErrorInvalidValue,
        "linpipe::launch: the kernel asks for %zu bytes of dynamic shared memory, and this "
        "device allows %d per block: use fewer stages or smaller tiles",
        how.shared_bytes, optin);
    return result;
  }
  status = fits.opt_in(kernel, device, how.shared_bytes);
  if (status != cudaSuccess) {
    say(result, status, "linpipe::launch: could not opt the kernel into %zu bytes of shared memory",
        how.shared_bytes);
    return result;
  }
  const unsigned cluster = how.cluster > 1 ? how.cluster : 1;
  // A grid is whole clusters: a one-shot grid rounds up (the kernel sees the spare CTAs walk no
  // items), a persistent one never exceeds what fits at once.
  std::uint64_t ctas = (how.items + cluster - 1) / cluster * cluster;
  if (how.grid == GridKind::persistent) {
    const StreamShare share = whole_device ? StreamShare{.sms = sms} : stream_share(how.stream, device, sms);
    std::uint64_t resident = 0;
    status = fits.resident_ctas(kernel, device, share, sms, how, resident);
    if (status != cudaSuccess) {
      say(result, status,
          "linpipe::launch: no %s of %u threads with %zu bytes of shared memory fits on the "
          "%d SMs this stream may use (registers, shared memory or cluster placement): use fewer "
          "threads, stages or registers%s",
          cluster > 1 ? "cluster of CTAs" : "CTA", how.threads, how.shared_bytes, share.sms,
          cluster > 1 ? ", or a smaller cluster" : "");
      return result;
    }
    if (how.ctas_per_sm != 0) {
      const std::uint64_t cap = static_cast<std::uint64_t>(share.sms) * how.ctas_per_sm / cluster * cluster;
      if (cap < resident) resident = cap;
    }
    if (how.max_ctas != 0) {
      const std::uint64_t cap = how.max_ctas >= cluster ? how.max_ctas / cluster * cluster : cluster;
      if (cap < resident) resident = cap;
    }
    if (resident < ctas) ctas = resident;
  }
  if (ctas == 0 || ctas > 0x7fffffffull) {
    say(result, cudaErrorInvalidConfiguration,
        "linpipe::launch: %llu CTAs for %llu work items: a grid holds 1..2^31-1 CTAs (use "
        "GridKind::persistent, or bigger tiles)",
        static_cast<unsigned long long>(ctas), static_cast<unsigned long long>(how.items));
    return result;
  }
  result.grid = static_cast<unsigned>(ctas);
  return result;
}

}  // namespace linpipe::detail

export namespace linpipe {

// The grid launch() would use for `kernel` (CTAs), or the reason it cannot launch; sets the
// kernel's shared-memory opt-in as a side effect.
template <class... Params>
LaunchResult launch_grid(void (*kernel)(Params...), const LaunchOptions& how) {
  return detail::grid_for(reinterpret_cast<const void*>(kernel), how);
}

// The same on every SM of the device, whatever share of them `how.stream` may use: the most
// CTAs any launch of `kernel` on this device can have, for memory each CTA indexes that
// launches from every share (an MPS client's, a green context's, the whole device) may use.
template <class... Params>
LaunchResult launch_grid_on_device(void (*kernel)(Params...), const LaunchOptions& how) {
  return detail::grid_for(reinterpret_cast<const void*>(kernel), how, true);
}

// Launches `kernel` with `args` (converted to its parameter types) as `how` says.
template <class... Params, class... Args>
LaunchResult launch(void (*kernel)(Params...), const LaunchOptions& how, Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args),
                "linpipe::launch(kernel, options, args...): pass exactly one argument per kernel "
                "parameter");
  const void* function = reinterpret_cast<const void*>(kernel);
  LaunchResult result = detail::grid_for(function, how);
  if (!result) return result;
  detail::LaunchReports::get().watch(function);

  cudaLaunchConfig_t config{};
  config.gridDim = dim3(result.grid, 1, 1);
  config.blockDim = dim3(how.threads, 1, 1);
  config.dynamicSmemBytes = how.shared_bytes;
  config.stream = how.stream;
  cudaLaunchAttribute attributes[2] = {};
  unsigned used = 0;
  if (how.cluster > 1) {
    cudaLaunchAttribute& cluster = attributes[used++];
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = how.cluster;
    cluster.val.clusterDim.y = 1;
    cluster.val.clusterDim.z = 1;
  }
  if (how.early_start) {
    cudaLaunchAttribute& early = attributes[used++];
    early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    early.val.programmaticStreamSerializationAllowed = 1;
  }
  config.attrs = used > 0 ? attributes : nullptr;
  config.numAttrs = used;
  std::tuple<Params...> values(static_cast<Args&&>(args)...);
  void* pointers[sizeof...(Params) + 1] = {};
  std::apply([&](auto&... value) {
    std::size_t i = 0;
    ((pointers[i++] = static_cast<void*>(&value)), ...);
  }, values);
  const cudaError_t status = cudaLaunchKernelExC(&config, function, pointers);
  if (status != cudaSuccess) {
    const unsigned grid = result.grid;
    detail::say(result, status,
                "linpipe::launch: the launch of %u CTAs of %u threads with %zu bytes of shared "
                "memory (cluster %u%s) failed",
                grid, how.threads, how.shared_bytes, how.cluster,
                how.early_start ? ", early start" : "");
  }
  return result;
}

// Waits for `stream`; on failure, `why` holds the kernel's debug report when one trapped
// (the pipeline, stage, lap, role, block, warp and lane, and the fix), else CUDA's error.
inline LaunchResult synchronize(cudaStream_t stream = nullptr) {
  LaunchResult result;
  const cudaError_t status = cudaStreamSynchronize(stream);
  if (status == cudaSuccess) return result;
  const std::string report = detail::LaunchReports::get().take();
  if (!report.empty()) {
    result.status = status;
    std::snprintf(result.why, sizeof(result.why), "%s", report.c_str());
  } else {
    detail::say(result, status, "linpipe: the kernel failed with no linpipe report (a fault "
                                "outside linpipe's checks, or a release build)");
  }
  return result;
}

}  // namespace linpipe
#endif  // __CUDA__
