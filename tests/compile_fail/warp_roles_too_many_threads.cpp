// A block of more than 1024 threads cannot launch: the roles' shape is refused at compile time.
// EXPECT: more than 1024 threads in one block: use fewer or smaller consumers
import linpipe;

#ifdef LINPIPE_FIXED
using Roles = linpipe::WarpRoles<4, 7, 4>;  // 32 warps
#else
using Roles = linpipe::WarpRoles<4, 8, 4>;  // 36 warps
#endif
static_assert(Roles::threads > 0);
