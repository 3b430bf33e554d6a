// WarpRoles::sync_consumer takes one named barrier per multi-warp consumer: ids past 15 do not
// exist.
// EXPECT: named barriers FirstBarrier..FirstBarrier + Consumers - 1 must lie in 1..15
import linpipe;

using Roles = linpipe::WarpRoles<1, 4, 2>;  // 4 consumers of 2 warps

#ifdef LINPIPE_FIXED
constexpr unsigned first_barrier = 12;  // barriers 12..15
#else
constexpr unsigned first_barrier = 13;  // 13..16
#endif

__global__ void kernel() {
  const auto me = Roles::this_thread();
  if (me.is_consumer()) me.sync_consumer<first_barrier>();
}
