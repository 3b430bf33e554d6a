// setmaxnreg acts on whole warpgroups: a register budget for roles that share a warpgroup
// (one producer warp beside consumer warps) must fail to compile with the shape to use.
// EXPECT: setmaxnreg acts on whole warpgroups, so each role must be a multiple of 4 warps
import linpipe;

#ifdef LINPIPE_FIXED
using Roles = linpipe::WarpRoles<4, 2, 4>;
#else
using Roles = linpipe::WarpRoles<1, 4>;
#endif

__global__ void __launch_bounds__(Roles::threads, 1) kernel() {
  Roles::this_thread().run_with_register_budget<40, 232>([] {}, [] {});
}
