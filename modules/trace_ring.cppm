// linpipe:trace_ring — tracing that keeps global memory off the traced warps' path. A
// DrainedTrace writes its role's records and release times into a TraceRing in shared memory;
// a TraceDrainer, run by lanes of an otherwise idle warp, copies each ring out to its warp's
// slice of the trace buffer: the layout SliceTrace writes, read by the same functions.
// Why: a SliceTrace's global stores sit on its warp's critical path, since the release-arrive
// or wgmma.fence after each one waits until L2 has acknowledged it (about 10% of the GEMM's
// time); stores to shared memory complete in tens of cycles (docs/benchmarks.md, issue 31).
// Measured on the GEMM the rings cost more than SliceTrace, not less (docs/benchmarks.md), so
// the repo's kernels trace with SliceTrace; a ring suits a role that must not touch global
// memory while it runs.
// compute-sanitizer racecheck reports the hand-off as RAW/WAR hazards: role and drainer order
// their accesses by acquire/release on shared memory, which racecheck does not model.
module;
#include "linpipe_macros.h"
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>
export module linpipe:trace_ring;
import :config;
import :barrier_roles;
import :clock;
import :diagnostics;
import :trace;
#if defined(__CUDA__)
import :ptx_mbarrier;
import :ptx_sync;
#endif

namespace linpipe::detail {

// The ring's hand-offs between its role and its drainer. Device: the ring is in the CTA's
// shared memory and both are warps of the CTA; host: any memory, two threads.
LINPIPE_HOST_DEVICE inline std::uint32_t ring_load_acquire(std::uint32_t& word) {
#if defined(__CUDA_ARCH__)
  return ptx::ld_acquire_cta(ptx::shared_address(&word));
#else
  return std::atomic_ref<std::uint32_t>(word).load(std::memory_order_acquire);
#endif
}
LINPIPE_HOST_DEVICE inline void ring_store_release(std::uint32_t& word, std::uint32_t value) {
#if defined(__CUDA_ARCH__)
  ptx::st_release_cta(ptx::shared_address(&word), value);
#else
  std::atomic_ref<std::uint32_t>(word).store(value, std::memory_order_release);
#endif
}
LINPIPE_HOST_DEVICE inline std::uint64_t ring_load_relaxed(std::uint64_t& word) {
#if defined(__CUDA_ARCH__)
  return ptx::ld_relaxed_cta(ptx::shared_address(&word));
#else
  return std::atomic_ref<std::uint64_t>(word).load(std::memory_order_relaxed);
#endif
}
LINPIPE_HOST_DEVICE inline void ring_store_relaxed(std::uint64_t& word, std::uint64_t value) {
#if defined(__CUDA_ARCH__)
  ptx::st_relaxed_cta(ptx::shared_address(&word), value);
#else
  std::atomic_ref<std::uint64_t>(word).store(value, std::memory_order_relaxed);
#endif
}

// Waits until `ready` holds, re-reading what it tests; in debug builds, past the wait budget,
// reports that the ring's drainer never caught up (none runs, or its ring was never reset).
template <class Ready>
LINPIPE_HOST_DEVICE inline void wait_for_drainer(const void* ring, Role role, std::uint32_t side,
                                                 std::uint32_t count, Ready ready) {
  const Deadline<debug_checks> deadline(debug_wait_budget());
  while (!ready()) {
    if (deadline.passed()) {
      report(ReportKind::trace_ring_full, StageLocation{"trace ring", ring, side, count, role});
    }
#if !defined(__CUDA_ARCH__)
    std::this_thread::yield();  // host threads may outnumber cores: let the drainer run
#endif
  }
}

}  // namespace linpipe::detail

export namespace linpipe {

// One traced warp's ring: its last Records records and the release times of its last Releases
// claims, until the drainer has copied them out. Lives in shared memory (device; any memory on
// the host), is trivially constructible so that a SharedPlan can place it, and must be reset()
// before the barrier that starts the roles. 16 x Records + 8 x Releases + 32 bytes.
template <std::uint32_t Records = 8, std::uint32_t Releases = 8>
struct TraceRing {
  static_assert(Records >= 2 && (Records & (Records - 1)) == 0,
                "linpipe::TraceRing<Records, Releases>: Records must be a power of two, at least 2");
  static_assert(Releases >= 1 && (Releases & (Releases - 1)) == 0,
                "linpipe::TraceRing<Records, Releases>: Releases must be a power of two");
  static constexpr std::uint32_t record_slots = Records;
  static constexpr std::uint32_t release_slots = Releases;
  static constexpr std::uint32_t no_slice = ~0u;

