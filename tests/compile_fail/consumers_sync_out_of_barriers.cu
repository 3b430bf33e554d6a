// WarpRoles::sync_consumers takes one named barrier for all the block's consumer threads: ids
// past 15 do not exist (and 0 is __syncthreads', which the producers would have to join).
// EXPECT: the named barrier must lie in 1..15
import linpipe;

using Roles = linpipe::WarpRoles<1, 4>;  // 4 consumer warps

#ifdef LINPIPE_FIXED
constexpr unsigned barrier = 15;
#else
constexpr unsigned barrier = 16;
#endif

__global__ void kernel() {
  const auto me = Roles::this_thread();
  if (me.is_consumer()) me.sync_consumers<barrier>();
}
