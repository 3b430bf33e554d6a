// linpipe:device_reports — the host side of the GPU backstop's report. A debug-build trap kills
// the CUDA context, so the report cannot be read back from device memory afterwards; the
// device writes it into zero-copy pinned host memory instead, which outlives the context.
//
//   linpipe::DeviceReports reports;          // one record, for any number of kernels
//   reports.watch(my_kernel);                // once per kernel's translation unit
//   my_kernel<<<grid, block>>>(...);
//   if (cudaDeviceSynchronize() != cudaSuccess) reports.print();   // "linpipe: wait exceeded..."
module;
#include "linpipe_macros.h"
#if defined(__CUDA__)
#include <cuda.h>
#include <cudaTypedefs.h>
#endif
#include <cstdint>
#include <cstdio>
#include <string>
#if defined(__CUDA__)
// After the standard headers: linpipe_cuda_attributes.h says why.
#include <cuda_runtime_api.h>
#endif
export module linpipe:device_reports;
import :diagnostics;
import :driver_api;

#if defined(__CUDA__)
export namespace linpipe {

class DeviceReports {
 public:
  // Allocates the record (mapped, pinned host memory); status() says whether that worked.
  inline DeviceReports() {
    status_ = cudaHostAlloc(reinterpret_cast<void**>(&record_), sizeof(DeviceReportRecord),
                            cudaHostAllocMapped);
    if (status_ == cudaSuccess) clear();
  }
  inline ~DeviceReports() {
    if (record_ != nullptr) (void)cudaFreeHost(record_);  // fails harmlessly after a trap
  }
  DeviceReports(const DeviceReports&) = delete;
  DeviceReports& operator=(const DeviceReports&) = delete;

  inline cudaError_t status() const { return status_; }

  // Points the device module that holds `kernel` (a __global__ function) at this record, so
  // its debug backstops report here. cudaErrorSymbolNotFound: the kernel's translation unit
  // was built without debug checks and has nothing to report. Watch again after a context
  // reset; a kernel's module keeps the last record it was pointed at.
  template <class... Args>
  cudaError_t watch(void (*kernel)(Args...)) {
    return watch_symbol(reinterpret_cast<const void*>(kernel));
  }

  // Whether a device has completed a report since construction or clear().
  inline bool has_report() const {
    return record_ != nullptr && static_cast<volatile DeviceReportRecord*>(record_)->complete != 0;
  }

  // The report as the host backstop would print it; empty if there is none.
  inline std::string text() const {
    if (!has_report()) return {};
    const DeviceReportRecord& r = *record_;
    const auto role = static_cast<Role>(r.role);
    const auto kind = static_cast<ReportKind>(r.kind);
    const detail::ReportText words = detail::report_text(kind, role);
    const detail::LocationText where(kind, r.pipeline, static_cast<unsigned long long>(r.barriers),
                                     r.stage, r.lap, role);
    char line[1024];
    std::snprintf(line, sizeof(line), "linpipe: %s: %s, block (%u,%u,%u) warp %u lane %u: %s%s\n",
                  words.what, where.text, r.block[0], r.block[1], r.block[2], r.warp, r.lane,
                  words.fix,
                  detail::ExpectedArrivalsText(kind, r.expected_arrivals,
                                               static_cast<BarrierSide>(r.expected_side))
                      .text);
    return line;
  }

  // Prints text() (or, after a failed launch with no report, why there is none); true if a
  // report was printed.
  inline bool print(std::FILE* to = stderr) const {
    if (has_report()) {
      std::fputs(text().c_str(), to);
    } else {
      std::fputs("linpipe: no device report (the kernel did not hit a linpipe backstop, or its "
                 "translation unit was not watched: call DeviceReports::watch(kernel) before "
                 "launching)\n",
                 to);
    }
    std::fflush(to);
    return has_report();
  }

  // Forgets the last report, so the record can take the next one.
  inline void clear() {
    if (record_ == nullptr) return;
    *record_ = DeviceReportRecord{};
  }

 private:
  inline cudaError_t watch_symbol(const void* kernel) {
    if (status_ != cudaSuccess) return status_;
    cudaFunction_t function = nullptr;
    cudaError_t status = cudaGetFuncBySymbol(&function, kernel);  // loads a lazy module
    if (status != cudaSuccess) return status;
    static const auto get_module =
        driver::entry_point<PFN_cuFuncGetModule_v11000>("cuFuncGetModule", 11000, &status);
    static const auto get_global =
        driver::entry_point<PFN_cuModuleGetGlobal_v3020>("cuModuleGetGlobal", 3020, &status);
    if (get_module == nullptr || get_global == nullptr) return cudaErrorNotSupported;
    CUmodule module = nullptr;
    if (get_module(&module, reinterpret_cast<CUfunction>(function)) != CUDA_SUCCESS)
      return cudaErrorInvalidDeviceFunction;
    CUdeviceptr sink = 0;
    std::size_t bytes = 0;
    if (get_global(&sink, &bytes, module, "linpipe_device_report_sink") != CUDA_SUCCESS ||
        bytes != sizeof(DeviceReportRecord*))
      return cudaErrorSymbolNotFound;
    DeviceReportRecord* device_record = nullptr;
    status = cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_record), record_, 0);
    if (status != cudaSuccess) return status;
    return cudaMemcpy(reinterpret_cast<void*>(sink), &device_record, sizeof(device_record),
                      cudaMemcpyHostToDevice);
  }

  DeviceReportRecord* record_ = nullptr;
  cudaError_t status_ = cudaSuccess;
};

}  // namespace linpipe
#endif  // __CUDA__
