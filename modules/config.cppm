// linpipe:config — build-wide switches, fixed when the module interface is compiled.
module;
#include "linpipe_macros.h"
#include <cstdint>
export module linpipe:config;

export namespace linpipe {

// True when this flavour of the module was built with debug checks (the default without
// NDEBUG; force with -DLINPIPE_DEBUG_CHECKS=0/1 on the module and its importers alike).
inline constexpr bool debug_checks = LINPIPE_DEBUG_CHECKS != 0;

// How long a debug-build wait may spin before it traps with a report instead of hanging.
// On the GPU the budget is SM clock cycles (about 2 s at the H200's 1.98 GHz boost clock);
// on the host it is nanoseconds of steady_clock time.
inline constexpr std::uint64_t device_wait_budget_cycles = 4'000'000'000ull;
inline constexpr std::uint64_t host_wait_budget_ns = 10'000'000'000ull;

}  // namespace linpipe
