// linpipe:mbar_ordered_turns — MbarOrderedTurns: OrderedTurns on mbarriers in shared memory
// instead of named barriers (CUTLASS's OrderedSequenceBarrier is built this way).
//
// Party p's turn k waits for phase k of its barrier, which party p - 1 completes by passing its
// turn k (party 0 waits on the last party's turn k - 1). Against the named-barrier OrderedTurns:
//   - no barrier ids to keep apart from the kernel's other named barriers, and no open();
//   - a pass nobody waits for is harmless, so every turn passes, the last one included;
//   - the waits are phase-parity waits, so debug builds bound them and report a hung turn
//     (a party that stopped early, a miscounted party) instead of hanging the GPU, and count
//     the passes so that more threads passing than the barrier expects are reported at once.
// A barrier counts one arrival from every thread of the passing party (ThreadsPerParty): each
// thread's writes before its pass() are visible to the next party after its wait().
//
//   using Turns = linpipe::MbarOrderedTurns<2, 128>;
//   struct Shared { ...; Turns::Barriers turns; };          // in the kernel's SharedPlan
//   if (threadIdx.x == 0) Turns::init(shared.turns);
//   __syncthreads();
//   Turns turns(shared.turns, roles.consumer(), "mma");
//   for (...) { turns.wait(); /* issue the MMAs */ turns.pass(); }
module;
#include "linpipe_macros.h"
#include <cstdint>
#include <type_traits>
export module linpipe:mbar_ordered_turns;
#if defined(__CUDA__)
import :config;
import :clock;
import :diagnostics;
import :nvidia_mbar_backend;
import :ptx_mbarrier;

export namespace linpipe {

template <std::uint32_t Parties, std::uint32_t ThreadsPerParty>
class MbarOrderedTurns {
  static_assert(Parties >= 2,
                "linpipe::MbarOrderedTurns<Parties, ...>: turns need at least two parties");
  static_assert(ThreadsPerParty >= 1 && ThreadsPerParty < (1u << 20),
                "linpipe::MbarOrderedTurns<Parties, ThreadsPerParty>: ThreadsPerParty is the "
                "number of threads of each party that pass (1..2^20 - 1, an mbarrier's count)");

  // Debug builds: a word init() sets (so waits can tell barriers it never set up) and, per
  // barrier, the passes made into it so far.
  static constexpr std::uint32_t debug_words = debug_checks ? 1 + Parties : 0;

 public:
  // Arrivals each barrier expects per phase: every thread of the party before.
  static constexpr std::uint32_t arrivals_per_turn = ThreadsPerParty;

  // The shared memory the turns use: declare a member of this type in the kernel's shared
  // layout (a SharedPlan) or as a `__shared__` variable.
  struct Barriers {
    alignas(8) std::uint64_t words[Parties + debug_words];
  };

  // One thread, once per launch, before a block barrier and any wait() or pass().
  LINPIPE_DEVICE static void init(Barriers& barriers) {
    for (std::uint32_t p = 0; p < Parties; ++p) {
      ptx::mbarrier_init(&barriers.words[p], ThreadsPerParty);
    }
    if constexpr (debug_checks) {
      for (std::uint32_t p = 0; p < Parties; ++p) barriers.words[Parties + 1 + p] = 0;
      barriers.words[Parties] = init_token(barriers);
    }
    ptx::fence_mbarrier_init();
  }

  // `party`: this thread's party, 0..Parties-1 (e.g. WarpRoles::consumer()); `name` appears in
  // debug reports.
  LINPIPE_DEVICE MbarOrderedTurns(Barriers& barriers, std::uint32_t party,
                                  const char* name = "linpipe")
      : barriers_(&barriers), party_(party), name_(name) {}

  // Any storage but Barriers (a hand-sized `uint64_t[Parties]` misses the debug words).
  template <class Storage>
  LINPIPE_DEVICE MbarOrderedTurns(Storage&, std::uint32_t, const char* = "linpipe") {
    static_assert(std::is_same_v<Storage, Barriers>,
                  "linpipe::MbarOrderedTurns: declare the turns' storage as "
                  "MbarOrderedTurns<Parties, ThreadsPerParty>::Barriers (one mbarrier per party, "
                  "plus the words debug builds use), not as an array sized by hand");
  }

  // Blocks until it is this party's turn: the party before it has passed its turn (party 0's
  // first turn is open at once).
  LINPIPE_DEVICE void wait() {
    std::uint64_t* bar = &barriers_->words[party_];
    // Phase `turn_` of barrier `party_` completes this turn; party 0's turn k follows the last
    // party's turn k - 1, and a fresh barrier counts as having completed the phase before 0.
    const std::uint32_t parity = (party_ == 0 ? turn_ + 1 : turn_) & 1u;
    if constexpr (debug_checks) {
      if (barriers_->words[Parties] != init_token(*barriers_)) {
        report(ReportKind::turns_uninitialised);
      }
      if (!detail::wait_parity<true>(bar, parity, detail::debug_wait_budget())) {
        report(ReportKind::turn_hung);
      }
      holding_ = true;
    } else {
      (void)detail::wait_parity<false>(bar, parity, 0);
    }
  }

  // Hands the turn to the next party, without waiting. Every thread of the party calls it once
  // per turn, after wait() and the work the next party must see.
  LINPIPE_DEVICE void pass() {
    const std::uint32_t next = party_ + 1 == Parties ? 0 : party_ + 1;
    if constexpr (debug_checks) {
      if (!holding_) report(ReportKind::turn_not_held);
      holding_ = false;
      // Passes into `next` up to this turn's: (turn_ + 1) x ThreadsPerParty at most.
      auto* counter = (long long*)&barriers_->words[Parties + 1 + next];
      const auto total = static_cast<std::uint64_t>(__nvvm_atom_add_gen_ll(counter, 1)) + 1;
      if (total > (std::uint64_t{turn_} + 1) * ThreadsPerParty) report(ReportKind::turn_extra_pass);
    }
    (void)ptx::mbarrier_arrive(&barriers_->words[next]);
    ++turn_;
  }

 private:
  LINPIPE_DEVICE static std::uint64_t init_token(const Barriers& barriers) {
    return detail::barrier_init_token(ptx::shared_address(&barriers.words[0]));
  }
  [[noreturn]] LINPIPE_DEVICE void report(ReportKind kind) const {
    StageLocation at{name_, barriers_, party_, turn_, Role::consumer};
    at.expected_arrivals = ThreadsPerParty;
    detail::report(kind, at);
  }

  Barriers* barriers_;
  std::uint32_t party_;
  std::uint32_t turn_ = 0;
  const char* name_;
  bool holding_ = false;  // debug builds: between wait() and pass()
};

}  // namespace linpipe
#endif  // __CUDA__
