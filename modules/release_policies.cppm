// linpipe:release_policies — how a StageLag (or any code holding a stage) releases a consumer
// stage: plainly, lane-guarded across the CTAs of a cluster, or once per consumer. A policy is called with the
// stage as an rvalue and must consume it on every path; each one also states the empty
// barriers' arrive count it implies, so init_mbars' count is derived, not worked out by hand.
module;
#include "linpipe_macros.h"
#include <cstdint>
export module linpipe:release_policies;

export namespace linpipe {

// Whether a policy arrives on the barrier of the stage it releases (`static constexpr bool
// arrives`): the checker then reports an arrival made before the stage is handed to a lag or
// an epilogue that releases through it (two arrivals for one claim). A policy that does not
// say is assumed not to.
template <class Release>
inline constexpr bool release_arrives = [] {
  if constexpr (requires { Release::arrives; }) {
    return static_cast<bool>(Release::arrives);
  } else {
    return false;
  }
}();

// release(): every thread that holds the stage arrives on its empty barrier.
struct ReleaseStage {
  static constexpr bool arrives = true;
  // Empty-barrier arrivals per phase when every consumer thread of Roles releases each stage.
  template <class Roles>
  static constexpr std::uint32_t empty_arrivals() {
    return Roles::consumer_threads;
  }
  // Empty-barrier arrivals per phase when `releasing_threads` threads release each stage.
  static constexpr std::uint32_t empty_arrive_count(std::uint32_t releasing_threads) {
    return releasing_threads;
  }
  template <class Stage>
  [[clang::annotate("linpipe::arrives_arg", arrives)]] LINPIPE_HOST_DEVICE void operator()(
      Stage&& stage) const {
    stage.release();
  }
};

// The lane-guarded release of a warp whose 32 lanes each hold the stage, in a pipeline whose
// slots every CTA of a ClusterCtas-CTA cluster fills together (multicast loads): a slot may be
// refilled only once the consumers of every CTA are done with it, so lane r of a signalling
// warp arrives on the empty barrier of CTA r (ClusterCtas == 1: lane 0, locally), and every
// lane ends its claim. A non-signalling warp only ends its claim: use it when one warp's
// arrival speaks for others (wgmma.wait_group retires a group for its whole warpgroup).
//
// Scope (ClusterCtas > 1): how far the arrival's release reaches. `cluster` (the default)
// orders every earlier access of the lane for the whole cluster, so it is right whatever read
// the slot, but its fence stalled the 2-CTA GEMM's warps (each with a wgmma group in flight)
// for 69% of their cycles (ncu, "memory barrier"). `cta` releases at CTA scope, with no such
// fence: for slots whose every read completed before the release (wgmma operands retired by
// wgmma.wait_group; loads whose values were used), where no earlier access of this lane can
// still see a later refill. CUTLASS's consumer_release arrives that way.
enum class ReleaseScope { cluster, cta };

template <std::uint32_t ClusterCtas = 1, ReleaseScope Scope = ReleaseScope::cluster>
struct ReleaseToCluster {
  static_assert(ClusterCtas >= 1 && ClusterCtas <= 16,
                "linpipe::ReleaseToCluster<ClusterCtas>: a cluster holds 1..16 CTAs");

  std::uint32_t lane;           // this thread's lane, threadIdx.x % 32
  bool signalling_warp = true;  // whether this warp's lanes arrive
  static constexpr bool arrives = true;  // lane-guarded: one lane of a signalling warp

  // Empty-barrier arrivals per phase, in every CTA, when `signalling_warps_per_cta` warps of
  // each CTA release through this policy: each arrives once on every CTA's barrier.
  static constexpr std::uint32_t empty_arrive_count(std::uint32_t signalling_warps_per_cta) {
    return signalling_warps_per_cta * ClusterCtas;
  }
  // The same when every consumer warp of Roles signals.
  template <class Roles>
  static constexpr std::uint32_t empty_arrivals() {
    return empty_arrive_count(Roles::consumer_warps);
  }

  template <class Stage>
  [[clang::annotate("linpipe::arrives_arg", arrives)]] LINPIPE_HOST_DEVICE void operator()(
      Stage&& stage) const {
    if (signalling_warp) {
      if constexpr (ClusterCtas == 1) {
        if (lane == 0) stage.arrive();
      } else {
        if (lane < ClusterCtas) {
          if constexpr (Scope == ReleaseScope::cta) {
            stage.mbar().arrive_cluster_release_cta(lane);
          } else {
            stage.mbar().arrive_cluster(lane);
          }
        }
      }
    }
    stage.release_without_signal();
  }
};

// One arrival per consumer (a warp, or the warps of WarpRoles<P, C, WarpsPerConsumer>): the
// consumer's first thread arrives for all of its threads, and every thread ends its claim. The
// one arrival speaks for the others only once they are done with the slot, so call it after
// WarpRoles::sync_consumer() has followed their last read of it.
struct ReleaseByConsumer {
  bool leader;  // whether this thread arrives: WarpRoles::thread_in_consumer() == 0
  static constexpr bool arrives = true;

  // Empty-barrier arrivals per phase when `consumers` consumers release each stage.
  static constexpr std::uint32_t empty_arrive_count(std::uint32_t consumers) { return consumers; }
  // The same for every consumer of Roles.
  template <class Roles>
  static constexpr std::uint32_t empty_arrivals() {
    return Roles::consumers;
  }

  template <class Stage>
  [[clang::annotate("linpipe::arrives_arg", arrives)]] LINPIPE_HOST_DEVICE void operator()(
      Stage&& stage) const {
    if (leader) stage.arrive();
    stage.release_without_signal();
  }
};

// init_mbars' two counts derived from the kernel's roles and the policy its consumers release
// through: full barriers expect ProducerArrivals arrivals per phase (1: one producer lane's
// arrive_expect_tx, the copy engine completing the bytes), empty barriers what Release makes
// every consumer of Roles arrive. `pipe.init_mbars(linpipe::Arrivals<Roles, ReleaseToCluster<1>>{})`.
template <class Roles, class Release, std::uint32_t ProducerArrivals = 1>
struct Arrivals {
  static_assert(ProducerArrivals >= 1,
                "linpipe::Arrivals<Roles, Release, ProducerArrivals>: at least one producer arrival");
  static constexpr std::uint32_t full = ProducerArrivals;
  static constexpr std::uint32_t empty = Release::template empty_arrivals<Roles>();
};

}  // namespace linpipe
