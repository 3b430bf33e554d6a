// OrderedTurns takes one named barrier per party: ids past 15 do not exist.
// EXPECT: named barriers FirstBarrier..FirstBarrier + Parties - 1 must lie in 1..15
import linpipe;

#ifdef LINPIPE_FIXED
using Turns = linpipe::OrderedTurns<3, 128, 13>;  // barriers 13, 14, 15
#else
using Turns = linpipe::OrderedTurns<3, 128, 14>;  // 14, 15, 16
#endif

__global__ void kernel() { Turns(threadIdx.x / 128).wait(); }
