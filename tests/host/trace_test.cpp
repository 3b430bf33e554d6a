// Tracing (linpipe:trace): a traced host pipeline records every wait, claim, release and issue
// mark of each role in its own slice, counts what does not fit instead of writing past it, and
// the report functions turn the buffer into a summary and trace-event JSON.
import linpipe;

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "../trace/relay.h"

namespace {

constexpr int stages = 4;
using Backend = linpipe::HostBackend<stages>;
using Traced = linpipe::ProducerConsumerPipeline<stages, Backend, linpipe::SliceTrace>;
using linpipe::Role;
using linpipe::TraceEvent;
using linpipe::TraceRecord;

// Without a tracer nothing changes: the default is NoTrace, which has no state.
static_assert(std::is_empty_v<linpipe::NoTrace>);
static_assert(std::is_same_v<linpipe::ProducerConsumerPipeline<stages, Backend>,
                             linpipe::ProducerConsumerPipeline<stages, Backend, linpipe::NoTrace>>);

using Slice = linpipe::TraceSlice;

Slice read_slice(const linpipe::TraceBuffer& trace, std::uint32_t index) {
  return linpipe::read_trace(trace.data(), trace.layout()).at(index);
}

std::map<TraceEvent, int> count_events(const Slice& slice) {
  std::map<TraceEvent, int> counts;
  for (const auto& r : slice.events) ++counts[r.event];
  return counts;
}

// Times never go back within a slice; each wait ends on the slot it began on; each release
// matches an earlier acquire of the same slot and lap.
void expect_well_formed(const Slice& slice, Role role) {
  std::uint64_t last = 0;
  const linpipe::TimedTraceEvent* open_wait = nullptr;
  std::map<std::pair<int, std::uint32_t>, int> held;
  for (const auto& r : slice.events) {
    EXPECT_EQ(r.role, role);
    EXPECT_GE(r.ns, last);
    last = r.ns;
    EXPECT_LT(r.stage, stages);
    if (r.event == TraceEvent::wait_begin) {
      EXPECT_EQ(open_wait, nullptr) << "a wait began inside another";
      open_wait = &r;
    } else if (r.event == TraceEvent::wait_end) {
      ASSERT_NE(open_wait, nullptr) << "a wait ended that never began";
      EXPECT_EQ(r.stage, open_wait->stage);
      EXPECT_EQ(r.lap, open_wait->lap);
      open_wait = nullptr;
    } else if (r.event == TraceEvent::acquire) {
      EXPECT_EQ((held[{r.stage, r.lap}]++), 0) << "slot acquired twice in one lap";
    } else if (r.event == TraceEvent::release) {
      EXPECT_EQ((held[{r.stage, r.lap}]--), 1) << "release without an acquire";
    }
  }
  EXPECT_EQ(open_wait, nullptr);
}

TEST(Trace, RecordsEveryEventOfEachRoleInItsSlice) {
  constexpr int items = 300;
  linpipe::HostSignal signals[Backend::storage_elems()];
  Traced(signals).init_mbars(1, 1);
  linpipe::TraceBuffer trace(2, 4096);
  {
    std::jthread producer([&] {
      Traced pipe(signals, "traced", trace.slice(0));
      produce_items(pipe, items);
    });
    std::jthread consumer([&] {
      Traced pipe(signals, "traced", trace.slice(1));
      consume_items(pipe, items);
    });
  }
  const Slice produced = read_slice(trace, 0), consumed = read_slice(trace, 1);
  auto p = count_events(produced), c = count_events(consumed);
  // A wait is recorded only when the slot was not ready at once: at most once per item (and
  // per slot while the producer drains), always as a begin and an end.
  EXPECT_EQ(p[TraceEvent::acquire], items);
  EXPECT_EQ(p[TraceEvent::release], items);
  EXPECT_EQ(p[TraceEvent::issue], items);
  EXPECT_EQ(p[TraceEvent::wait_begin], p[TraceEvent::wait_end]);
  EXPECT_LE(p[TraceEvent::wait_begin], items + stages);
  EXPECT_EQ(c[TraceEvent::acquire], items);
  EXPECT_EQ(c[TraceEvent::release], items);
  EXPECT_EQ(c[TraceEvent::wait_begin], c[TraceEvent::wait_end]);
  EXPECT_LE(c[TraceEvent::wait_begin], items);
  // Releases are not counted records: each stage writes its release time into its acquire's
  // slot (so the pipeline object needs no pointer from its stages), and read_trace adds them.
  EXPECT_EQ(produced.header.count + items, produced.events.size());
  EXPECT_EQ(consumed.header.count + items, consumed.events.size());
  expect_well_formed(produced, Role::producer);
  expect_well_formed(consumed, Role::consumer);

  const auto roles = linpipe::summarise_trace(trace.data(), trace.layout());
  ASSERT_EQ(roles.size(), 2u);
  EXPECT_EQ(roles[0].role, Role::producer);
  EXPECT_EQ(roles[0].waits, static_cast<std::uint32_t>(p[TraceEvent::wait_end]));
  EXPECT_EQ(roles[1].waits, static_cast<std::uint32_t>(c[TraceEvent::wait_end]));
  for (const auto& role : roles) {
    EXPECT_EQ(role.dropped, 0u);
    EXPECT_LE(role.waiting_ns, role.span_ns);
    EXPECT_LE(role.longest_wait_ns, role.waiting_ns);
  }
}

TEST(Trace, ScopesRecordTheirClaimAndRelease) {
  linpipe::HostSignal signals[Backend::storage_elems()];
  Traced(signals).init_mbars(1, 1);
  linpipe::TraceBuffer trace(2, 256);
  Traced producer(signals, "scopes", trace.slice(0));
  Traced consumer(signals, "scopes", trace.slice(1));
  for (int i = 0; i < 10; ++i) {  // one thread: never more than the ring ahead
    {
      auto scope = producer.produce();
      scope.mbar().arrive();
    }
    {
      auto scope = consumer.consume_explicit();
      scope.arrive();
    }
  }
  const auto p = count_events(read_slice(trace, 0)), c = count_events(read_slice(trace, 1));
  EXPECT_EQ(p.at(TraceEvent::acquire), 10);
  EXPECT_EQ(p.at(TraceEvent::release), 10);
  EXPECT_EQ(c.at(TraceEvent::acquire), 10);
  EXPECT_EQ(c.at(TraceEvent::release), 10);
  EXPECT_EQ(c.at(TraceEvent::arrive), 10);
  expect_well_formed(read_slice(trace, 1), Role::consumer);
}

// A full slice counts what it drops, and writes nothing outside itself.
TEST(Trace, AFullSliceCountsDropsAndStaysInItsSlice) {
  linpipe::HostSignal signals[Backend::storage_elems()];
  Traced(signals).init_mbars(1, 1);
  linpipe::TraceBuffer trace(3, 16);
  Traced producer(signals, "overflow", trace.slice(1));
  Traced consumer(signals, "overflow", linpipe::SliceTrace(nullptr, trace.layout(), 0));  // untraced
  relay_in_turns(producer, consumer, 50);
  const Slice used = read_slice(trace, 1);
  EXPECT_EQ(used.header.count, 50u);  // one acquire per item (one thread: no wait ever blocks)
  EXPECT_EQ(used.header.capacity, 16u);
  EXPECT_EQ(used.events.size(), 16u + 16);  // the 16 acquires kept, and their releases
  const std::size_t per_slice = trace.layout().slice_records();
  for (std::uint32_t untouched : {0u, 2u}) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(trace.data() + untouched * per_slice);
    for (std::size_t b = 0; b < per_slice * sizeof(TraceRecord); ++b) {
      ASSERT_EQ(bytes[b], 0) << "slice " << untouched << " was written";
    }
  }
  const auto roles = linpipe::summarise_trace(trace.data(), trace.layout());
  ASSERT_EQ(roles.size(), 1u);
  EXPECT_EQ(roles[0].dropped, 50u - 16);
  EXPECT_EQ(roles[0].events, 16u + 16);
}

