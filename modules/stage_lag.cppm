// linpipe:stage_lag — StageLag: hold the last Depth stages of one role, release the oldest as
// a new one arrives, flush the rest at the end.
//
// The Hopper pattern it serves: a consumer may not free a slot until the asynchronous work that
// reads it has finished, which is known one (or Depth) iterations later (wgmma.wait_group<1>
// retires group k-1 after group k is issued; cp.async.bulk.wait_group.read<D-1> says the store
// D tiles back has read its slot). Every stage goes through a linear release inside the lag,
// so the checker follows each one: push() takes the stage (a transfer), and the lag itself is
// linear: flush() consumes it, and a lag left unflushed on some path is a finding.
//
// For -Wconsumed the lag starts 'unknown', not 'unconsumed': a lag lives across loops and is
// lent to helpers by reference, which make clang forget its state ('unknown'), and clang
// rejects any loop whose exit state differs from its entry state ("state of 'lag' must match at
// the entry and exit of loop"). Starting unknown keeps that correct code building (a loop left
// by `break` with a direct push still trips a clang bug: README, "What -Wconsumed gets wrong");
// the typestate layer still rejects a push or flush after flush(), and a missing flush() is
// the linpipe-linear-stage check's (and, in debug builds, the held stages' backstop's).
module;
#include "linpipe_macros.h"
export module linpipe:stage_lag;
import :stage;
import :release_policies;

export namespace linpipe {

// Holds up to Depth stages of one role, oldest first. Release is called with each stage as an
// rvalue (`void operator()(Stage&& stage)`, which must release it on every path) when it
// leaves: the oldest on a push past Depth, all of them on flush(). Depth is a compile-time
// constant so the held stages stay in registers on the GPU.
//
// Why not by value: clang's NVPTX target passes a class argument by value as a bitwise copy
// (`byval`), so a callee that releases its by-value stage leaves the caller's temporary live,
// and the debug backstop traps when that temporary dies. Pass stages by `&&` in device code.
template <class Stage, int Depth, class Release = ReleaseStage>
class [[nodiscard, clang::consumable(unknown), clang::annotate("linpipe::linear")]] StageLag {
  static_assert(Depth >= 1, "linpipe::StageLag<Stage, Depth>: Depth must be >= 1");
  static_assert(Depth < Stage::num_stages,
                "linpipe::StageLag<Stage, Depth>: a lag holds Depth stages while the next one is "
                "acquired, so the ring needs at least Depth + 1 stages: lower Depth or raise "
                "the pipeline's NumStages");

 public:
  [[clang::return_typestate(unknown), clang::annotate("linpipe::acquires")]] LINPIPE_HOST_DEVICE
  explicit StageLag(Release release = Release{})
      : release_(release) {}
  StageLag(const StageLag&) = delete;
  StageLag& operator=(const StageLag&) = delete;
  // Debug builds: a stage still held here when the lag dies trips that stage's own backstop.
  [[clang::callable_when("consumed", "unknown")]] LINPIPE_HOST_DEVICE ~StageLag() {}

  // Takes `stage`; if Depth stages were already held, the oldest is released first.
  // (An arrival on `stage` before the push is a second one where Release arrives: reported.)
  [[clang::callable_when("unconsumed", "unknown"),
    clang::annotate("linpipe::arrives_arg", release_arrives<Release>)]] LINPIPE_HOST_DEVICE void
  push(Stage&& stage) {
    if (held_[0].live()) release_(static_cast<Stage&&>(held_[0]));
#pragma unroll
    for (int i = 0; i + 1 < Depth; ++i) held_[i] = static_cast<Stage&&>(held_[i + 1]);
    held_[Depth - 1] = static_cast<Stage&&>(stage);
  }

  // Releases every held stage, oldest first; the lag is consumed.
  [[clang::callable_when("unconsumed", "unknown"), clang::set_typestate(consumed),
    clang::annotate("linpipe::consume")]] LINPIPE_HOST_DEVICE void flush() {
#pragma unroll
    for (int i = 0; i < Depth; ++i) {
      if (held_[i].live()) release_(static_cast<Stage&&>(held_[i]));
    }
  }

  // How many stages are held now (0..Depth).
  [[clang::callable_when("unconsumed", "unknown")]] LINPIPE_HOST_DEVICE int size() const {
    int n = 0;
#pragma unroll
    for (int i = 0; i < Depth; ++i) n += held_[i].live() ? 1 : 0;
    return n;
  }

 private:
  Stage held_[Depth];
  Release release_;
};

}  // namespace linpipe
