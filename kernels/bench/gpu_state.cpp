// NVML through dlopen (see gpu_state.h). The few entry points used, declared here as NVML's C
// API defines them: an int status (0 = NVML_SUCCESS), an opaque device handle, and the enum
// values NVML_CLOCK_SM = 1 and NVML_TEMPERATURE_GPU = 0.
#include "gpu_state.h"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cstdio>

namespace linpipe::bench {
namespace {

using Device = struct NvmlDevice*;
using InitFn = int (*)();
using ByPciFn = int (*)(const char*, Device*);
using ClockFn = int (*)(Device, int, unsigned*);
using PowerFn = int (*)(Device, unsigned*);  // milliwatts
using TemperatureFn = int (*)(Device, int, unsigned*);
constexpr int nvml_clock_sm = 1;
constexpr int nvml_temperature_gpu = 0;

struct Nvml {
  ByPciFn by_pci = nullptr;
  ClockFn clock = nullptr;
  PowerFn power = nullptr;
  TemperatureFn temperature = nullptr;
  bool ready = false;

  Nvml() {
    void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) return;
    const auto init = reinterpret_cast<InitFn>(dlsym(library, "nvmlInit_v2"));
    by_pci = reinterpret_cast<ByPciFn>(dlsym(library, "nvmlDeviceGetHandleByPciBusId_v2"));
    clock = reinterpret_cast<ClockFn>(dlsym(library, "nvmlDeviceGetClockInfo"));
    power = reinterpret_cast<PowerFn>(dlsym(library, "nvmlDeviceGetPowerUsage"));
    temperature = reinterpret_cast<TemperatureFn>(dlsym(library, "nvmlDeviceGetTemperature"));
    ready = init != nullptr && by_pci != nullptr && clock != nullptr && power != nullptr &&
            temperature != nullptr && init() == 0;
  }
};

}  // namespace

GpuState read_gpu_state(int device) {
  static const Nvml nvml;  // loaded and initialised once; never shut down (the process ends)
  GpuState state;
  char bus_id[32];
  Device handle = nullptr;
  if (!nvml.ready || cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device) != cudaSuccess ||
      nvml.by_pci(bus_id, &handle) != 0)
    return state;
  unsigned milliwatts = 0;
  state.known = nvml.clock(handle, nvml_clock_sm, &state.sm_mhz) == 0 &&
                nvml.power(handle, &milliwatts) == 0 &&
                nvml.temperature(handle, nvml_temperature_gpu, &state.celsius) == 0;
  state.watts = milliwatts / 1000.0;
  return state;
}

std::string describe(const GpuState& state) {
  if (!state.known) return "-";
  char text[48];
  std::snprintf(text, sizeof text, "%u MHz %.0f W %u C", state.sm_mhz, state.watts, state.celsius);
  return text;
}

}  // namespace linpipe::bench
