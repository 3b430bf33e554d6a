// linpipe:trace — a pipeline's timeline: every wait, claim, release and arrival of each role,
// timestamped, in a buffer the user sizes. Off by default (NoTrace: nothing is stored and no
// code is emitted); a pipeline built with SliceTrace records into its role's own slice of the
// buffer, so the hot path has no atomics: one 16-byte record and one 4-byte count per event.
module;
#include "linpipe_macros.h"
#include <cstddef>
#include <cstdint>
#include <vector>
export module linpipe:trace;
import :config;
import :barrier_roles;
import :clock;

export namespace linpipe {

// What a role did. A wait spans wait_begin..wait_end; a stage is held from acquire to release.
enum class TraceEvent : std::uint8_t {
  wait_begin,  // the role starts waiting for its slot (producer: empty, consumer: full)
  wait_end,    // the wait passed
  acquire,     // the role claimed the slot (a stage or scope owns it)
  release,     // the claim ended (a consumer's release() also signals the empty barrier)
  arrive,      // the role signalled a barrier without ending a claim: a consume_explicit scope's
               // arrive(), *_signal_and_step (a stage's own arrive() is not recorded)
  issue,       // the user marked work issued for a stage (e.g. the producer's copy): mark_issue()
};

// One event, 16 bytes. `ticks` is the role's clock: the SM's cycle counter on the GPU (cheap
// to read; %globaltimer, one clock for every SM, is not), steady_clock nanoseconds on the host.
// The slice's anchors map ticks to nanoseconds (read_trace in linpipe:trace_report does).
struct TraceRecord {
  std::uint64_t ticks;
  std::uint32_t lap;
  TraceEvent event;
  std::uint8_t stage;
  Role role;
  std::uint8_t pipeline;  // the id given to the tracer: tells a kernel's pipelines apart
};
static_assert(sizeof(TraceRecord) == 16, "a trace record is 16 bytes (one vector store)");

// The first three records' worth of every slice: who wrote it, how much, and two anchors, each
// a (nanoseconds, ticks) pair read together: one when the role started, one refreshed every
// trace_anchor_period events and when the role's tracer goes away.
struct TraceSliceHeader {
  std::uint32_t block;     // linear CTA index (host: 0)
  std::uint32_t warp;      // warp within the CTA (host: the slice's index)
  std::uint32_t count;     // events recorded; those past `capacity` were dropped, not stored
  std::uint32_t capacity;  // records the slice holds (0: the slice was never used)
  std::uint64_t first_ns, first_ticks;
  std::uint64_t last_ns, last_ticks;
};
inline constexpr std::uint32_t trace_header_records = 3;
inline constexpr std::uint32_t trace_anchor_period = 256;
static_assert(sizeof(TraceSliceHeader) == trace_header_records * sizeof(TraceRecord));

// A trace buffer: `slices` slices, each a header, `per_slice` records and `per_slice` release
// times (8 bytes each: the n-th acquire's stage writes its release there). Zero it before a
// traced run: a slice no role wrote stays empty.
struct TraceLayout {
  std::uint32_t slices;
  std::uint32_t per_slice;
  LINPIPE_HOST_DEVICE constexpr std::size_t slice_records() const {
    return trace_header_records + std::size_t{per_slice} + (std::size_t{per_slice} + 1) / 2;
  }
  LINPIPE_HOST_DEVICE constexpr std::size_t records() const { return std::size_t{slices} * slice_records(); }
  LINPIPE_HOST_DEVICE constexpr std::size_t bytes() const { return records() * sizeof(TraceRecord); }
};

// What a stage carries to record its own release: where to write the time (its acquire's
// release slot), or nothing. A stage holds no pointer to its pipeline in a release build, so
// the pipeline object (cursors, tracer) stays in registers; this keeps it so when traced.
struct ReleaseMark {
  std::uint64_t* slot = nullptr;
  LINPIPE_HOST_DEVICE inline void mark() const;
};
struct NoReleaseMark {
  LINPIPE_HOST_DEVICE inline void mark() const {}
};

// The default tracer: records nothing, occupies nothing, emits no code.
struct NoTrace {
  static constexpr bool enabled = false;
  using ReleaseMarkType = NoReleaseMark;
  LINPIPE_HOST_DEVICE inline void record(TraceEvent, Role, std::uint32_t, std::uint32_t) {}
  LINPIPE_HOST_DEVICE inline NoReleaseMark last_release_mark() const { return {}; }
};

// A role's tracer: writes into one slice of a TraceLayout buffer. Build one per role (the
// pipeline object holds it); two roles must not share a slice.
class SliceTrace {
 public:
  static constexpr bool enabled = true;
  using ReleaseMarkType = ReleaseMark;

  // Records nothing: e.g. the pipeline object that only runs init_mbars().
  inline SliceTrace() = default;

