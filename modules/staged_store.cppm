// linpipe:staged_store — StagedStore: a multi-warp consumer writes its result into a staging
// buffer of its own in shared memory (not a ring slot), one of its threads stores the buffer
// with TMA or the bulk engine, and the consumer writes the buffer again only once that store
// has read it. The GEMM's and attention's output epilogues. ReleaseAfterStoreRead: the release
// policy of a slot used as its own staging buffer.
//
// The ordering, each step needed and none checked by the hardware:
//  1. before writing: the consumer's earlier stores have read the buffer (wait_group.read, run
//     by every thread: threads without stores pass at once, and no branch sits between a
//     warpgroup's wgmma groups), then the consumer syncs so no thread writes early;
//  2. every writing thread makes its ordinary stores visible to the async proxy
//     (fence.proxy.async.shared::cta);
//  3. the consumer syncs, so the issuing thread sees every thread's fence;
//  4. the consumer's first thread issues the store(s); every thread commits a bulk group
//     (empty but in the issuer);
//  5. before the block exits, every store has completed (wait_group 0, every thread).
// begin() is step 1, store(issue) steps 2-4, finish() step 5. The consumer's barrier is
// WarpRoles::sync_consumer<FirstBarrier>() (named barrier FirstBarrier + consumer()), so the
// kernel has one numbering of named barriers.
//
//   const linpipe::StagedStore<Roles> staged(me);
//   staged.begin();
//   writer.write(shared.staging[me.consumer()], acc, 0);  // a BoxWriter: linpipe:accumulator_box
//   staged.store([&] { ptx::tma_store_2d(&map_c, col, row, shared.staging[me.consumer()].elems); });
//   ...
//   linpipe::StagedStore<Roles>::finish();  // every thread, where the roles have joined
module;
#include "linpipe_macros.h"
#include <cstdint>
export module linpipe:staged_store;
#if defined(__CUDA__)
import :ptx_bulk_copy;
import :release_policies;

export namespace linpipe {

// Roles: the kernel's WarpRoles (its consumers are the writers); FirstBarrier: as for
// Roles::sync_consumer (keep it apart from other users of named barriers).
template <class Roles, std::uint32_t FirstBarrier = 1>
class StagedStore {
 public:
  LINPIPE_DEVICE explicit StagedStore(const Roles& me) : me_(me) {}

  // Step 1: the buffer is free (the consumer's earlier stores have read it). Every thread of
  // the consumer, before writing.
  LINPIPE_DEVICE void begin() const {
    ptx::cp_async_bulk_wait_group_read<0>();
    me_.template sync_consumer<FirstBarrier>();
  }

  // Steps 2-4: the consumer has written the buffer; `issue()` runs on one thread and issues
  // the stores that read it, as one bulk group. Every thread of the consumer.
  // The issuer is a fixed thread, not elect.sync's pick: with an elect.sync inside a persistent
  // kernel's tile loop, ptxas kept the loop's pipeline state in ordinary registers and moved
  // the wgmma descriptors built from it to uniform registers before every wgmma (R2UR: 31 ->
  // 68 in attention's overlapped kernel, up to 17% slower; docs/benchmarks.md).
  template <class Issue>
  LINPIPE_DEVICE void store(Issue&& issue) const {
    ptx::fence_proxy_async_shared_cta();
    me_.template sync_consumer<FirstBarrier>();
    if (me_.thread_in_consumer() == 0) issue();
    ptx::cp_async_bulk_commit_group();
  }

  // Step 5: every store this thread issued has completed. Every thread before the block
  // exits (out where the roles have joined: see the GEMM's kernel on why).
  LINPIPE_DEVICE static void finish() { ptx::cp_async_bulk_wait_group<0>(); }

 private:
  Roles me_;
};

// The release policy (linpipe:release_policies) of a slot that is its own staging buffer: a
// consumer that wrote its output over an input slot it has finished reading (attention's O
// over its Q rows) and stored it from there with a StagedStore. Each thread first waits until
// its own bulk stores have read shared memory (threads that issued none pass at once), then
// releases, so the empty barrier completes, and the producer refills the slot, only after the
// store's issuer has seen its reads finish. Hold such a slot one step longer
// (StageLag<Stage, 1, ReleaseAfterStoreRead>: released as the next one goes in) and the wait
// finds the store long done.
// Every thread releases, as with ReleaseStage, whose arrival counts it keeps.
struct ReleaseAfterStoreRead : ReleaseStage {
  template <class Stage>
  [[clang::annotate("linpipe::arrives_arg", arrives)]] LINPIPE_DEVICE void operator()(Stage&& stage) const {
    ptx::cp_async_bulk_wait_group_read<0>();
    stage.release();
  }
};

}  // namespace linpipe
#endif  // __CUDA__
