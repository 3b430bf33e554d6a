// Turns need at least two parties: one party taking turns with itself is a misconfiguration.
// EXPECT: linpipe::MbarOrderedTurns<Parties, ...>: turns need at least two parties
import linpipe;

#ifdef LINPIPE_FIXED
using Turns = linpipe::MbarOrderedTurns<2, 128>;
#else
using Turns = linpipe::MbarOrderedTurns<1, 128>;
#endif

__global__ void kernel() {
  __shared__ Turns::Barriers barriers;
  Turns order(barriers, 0);
  order.wait();
}