  // Host (or explicit) form: slice `slice` of `buffer`, labelled block / warp in the trace.
  LINPIPE_HOST_DEVICE inline SliceTrace(TraceRecord* buffer, TraceLayout layout, std::uint32_t slice,
                                        std::uint32_t block, std::uint32_t warp, std::uint8_t pipeline = 0)
      : pipeline_(pipeline) {
    if (buffer == nullptr || slice >= layout.slices) return;  // nowhere to write: records nothing
    header_ = reinterpret_cast<TraceSliceHeader*>(buffer + std::size_t{slice} * layout.slice_records());
    records_ = reinterpret_cast<TraceRecord*>(header_) + trace_header_records;
    releases_ = reinterpret_cast<std::uint64_t*>(records_ + layout.per_slice);
    capacity_ = layout.per_slice;
    const std::uint64_t ns = wall_ns_now(), ticks = now_ticks();
    *header_ = TraceSliceHeader{block, warp, 0, capacity_, ns, ticks, ns, ticks};
  }
  LINPIPE_HOST_DEVICE inline SliceTrace(TraceRecord* buffer, TraceLayout layout, std::uint32_t slice,
                                        std::uint8_t pipeline = 0)
      : SliceTrace(buffer, layout, slice, 0, slice, pipeline) {}

#if defined(__CUDA__)
  // Device form: the slice of this warp, (linear CTA index) x (warps per CTA) + warp. Only the
  // lowest active lane writes, so a role run by a whole warp records each event once.
  __device__ static inline SliceTrace for_this_warp(TraceRecord* buffer, TraceLayout layout,
                                             std::uint8_t pipeline = 0) {
    const std::uint32_t block = __nvvm_read_ptx_sreg_ctaid_x() +
                                __nvvm_read_ptx_sreg_nctaid_x() *
                                    (__nvvm_read_ptx_sreg_ctaid_y() +
                                     __nvvm_read_ptx_sreg_nctaid_y() * __nvvm_read_ptx_sreg_ctaid_z());
    const std::uint32_t threads = __nvvm_read_ptx_sreg_ntid_x() * __nvvm_read_ptx_sreg_ntid_y() *
                                  __nvvm_read_ptx_sreg_ntid_z();
    const std::uint32_t thread = __nvvm_read_ptx_sreg_tid_x() +
                                 __nvvm_read_ptx_sreg_ntid_x() *
                                     (__nvvm_read_ptx_sreg_tid_y() +
                                      __nvvm_read_ptx_sreg_ntid_y() * __nvvm_read_ptx_sreg_tid_z());
    const std::uint32_t warps = (threads + 31) / 32, warp = thread / 32;
    const bool writer = __builtin_ctz(__nvvm_activemask()) == static_cast<int>(thread % 32);
    return SliceTrace(writer ? buffer : nullptr, layout, block * warps + warp, block, warp, pipeline);
  }
#endif

  LINPIPE_HOST_DEVICE inline void record(TraceEvent event, Role role, std::uint32_t stage, std::uint32_t lap) {
    if (header_ == nullptr) return;
    if (count_ < capacity_) {
      records_[count_] = TraceRecord{now_ticks(), lap, event, static_cast<std::uint8_t>(stage), role, pipeline_};
    }
    ++count_;
#if !defined(__CUDA_ARCH__)
    header_->count = count_;  // the host keeps it current: a trace may be read mid-run
#endif
    if (count_ % trace_anchor_period == 0) anchor();  // on the GPU, the count goes out here
    if (event == TraceEvent::acquire) {  // the stage of this claim records its own release
      last_release_ = acquires_ < capacity_ ? releases_ + acquires_ : nullptr;
      ++acquires_;
    }
  }
  // Where the stage of the last recorded acquire writes its release time.
  LINPIPE_HOST_DEVICE inline ReleaseMark last_release_mark() const { return ReleaseMark{last_release_}; }

  // Refreshes the slice's last anchor (the pipeline's copy does, when the role's pipeline
  // object goes away; copies made on the way there just refresh it early).
  LINPIPE_HOST_DEVICE inline ~SliceTrace() {
    if (header_ != nullptr) anchor();
  }
  inline SliceTrace(const SliceTrace&) = default;
  inline SliceTrace& operator=(const SliceTrace&) = default;

  LINPIPE_HOST_DEVICE inline std::uint32_t recorded() const { return count_; }

  // This role's clock (linpipe:clock): the SM's cycle counter on the GPU, steady_clock
  // nanoseconds on the host.
  LINPIPE_HOST_DEVICE static inline std::uint64_t now_ticks() { return wait_ticks_now(); }

 private:
  // The count and the last anchor: every trace_anchor_period events and when the role's
  // tracer goes away (a trace read after a trap misses at most the last period's events).
  LINPIPE_HOST_DEVICE inline void anchor() {
    const std::uint64_t ns = wall_ns_now(), ticks = now_ticks();
    header_->count = count_;
    header_->last_ns = ns;
    header_->last_ticks = ticks;
  }

  TraceSliceHeader* header_ = nullptr;
  TraceRecord* records_ = nullptr;
  std::uint64_t* releases_ = nullptr;
  std::uint64_t* last_release_ = nullptr;
  std::uint32_t capacity_ = 0;
  std::uint32_t count_ = 0;
  std::uint32_t acquires_ = 0;
  std::uint8_t pipeline_ = 0;
};

LINPIPE_HOST_DEVICE inline void ReleaseMark::mark() const {
  if (slot != nullptr) *slot = SliceTrace::now_ticks();
}

// A host-side trace buffer (zeroed), e.g. for HostBackend pipelines or to copy a device buffer
// into: `TraceBuffer trace(3, 4096); Pipeline pipe(signals, "p", trace.slice(0));`.
class TraceBuffer {
 public:
  inline TraceBuffer(std::uint32_t slices, std::uint32_t per_slice)
      : layout_{slices, per_slice}, records_(layout_.records()) {}
  inline SliceTrace slice(std::uint32_t index, std::uint8_t pipeline = 0) {
    return SliceTrace(records_.data(), layout_, index, pipeline);
  }
  inline TraceLayout layout() const { return layout_; }
  inline TraceRecord* data() { return records_.data(); }
  inline const TraceRecord* data() const { return records_.data(); }

 private:
  TraceLayout layout_;
  std::vector<TraceRecord> records_;
};

}  // namespace linpipe