  alignas(16) TraceRecord records[Records];
  std::uint64_t releases[Releases];  // a claim's release time; 0: not released yet, or drained
  std::uint32_t written;             // role: records written (each published by a release store)
  std::uint32_t acquires;            // role: claims recorded, final once `finished` is set
  std::uint32_t finished;            // role: 1 once it records nothing more
  std::uint32_t drained;             // drainer: records copied out (their slots are free again)
  std::uint32_t releases_drained;    // drainer: release times copied out
  std::uint32_t slice;               // the buffer slice it drains to (no_slice: records nothing)
  std::uint32_t block, warp;         // the slice's label (as SliceTrace::for_this_warp's)

  // Empty, draining into `slice` (or nowhere: no_slice) labelled block / warp. One thread, before
  // the role and the drainer start.
  LINPIPE_HOST_DEVICE inline void reset(std::uint32_t to_slice, std::uint32_t block_label,
                                        std::uint32_t warp_label) {
    for (std::uint64_t& r : releases) r = 0;
    written = acquires = finished = drained = releases_drained = 0;
    slice = to_slice;
    block = block_label;
    warp = warp_label;
  }
};

// What a stage of a DrainedTrace carries to record its own release: its claim's slot in the
// ring (null: not recorded). Never writes 0, which means "not released yet".
struct RingReleaseMark {
  std::uint64_t* slot = nullptr;
  LINPIPE_HOST_DEVICE inline void mark() const {
    if (slot == nullptr) return;
    const std::uint64_t ticks = wait_ticks_now();
    detail::ring_store_relaxed(*slot, ticks == 0 ? 1 : ticks);
  }
};

// A role's tracer that records into a TraceRing (a pipeline's Tracer, like SliceTrace). Move-
// only: the pipeline object that holds it is the role's one writer, and its destruction tells
// the drainer the role is done, so build the pipeline once per role and keep it to the end.
// A role may hold at most Ring::release_slots claims of the pipeline at once (the pipeline
// checks its NumStages against it). Hand it on by rvalue reference or return it, never as a
// by-value argument of a device function: on the GPU that is a bitwise copy whose original is
// destroyed too, which would end the role early (the pipeline takes it by rvalue reference).
template <class Ring = TraceRing<>>
class DrainedTrace {
 public:
  static constexpr bool enabled = true;
  using ReleaseMarkType = RingReleaseMark;
  static constexpr std::uint32_t max_held_claims = Ring::release_slots;

  // Records nothing.
  inline DrainedTrace() = default;
  // Records into `ring` (nothing if it is null or drains nowhere); `pipeline` tags the records.
  LINPIPE_HOST_DEVICE inline explicit DrainedTrace(Ring* ring, std::uint8_t pipeline = 0)
      : ring_(ring != nullptr && ring->slice != Ring::no_slice ? ring : nullptr), pipeline_(pipeline) {}

#if defined(__CUDA__)
  // Device form: only the lowest active lane records, so a role run by a whole warp records
  // each event once.
  __device__ static inline DrainedTrace for_this_warp(Ring& ring, std::uint8_t pipeline = 0) {
    const bool writer = __builtin_ctz(__nvvm_activemask()) == static_cast<int>(__nvvm_read_ptx_sreg_laneid());
    return DrainedTrace(writer ? &ring : nullptr, pipeline);
  }
#endif

  LINPIPE_HOST_DEVICE inline DrainedTrace(DrainedTrace&& other)
      : ring_(other.ring_), last_release_(other.last_release_), count_(other.count_),
        known_drained_(other.known_drained_), acquires_(other.acquires_),
        known_releases_drained_(other.known_releases_drained_), pipeline_(other.pipeline_) {
    other.ring_ = nullptr;
  }
  DrainedTrace(const DrainedTrace&) = delete;
  DrainedTrace& operator=(const DrainedTrace&) = delete;
  DrainedTrace& operator=(DrainedTrace&&) = delete;

  // The role is done: its count of claims out, then `finished`, so the drainer can end.
  LINPIPE_HOST_DEVICE inline ~DrainedTrace() {
    if (ring_ == nullptr) return;
    detail::ring_store_release(ring_->acquires, acquires_);
    detail::ring_store_release(ring_->finished, 1);
  }

  LINPIPE_HOST_DEVICE inline void record(TraceEvent event, Role role, std::uint32_t stage, std::uint32_t lap) {
    if (ring_ == nullptr) return;
    if (count_ - known_drained_ >= Ring::record_slots) {  // full: rare, the drainer is a few records behind
      detail::wait_for_drainer(ring_, role, 0, count_, [&] {
        known_drained_ = detail::ring_load_acquire(ring_->drained);
        return count_ - known_drained_ < Ring::record_slots;
      });
    }
    ring_->records[count_ % Ring::record_slots] =
        TraceRecord{wait_ticks_now(), lap, event, static_cast<std::uint8_t>(stage), role, pipeline_};
    detail::ring_store_release(ring_->written, ++count_);
    if (event == TraceEvent::acquire) {  // the stage of this claim records its own release
      if (acquires_ - known_releases_drained_ >= Ring::release_slots) {
        detail::wait_for_drainer(ring_, role, 1, acquires_, [&] {
          known_releases_drained_ = detail::ring_load_acquire(ring_->releases_drained);
          return acquires_ - known_releases_drained_ < Ring::release_slots;
        });
      }
      last_release_ = &ring_->releases[acquires_ % Ring::release_slots];
      ++acquires_;
    }
  }
  // Where the stage of the last recorded acquire writes its release time.
  LINPIPE_HOST_DEVICE inline RingReleaseMark last_release_mark() const { return RingReleaseMark{last_release_}; }

