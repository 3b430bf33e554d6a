// Register budgets that together exceed the SM's 64K registers for the block must fail to
// compile, not fail the launch.
// EXPECT: the budgets exceed the SM's 64K registers for this block
import linpipe;

using Roles = linpipe::WarpRoles<4, 2, 4>;  // 128 producer + 256 consumer threads
#ifdef LINPIPE_FIXED
constexpr unsigned consumer_registers = 232;  // 128 x 40 + 256 x 232 = 64512
#else
constexpr unsigned consumer_registers = 248;  // 128 x 40 + 256 x 248 = 68608
#endif

__global__ void __launch_bounds__(Roles::threads, 1) kernel() {
  Roles::this_thread().run_with_register_budget<40, consumer_registers>([] {}, [] {});
}
