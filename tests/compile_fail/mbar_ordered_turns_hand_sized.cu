// MbarOrderedTurns' storage declared by hand (one word per party) misses the words debug
// builds keep beside the barriers: it must fail to compile with the type to declare instead.
// EXPECT: declare the turns' storage as MbarOrderedTurns<Parties, ThreadsPerParty>::Barriers
#include <cstdint>
import linpipe;

using Turns = linpipe::MbarOrderedTurns<2, 128>;

__global__ void kernel() {
#ifdef LINPIPE_FIXED
  __shared__ Turns::Barriers barriers;
#else
  __shared__ std::uint64_t barriers[2];
#endif
  Turns order(barriers, threadIdx.x / 128);
  order.wait();
  order.pass();
}