// Stages release in any order, and a role may step past a slot without claiming it: each
// release still names the claim (slot and lap) it ended, after that claim.
TEST(Trace, ReleasesKeepTheirClaimWhateverTheOrder) {
  linpipe::HostSignal signals[Backend::storage_elems()];
  Traced(signals).init_mbars(1, 1);
  linpipe::TraceBuffer trace(2, 512);
  {
    Traced producer(signals, "order", trace.slice(0));
    Traced consumer(signals, "order", trace.slice(1));
    for (int round = 0; round < 6; ++round) {
      auto first = producer.acquire_producer();
      auto second = producer.acquire_producer();
      auto third = producer.acquire_producer();
      third.mbar().arrive();
      first.mbar().arrive();
      second.mbar().arrive();
      third.release();  // newest first
      first.release();
      second.release();
      for (int i = 0; i < 3; ++i) {
        if (round % 2 == 1 && i == 1) {
          consumer.wait_consumer();
          consumer.consumer_signal_and_step();  // no claim: the slot's next claim is a lap on
          continue;
        }
        auto taken = consumer.acquire_consumer();
        taken.release();
      }
    }
  }
  for (std::uint32_t s : {0u, 1u}) {
    const Slice slice = read_slice(trace, s);
    const Role role = s == 0 ? Role::producer : Role::consumer;
    expect_well_formed(slice, role);
    auto counts = count_events(slice);
    EXPECT_EQ(counts[TraceEvent::release], counts[TraceEvent::acquire]) << "slice " << s;
    EXPECT_EQ(counts[TraceEvent::acquire], s == 0 ? 18 : 15) << "slice " << s;
    // Releases are not counted records (each writes its acquire's release slot).
    EXPECT_EQ(slice.header.count + counts[TraceEvent::release], slice.events.size());
    // Every claim's release comes after it, and before the role's next claim after it.
    for (std::size_t i = 0; i < slice.events.size(); ++i) {
      const auto& claim = slice.events[i];
      if (claim.event != TraceEvent::acquire) continue;
      bool released = false;
      for (std::size_t j = i + 1; j < slice.events.size() && !released; ++j) {
        released = slice.events[j].event == TraceEvent::release &&
                   slice.events[j].stage == claim.stage && slice.events[j].lap == claim.lap;
      }
      EXPECT_TRUE(released) << "slice " << s << ": claim of stage " << int(claim.stage)
                            << " lap " << claim.lap << " has no release after it";
    }
  }
}

