// linpipe:scope — Mojo's context managers: produce(), consume(), consume_explicit().
// One template, parameterised by what its destructor does, so the release is correct by
// construction: the scope cannot be copied, moved or left without releasing. Like a stage, a
// scope owns its slot: creating it advanced the role's cursor, ending it acts on its own slot.
module;
#include "linpipe_macros.h"
#include <cstdint>
export module linpipe:scope;
import :barrier_roles;
import :trace;

export namespace linpipe {

// What a scope's destructor does to end the stage.
enum class ScopeRelease : std::uint8_t {
  produce,           // produce(): end the claim; the signal comes from expect-tx/TMA/arrive()
  consume,           // consume(): arrive on the slot's empty barrier, then end the claim
  consume_explicit,  // consume_explicit(): end the claim; the scope's arrive() signals
};

template <class Pipeline, ScopeRelease Release>
class [[nodiscard]] StageScope {
  static constexpr bool is_producer = Release == ScopeRelease::produce;
  static constexpr Role role = is_producer ? Role::producer : Role::consumer;

 public:
  using Handle = typename Pipeline::Handle;

  StageScope(const StageScope&) = delete;
  StageScope& operator=(const StageScope&) = delete;
  StageScope(StageScope&&) = delete;
  StageScope& operator=(StageScope&&) = delete;
  LINPIPE_HOST_DEVICE ~StageScope() {
    if constexpr (Release == ScopeRelease::consume) {
      pipeline_.count_empty_arrival(index_, lap_);
      pipeline_.backend().arrive_empty(index_);
    }
    pipeline_.end_claim(role, index_);
    pipeline_.trace(TraceEvent::release, role, index_, lap_);
  }

  // The ring slot this scope holds.
  LINPIPE_HOST_DEVICE std::uint32_t index() const { return index_; }
  // The full barrier (produce()) or the empty barrier (consume scopes) of this slot.
  [[clang::annotate("linpipe::signals")]] LINPIPE_HOST_DEVICE auto mbar() const {
    if constexpr (is_producer) {
      return pipeline_.producer_mbar(index_);
    } else {
      return pipeline_.consumer_mbar(index_);
    }
  }
  // Arrives on mbar(). Not offered by consume(), whose destructor already arrives: a second
  // arrival would complete the empty barrier's phase early.
  [[clang::annotate("linpipe::signals"), clang::annotate("linpipe::arrives")]] LINPIPE_HOST_DEVICE
  void arrive() const {
    static_assert(Release != ScopeRelease::consume,
                  "linpipe: a consume() scope arrives on the empty barrier when it ends; to "
                  "arrive yourself (lane-guarded or remote), use consume_explicit()");
    if constexpr (!is_producer) pipeline_.count_empty_arrival(index_, lap_);
    mbar().arrive();
    pipeline_.trace(TraceEvent::arrive, role, index_, lap_);
  }

 private:
  friend Pipeline;
  LINPIPE_HOST_DEVICE StageScope(Pipeline& pipeline, std::uint32_t index, std::uint32_t lap)
      : pipeline_(pipeline), index_(index), lap_(lap) {}

  Pipeline& pipeline_;
  std::uint32_t index_;
  std::uint32_t lap_;
};

}  // namespace linpipe
