// linpipe:barrier_roles — the protocol's vocabulary: the two roles, and a slot's two barriers
// as the roles see them, so only the operations that make sense on each exist. The full
// barrier is the producer's: it takes expect-tx bytes, the copy engine's completion and
// arrivals. The empty barrier is the consumers': they only arrive on it (here, or on a peer
// CTA's copy), and a transaction count there would stall the producer forever, so those calls
// fail to compile with the fix.
module;
#include "linpipe_macros.h"
#include <cstdint>
export module linpipe:barrier_roles;

namespace linpipe::detail {
template <class... T>
inline constexpr bool never = false;
}  // namespace linpipe::detail

export namespace linpipe {

// The two roles of a pipeline: the producer fills slots, the consumers read and release them.
enum class Role : std::uint8_t { producer, consumer };

// A slot's two barriers: full (the producer signals it) and empty (the consumers do).
enum class BarrierSide : std::uint8_t { full, empty };

}  // namespace linpipe

namespace linpipe::detail {

LINPIPE_HOST_DEVICE constexpr const char* role_name(Role role) {
  return role == Role::producer ? "producer" : "consumer";
}

}  // namespace linpipe::detail

export namespace linpipe {

// A slot's full barrier (ProducerStage::mbar(), Pipeline::producer_mbar()): everything the
// backend's handle offers (arrive, arrive_expect_tx, expect_tx, complete_tx, address, ...).
template <class Handle>
class FullBarrier : public Handle {
 public:
  LINPIPE_HOST_DEVICE explicit FullBarrier(const Handle& handle) : Handle(handle) {}
};

// A slot's empty barrier (ConsumerStage::mbar(), Pipeline::consumer_mbar()): arrivals only.
template <class Handle>
class EmptyBarrier {
 public:
  LINPIPE_HOST_DEVICE explicit EmptyBarrier(const Handle& handle) : handle_(handle) {}

  // Arrives once: one of the arrivals init_mbars' consumer count expects per phase.
  LINPIPE_HOST_DEVICE void arrive() const { handle_.arrive(); }
  // Arrives once on the same barrier in CTA cta_rank of the cluster (multicast pipelines).
  LINPIPE_HOST_DEVICE void arrive_cluster(std::uint32_t cta_rank) const
    requires requires(const Handle& h) { h.arrive_cluster(cta_rank); }
  {
    handle_.arrive_cluster(cta_rank);
  }
  // The same, released at CTA scope: for slots whose reads completed before the release.
  LINPIPE_HOST_DEVICE void arrive_cluster_release_cta(std::uint32_t cta_rank) const
    requires requires(const Handle& h) { h.arrive_cluster_release_cta(cta_rank); }
  {
    handle_.arrive_cluster_release_cta(cta_rank);
  }
  // The barrier's address, for instructions that name a barrier themselves.
  LINPIPE_HOST_DEVICE auto address() const { return handle_.address(); }

  // Transaction counts belong to the full barrier: rejected here with the fix.
  template <class... Args>
  LINPIPE_HOST_DEVICE void arrive_expect_tx(Args&&...) const {
    reject_transaction_count<Args...>();
  }
  template <class... Args>
  LINPIPE_HOST_DEVICE void expect_tx(Args&&...) const {
    reject_transaction_count<Args...>();
  }
  template <class... Args>
  LINPIPE_HOST_DEVICE void complete_tx(Args&&...) const {
    reject_transaction_count<Args...>();
  }

 private:
  template <class... Args>
  LINPIPE_HOST_DEVICE static void reject_transaction_count() {
    static_assert(detail::never<Args...>,
                  "linpipe: expect-tx / complete-tx on a consumer stage's EMPTY barrier; "
                  "transaction bytes are counted on the slot's FULL barrier: call it on the "
                  "producer's stage (ProducerStage::mbar()) or pipeline.producer_mbar(stage)");
  }

  Handle handle_;
};

}  // namespace linpipe
