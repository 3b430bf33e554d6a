// linpipe:config — build-wide switches, fixed when the module interface is compiled.
module;
#include "linpipe_macros.h"
#include <atomic>
#include <cstdint>
export module linpipe:config;

export namespace linpipe {

// True when this flavour of the module was built with debug checks (the default without
// NDEBUG; force with -DLINPIPE_DEBUG_CHECKS=0/1 on the module and its importers alike).
inline constexpr bool debug_checks = LINPIPE_DEBUG_CHECKS != 0;

// How long a debug-build wait may poll before it traps with a report instead of hanging.
// GPU: SM clock cycles (about 2 s at the H200's 1.98 GHz), fixed when the module is built
// (-DLINPIPE_DEVICE_WAIT_BUDGET_CYCLES=...); host: nanoseconds, adjustable at run time.
#if defined(LINPIPE_DEVICE_WAIT_BUDGET_CYCLES)
inline constexpr std::uint64_t device_wait_budget_cycles = LINPIPE_DEVICE_WAIT_BUDGET_CYCLES;
#else
inline constexpr std::uint64_t device_wait_budget_cycles = 4'000'000'000ull;
#endif
inline std::atomic<std::uint64_t> host_wait_budget_ns{10'000'000'000ull};

}  // namespace linpipe
