// Tracing through rings (linpipe:trace_ring): a DrainedTrace's records and release times reach
// the role's slice of the buffer through a small ring that a TraceDrainer copies out, so the
// slice reads back as a SliceTrace's would, however often the ring wraps; a slice that is full
// counts its drops; a ring that drains nowhere records nothing; and a ring nobody drains
// reports instead of hanging its role.
import linpipe;

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <thread>
#include <vector>

#include "../trace/claims.h"
#include "../trace/relay.h"

namespace {

constexpr int stages = 4;
using Backend = linpipe::HostBackend<stages>;
// The smallest ring the pipeline accepts: every few events wrap it, so the role waits on its
// drainer now and then and the hand-off is exercised, not just the copy.
using Ring = linpipe::TraceRing<2, stages>;
using Tracer = linpipe::DrainedTrace<Ring>;
using Traced = linpipe::ProducerConsumerPipeline<stages, Backend, Tracer>;
using linpipe::Role;
using linpipe::TraceEvent;

std::map<TraceEvent, int> count_events(const linpipe::TraceSlice& slice) {
  std::map<TraceEvent, int> counts;
  for (const auto& r : slice.events) ++counts[r.event];
  return counts;
}

// Every claim is released once, after it, by the same slot and lap; times never go back.
void expect_claims_released_in_time(const linpipe::TraceSlice& slice, Role role) {
  std::uint64_t last = 0;
  for (const auto& r : slice.events) {
    EXPECT_EQ(r.role, role);
    EXPECT_GE(r.ns, last);
    last = r.ns;
  }
  EXPECT_EQ(count_claims(slice).unmatched, 0u) << "a claim made twice, released unclaimed or never released";
}

// Two rings, each drained by its own thread for as long as the test body runs.
struct DrainedRings {
  Ring rings[2];
  linpipe::TraceBuffer trace;
  explicit DrainedRings(std::uint32_t per_slice, std::uint32_t slices = 2) : trace(slices, per_slice) {
    rings[0].reset(0, 7, 1);
    rings[1].reset(1, 7, 5);
  }
  template <class Body>
  void run(Body body) {
    const linpipe::TraceDrainer drainer(trace.data(), trace.layout());
    std::jthread first([&] { drainer.drain(rings[0]); });
    std::jthread second([&] { drainer.drain(rings[1]); });
    body();
  }
  linpipe::TraceSlice slice(std::uint32_t index) const {
    return linpipe::read_trace(trace.data(), trace.layout()).at(index);
  }
};

// A kernel builds each role's tracer in a function (its warp decides which ring, or none) and
// hands it to the pipeline: only the pipeline's copy may tell the drainer the role is done,
// when the pipeline goes away, not a temporary on the way.
Tracer tracer_for(Ring& ring, bool traced) {
  if (!traced) return Tracer();
  return Tracer(&ring);
}

TEST(TraceRing, OnlyThePipelinesTracerEndsTheRole) {
  linpipe::HostSignal signals[Backend::storage_elems()];
  Traced(signals).init_mbars(1, 1);
  Ring ring;
  ring.reset(0, 0, 0);
  {
    Traced pipe(signals, "handed over", tracer_for(ring, true));
    EXPECT_EQ(ring.finished, 0u) << "the role was ended while its pipeline still records";
    auto stage = pipe.acquire_producer();
    stage.mbar().arrive();
    stage.release();
  }
  EXPECT_EQ(ring.finished, 1u);
  EXPECT_EQ(ring.acquires, 1u);
}

TEST(TraceRing, EveryEventReachesTheRolesSliceThroughATinyRing) {
  constexpr int items = 500;
  linpipe::HostSignal signals[Backend::storage_elems()];
  Traced(signals).init_mbars(1, 1);
  DrainedRings drained(4096);
  drained.run([&] {
    std::jthread producer([&] {
      Traced pipe(signals, "ring", Tracer(&drained.rings[0]));
      produce_items(pipe, items);
    });
    std::jthread consumer([&] {
      Traced pipe(signals, "ring", Tracer(&drained.rings[1]));
      consume_items(pipe, items);
    });
  });
  const linpipe::TraceSlice produced = drained.slice(0), consumed = drained.slice(1);
  // The drainer labels the slice with the ring's block and warp, as for_this_warp would.
  EXPECT_EQ(produced.header.block, 7u);
  EXPECT_EQ(produced.header.warp, 1u);
  EXPECT_EQ(consumed.header.warp, 5u);
  auto p = count_events(produced), c = count_events(consumed);
  EXPECT_EQ(p[TraceEvent::acquire], items);
  EXPECT_EQ(p[TraceEvent::release], items);
  EXPECT_EQ(p[TraceEvent::issue], items);
  EXPECT_EQ(p[TraceEvent::wait_begin], p[TraceEvent::wait_end]);
  EXPECT_EQ(c[TraceEvent::acquire], items);
  EXPECT_EQ(c[TraceEvent::release], items);
  EXPECT_EQ(produced.header.count + items, produced.events.size());
  EXPECT_EQ(consumed.header.count + items, consumed.events.size());
  expect_claims_released_in_time(produced, Role::producer);
  expect_claims_released_in_time(consumed, Role::consumer);
  for (const auto& role : linpipe::summarise_trace(drained.trace.data(), drained.trace.layout())) {
    EXPECT_EQ(role.dropped, 0u);
  }
}

// Releases in another order than their claims (newest first): each still lands in its own
// claim's slot, although the drainer copies release times in claim order.
TEST(TraceRing, ReleasesInAnyOrderKeepTheirClaim) {
  linpipe::HostSignal signals[Backend::storage_elems()];
  Traced(signals).init_mbars(1, 1);
  DrainedRings drained(512);
  drained.run([&] {
    Traced producer(signals, "order", Tracer(&drained.rings[0]));
    Traced consumer(signals, "order", Tracer(&drained.rings[1]));
    for (int round = 0; round < 20; ++round) {
      auto first = producer.acquire_producer();
      auto second = producer.acquire_producer();
      auto third = producer.acquire_producer();
      third.mbar().arrive();
      first.mbar().arrive();
      second.mbar().arrive();
      third.release();
      first.release();
      second.release();
      for (int i = 0; i < 3; ++i) {
        auto taken = consumer.acquire_consumer();
        taken.release();
      }
    }
  });
  for (std::uint32_t s : {0u, 1u}) {
    const linpipe::TraceSlice slice = drained.slice(s);
    expect_claims_released_in_time(slice, s == 0 ? Role::producer : Role::consumer);
    auto counts = count_events(slice);
    EXPECT_EQ(counts[TraceEvent::acquire], 60) << "slice " << s;
    EXPECT_EQ(counts[TraceEvent::release], 60) << "slice " << s;
  }
}

// A full slice counts what it could not keep, keeps the first per_slice records and their
// releases, and writes nothing outside itself; its role never waits for the lost records.
TEST(TraceRing, AFullSliceCountsItsDropsAndStaysInItsSlice) {
  linpipe::HostSignal signals[Backend::storage_elems()];
  Traced(signals).init_mbars(1, 1);
  DrainedRings drained(16, 3);
  drained.rings[0].reset(1, 0, 0);                  // the producer's ring drains into slice 1
  drained.rings[1].reset(Ring::no_slice, 0, 0);     // the consumer's records nothing
  drained.run([&] {
    Traced producer(signals, "overflow", Tracer(&drained.rings[0]));
    Traced consumer(signals, "overflow", Tracer(&drained.rings[1]));
    relay_in_turns(producer, consumer, 50);
    EXPECT_EQ(consumer.tracer().recorded(), 0u);
  });
  const linpipe::TraceSlice used = drained.slice(1);
  EXPECT_EQ(used.header.count, 50u);
  EXPECT_EQ(used.header.capacity, 16u);
  EXPECT_EQ(used.events.size(), 16u + 16);
  const std::size_t per_slice = drained.trace.layout().slice_records();
  for (std::uint32_t untouched : {0u, 2u}) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(drained.trace.data() + untouched * per_slice);
    for (std::size_t b = 0; b < per_slice * sizeof(linpipe::TraceRecord); ++b) {
      ASSERT_EQ(bytes[b], 0) << "slice " << untouched << " was written";
    }
  }
}