  LINPIPE_HOST_DEVICE inline std::uint32_t recorded() const { return count_; }

 private:
  Ring* ring_ = nullptr;
  std::uint64_t* last_release_ = nullptr;
  std::uint32_t count_ = 0;
  std::uint32_t known_drained_ = 0;  // the drainer's progress as last read: re-read only when full
  std::uint32_t acquires_ = 0;
  std::uint32_t known_releases_drained_ = 0;
  std::uint8_t pipeline_ = 0;
};

// Copies TraceRings out to a TraceLayout buffer until their roles are done: one ring a call of
// drain() (device: one lane a ring, lanes of a warp no role needs; host: a thread). Writes the
// slice's header itself, anchored to the drainer's own clock readings: on the GPU the cycle
// counter is the SM's, shared by every warp of the CTA, so they map the role's ticks too.
class TraceDrainer {
 public:
  LINPIPE_HOST_DEVICE inline TraceDrainer(TraceRecord* buffer, TraceLayout layout) : buffer_(buffer), layout_(layout) {}

  // Returns once the ring's role is done and everything it wrote is copied out. A ring that
  // drains nowhere (no_slice) returns at once: its role records nothing. One whose slice is past
  // the buffer's is emptied without copying, so that its role never waits.
  template <class Ring>
  LINPIPE_HOST_DEVICE inline void drain(Ring& ring) const {
    const std::uint32_t slice = ring.slice;
    if (slice == Ring::no_slice) return;
    const bool kept = buffer_ != nullptr && slice < layout_.slices;
    TraceSliceHeader* header = nullptr;
    TraceRecord* records = nullptr;
    std::uint64_t* releases = nullptr;
    const std::uint32_t capacity = kept ? layout_.per_slice : 0;
    if (kept) {
      header = reinterpret_cast<TraceSliceHeader*>(buffer_ + std::size_t{slice} * layout_.slice_records());
      records = reinterpret_cast<TraceRecord*>(header) + trace_header_records;
      releases = reinterpret_cast<std::uint64_t*>(records + layout_.per_slice);
      const std::uint64_t ns = wall_ns_now(), ticks = wait_ticks_now();
      *header = TraceSliceHeader{ring.block, ring.warp, 0, capacity, ns, ticks, ns, ticks};
    }

    std::uint32_t copied = 0, released = 0;
    for (;;) {
      // `finished` first: once it is seen, the counts read after it are final.
      const bool finished = detail::ring_load_acquire(ring.finished) != 0;
      const std::uint32_t written = detail::ring_load_acquire(ring.written);
      const std::uint32_t before = copied;
      for (; copied != written; ++copied) {
        if (copied < capacity) records[copied] = ring.records[copied % Ring::record_slots];
        if (kept && (copied + 1) % trace_anchor_period == 0) anchor(*header, copied + 1);
      }
      if (copied != before) detail::ring_store_release(ring.drained, copied);
      const std::uint32_t claims = finished ? ring.acquires : ~0u;
      const std::uint32_t released_before = released;
      for (; released != claims; ++released) {
        std::uint64_t& slot = ring.releases[released % Ring::release_slots];
        const std::uint64_t time = detail::ring_load_relaxed(slot);
        if (time == 0) break;  // not released yet: releases are copied in claim order
        detail::ring_store_relaxed(slot, 0);
        if (released < capacity) releases[released] = time;
      }
      if (released != released_before) detail::ring_store_release(ring.releases_drained, released);
      if (finished && released == claims) break;
      if (copied == before && released == released_before) pause();
    }
    if (kept) anchor(*header, copied);
  }

 private:
  // The count so far and a fresh anchor (as SliceTrace's: a trace read after a trap misses at
  // most the last period's events).
  LINPIPE_HOST_DEVICE static inline void anchor(TraceSliceHeader& header, std::uint32_t count) {
    const std::uint64_t ns = wall_ns_now(), ticks = wait_ticks_now();
    header.count = count;
    header.last_ns = ns;
    header.last_ticks = ticks;
  }
  LINPIPE_HOST_DEVICE static inline void pause() {
#if defined(__CUDA_ARCH__)
    ptx::nanosleep(64);  // leave the issue slots to the warps the trace watches
#else
    std::this_thread::yield();
#endif
  }

  TraceRecord* buffer_;
  TraceLayout layout_;
};

}  // namespace linpipe