TEST(Trace, JsonHasATrackPerRoleAndASlicePerWait) {
  linpipe::HostSignal signals[Backend::storage_elems()];
  Traced(signals).init_mbars(1, 1);
  linpipe::TraceBuffer trace(2, 256);
  {
    // The producer dawdles, so the consumer's waits block and are recorded.
    std::jthread producing([&] {
      Traced producer(signals, "json \"quoted\"", trace.slice(0, /*pipeline=*/3));
      for (int i = 0; i < 5; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        auto made = producer.acquire_producer();
        made.mbar().arrive();
        made.release();
      }
    });
    Traced consumer(signals, "json", trace.slice(1, 3));
    for (int i = 0; i < 5; ++i) {
      auto taken = consumer.acquire_consumer();
      taken.release();
    }
  }
  const auto roles = linpipe::summarise_trace(trace.data(), trace.layout());
  ASSERT_EQ(roles.size(), 2u);
  const std::string json = linpipe::trace_to_json(trace.data(), trace.layout(), "a \"test\"");
  const auto occurrences = [&json](const std::string& text) {
    std::size_t n = 0;
    for (auto at = json.find(text); at != std::string::npos; at = json.find(text, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(occurrences("\"title\": \"a \\\"test\\\"\""), 1u);
  EXPECT_EQ(occurrences("\"name\": \"thread_name\""), 2u);
  EXPECT_EQ(occurrences("warp 0 producer (pipeline 3)"), 1u);
  EXPECT_EQ(occurrences("warp 1 consumer (pipeline 3)"), 1u);
  // A slice per recorded wait, as the summary counts them; the consumer did wait.
  EXPECT_EQ(occurrences("\"name\": \"wait empty\", \"ph\": \"X\""), roles[0].waits);
  EXPECT_EQ(occurrences("\"name\": \"wait full\", \"ph\": \"X\""), roles[1].waits);
  EXPECT_GE(roles[1].waits, 1u);
  EXPECT_EQ(occurrences("\"ph\": \"b\""), 10u);
  EXPECT_EQ(occurrences("\"ph\": \"e\""), 10u);
  EXPECT_EQ(json.substr(json.size() - 4), "\n]}\n");
}

}  // namespace

namespace {

// Device slices record clock ticks; read_trace maps them to nanoseconds with the anchors of the
// slice whose anchors lie furthest apart (one rate) and each slice's own first anchor.
TEST(Trace, TicksBecomeNanosecondsThroughTheAnchors) {
  const linpipe::TraceLayout layout{2, 4};
  std::vector<TraceRecord> buffer(layout.records());
  const auto put_header = [&](std::uint32_t slice, linpipe::TraceSliceHeader header) {
    __builtin_memcpy(&buffer[slice * layout.slice_records()], &header, sizeof header);
  };
  // Slice 0: 1000 ticks in 2000 ns (2 ns a tick). Slice 1: anchors too close to trust alone.
  put_header(0, {7, 4, 1, 4, 1000, 500, 3000, 1500});
  put_header(1, {7, 5, 2, 4, 90'000, 10'000, 90'000, 10'000});
  buffer[0 * layout.slice_records() + linpipe::trace_header_records] =
      TraceRecord{700, 3, TraceEvent::acquire, 1, Role::producer, 0};
  buffer[1 * layout.slice_records() + linpipe::trace_header_records] =
      TraceRecord{10'000, 0, TraceEvent::wait_begin, 2, Role::consumer, 0};
  buffer[1 * layout.slice_records() + linpipe::trace_header_records + 1] =
      TraceRecord{10'250, 0, TraceEvent::wait_end, 2, Role::consumer, 0};
  const auto slices = linpipe::read_trace(buffer.data(), layout);
  ASSERT_EQ(slices.size(), 2u);
  ASSERT_EQ(slices[0].events.size(), 1u);
  EXPECT_EQ(slices[0].events[0].ns, 1400u);  // 1000 + (700 - 500) x 2
  EXPECT_EQ(slices[0].events[0].lap, 3u);
  ASSERT_EQ(slices[1].events.size(), 2u);
  EXPECT_EQ(slices[1].events[0].ns, 90'000u);
  EXPECT_EQ(slices[1].events[1].ns, 90'500u);  // 250 ticks at slice 0's rate
  const auto roles = linpipe::summarise_trace(buffer.data(), layout);
  ASSERT_EQ(roles.size(), 2u);
  EXPECT_EQ(roles[1].block, 7u);
  EXPECT_EQ(roles[1].warp, 5u);
  EXPECT_EQ(roles[1].waiting_ns, 500u);
}

}  // namespace