// A ring whose slice is past the buffer's (a CTA past the traced ones) is emptied without being
// copied: its role runs to the end, and the buffer stays as it was.
TEST(TraceRing, ARingPastTheBufferIsEmptiedNotCopied) {
  linpipe::HostSignal signals[Backend::storage_elems()];
  Traced(signals).init_mbars(1, 1);
  DrainedRings drained(64);
  drained.rings[0].reset(2, 0, 0);
  drained.rings[1].reset(9, 0, 0);
  drained.run([&] {
    Traced producer(signals, "past", Tracer(&drained.rings[0]));
    Traced consumer(signals, "past", Tracer(&drained.rings[1]));
    relay_in_turns(producer, consumer, 40);
    EXPECT_EQ(producer.tracer().recorded(), 40u);
  });
  const auto* bytes = reinterpret_cast<const unsigned char*>(drained.trace.data());
  for (std::size_t b = 0; b < drained.trace.layout().bytes(); ++b) ASSERT_EQ(bytes[b], 0) << "byte " << b;
}

// Nothing drains the ring: once it is full the role's next record waits, and in a debug build
// the wait reports the ring and the fix instead of hanging.
TEST(TraceRing, ARingNobodyDrainsReportsInsteadOfHanging) {
  if (!linpipe::debug_checks) GTEST_SKIP() << "built without debug checks (NDEBUG)";
  linpipe::host_wait_budget_ns = 50'000'000;  // 50 ms
  EXPECT_DEATH(
      {
        linpipe::HostSignal signals[Backend::storage_elems()];
        Traced(signals).init_mbars(1, 1);
        Ring ring;
        ring.reset(0, 0, 0);
        Traced producer(signals, "undrained", Tracer(&ring));
        for (int i = 0; i < 4; ++i) {
          auto made = producer.acquire_producer();
          made.mbar().arrive();
          made.release();
        }
      },
      "trace ring stayed full past the wait budget .* role producer, record 2: run a "
      "TraceDrainer's drain\\(ring\\)");
  linpipe::host_wait_budget_ns = 10'000'000'000ull;
}

}  // namespace
