// linpipe:ordered_turns — OrderedTurns: groups of warps taking turns in a fixed cycle
// (0, 1, ..., Parties-1, 0, ...), such as two consumer warpgroups alternating on the tensor
// cores (ping-pong) or on a shared epilogue (CUTLASS's OrderedSequenceBarrier).
//
// One named barrier per party: party p waits on barrier FirstBarrier + p until the party
// before it passes the turn, so each barrier counts the waiting party's threads and the
// passing party's (2 x ThreadsPerParty, derived here). The last party opens the first turn
// (open(), once, before anyone waits). Every wait() must be matched by one pass() of the party
// before: a party that passes after its last turn leaves an arrival no one waits for, so the
// last party skips its final pass (pass_unless_last(is_last_turn) says so in one call).
module;
#include "linpipe_macros.h"
#include <cstdint>
export module linpipe:ordered_turns;
#if defined(__CUDA__)
import :ptx_sync;

export namespace linpipe {

template <std::uint32_t Parties, std::uint32_t ThreadsPerParty, std::uint32_t FirstBarrier = 1>
class OrderedTurns {
  static_assert(Parties >= 2, "linpipe::OrderedTurns<Parties, ...>: turns need at least two parties");
  static_assert(ThreadsPerParty >= 32 && ThreadsPerParty % 32 == 0,
                "linpipe::OrderedTurns<Parties, ThreadsPerParty, ...>: a party is whole warps "
                "(ThreadsPerParty a multiple of 32; 128 for a warpgroup)");
  static_assert(FirstBarrier >= 1 && FirstBarrier + Parties - 1 <= ptx::max_named_barrier,
                "linpipe::OrderedTurns<Parties, ThreadsPerParty, FirstBarrier>: named barriers "
                "FirstBarrier..FirstBarrier + Parties - 1 must lie in 1..15 (0 is __syncthreads'): "
                "lower FirstBarrier or use fewer parties");

 public:
  // Threads each of the barriers counts: the waiting party and the passing one.
  static constexpr std::uint32_t barrier_threads = 2 * ThreadsPerParty;
  // The named barriers used, [first_barrier, end_barrier): leave them to this object.
  static constexpr std::uint32_t first_barrier = FirstBarrier;
  static constexpr std::uint32_t end_barrier = FirstBarrier + Parties;

  // `party`: this thread's party, 0..Parties-1 (e.g. WarpRoles::consumer()).
  LINPIPE_DEVICE explicit OrderedTurns(std::uint32_t party) : party_(party) {}

  // The last party gives party 0 its first turn. Call once, from every thread of the last
  // party, before any wait().
  LINPIPE_DEVICE void open() const {
    if (party_ == Parties - 1) ptx::barrier_arrive(FirstBarrier, barrier_threads);
  }
  // Blocks until it is this party's turn (the party before it has passed).
  LINPIPE_DEVICE void wait() const { ptx::barrier_sync(FirstBarrier + party_, barrier_threads); }
  // Hands the turn to the next party, without waiting.
  LINPIPE_DEVICE void pass() const {
    ptx::barrier_arrive(FirstBarrier + (party_ + 1) % Parties, barrier_threads);
  }
  // pass(), except after the last party's last turn, whose pass no one would wait for.
  LINPIPE_DEVICE void pass_unless_last(bool last_turn) const {
    if (!(last_turn && party_ == Parties - 1)) pass();
  }

 private:
  std::uint32_t party_;
};

}  // namespace linpipe
#endif  // __CUDA__
