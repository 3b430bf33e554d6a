// The GPU's state a benchmark prints beside its figures (SM clock, power draw, temperature), so
// a reader can tell a faster anchor from a warmer card. Read through NVML, loaded at run time
// (libnvidia-ml.so.1 comes with the driver), so the benchmarks build and start on a machine
// without one.
#pragma once

#include <string>

namespace linpipe::bench {

struct GpuState {
  bool known = false;
  unsigned sm_mhz = 0;
  double watts = 0.0;
  unsigned celsius = 0;
};

// The state of CUDA device `device` now; known = false (and nothing else) where NVML cannot
// be loaded or does not answer.
GpuState read_gpu_state(int device = 0);

// "1980 MHz 512 W 45 C", or "-" when not known.
std::string describe(const GpuState& state);

}  // namespace linpipe::bench
