// Many threads through one ring: one producer, several consumers, at least 10^6 items. Each
// stage carries one item per consumer; every consumer must see its items in order, and every
// item must be seen exactly once. Then the same hand-offs traced through trace rings, each
// drained by a thread of its own: every record and release time arrives. Runs in its own ctest
// entry, and under ThreadSanitizer in the tsan preset.
import linpipe;

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "../trace/claims.h"

namespace {

constexpr int num_stages = 4;
constexpr std::uint32_t consumers = 3;
constexpr std::uint64_t items = 1'200'000;  // >= 10^6, a multiple of `consumers`
static_assert(items % consumers == 0);
using Pipeline = linpipe::ProducerConsumerPipeline<num_stages, linpipe::HostBackend<num_stages>>;

struct Ring {
  linpipe::HostSignal signals[linpipe::HostBackend<num_stages>::storage_elems()];
  std::uint64_t slots[num_stages][consumers];
};

TEST(Stress, EveryItemOnceAndInOrder) {
  auto ring = std::make_unique<Ring>();
  Pipeline(ring->signals).init_mbars(1, consumers);
  auto seen = std::make_unique<std::atomic<std::uint8_t>[]>(items);
  std::vector<std::uint64_t> out_of_order(consumers, 0);

  {
    std::vector<std::jthread> threads;
    threads.emplace_back([&] {
      Pipeline pipe(ring->signals, "stress");
      for (std::uint64_t first = 0; first < items; first += consumers) {
        auto stage = pipe.acquire_producer();
        for (std::uint32_t c = 0; c < consumers; ++c) ring->slots[stage.index()][c] = first + c;
        stage.mbar().arrive();
        stage.release();
      }
      pipe.drain();
    });
    for (std::uint32_t c = 0; c < consumers; ++c) {
      threads.emplace_back([&, c] {
        Pipeline pipe(ring->signals, "stress");
        std::uint64_t expected = c;
        for (std::uint64_t n = 0; n < items / consumers; ++n) {
          auto stage = pipe.acquire_consumer();
          const std::uint64_t item = ring->slots[stage.index()][c];
          stage.release();
          if (item != expected) ++out_of_order[c];
          if (item < items) seen[item].fetch_add(1, std::memory_order_relaxed);
          expected += consumers;
        }
      });
    }
  }

  for (std::uint32_t c = 0; c < consumers; ++c) EXPECT_EQ(out_of_order[c], 0u) << "consumer " << c;
  std::uint64_t missing = 0, repeated = 0;
  for (std::uint64_t i = 0; i < items; ++i) {
    const auto times = seen[i].load();
    missing += times == 0;
    repeated += times > 1;
  }
  EXPECT_EQ(missing, 0u);
  EXPECT_EQ(repeated, 0u);
}

// A producer and a consumer traced through the smallest rings the pipeline accepts, so that the
// roles wait on their drainers all the time: every claim and every release time reaches the
// slices, each release no earlier than its claim.
TEST(Stress, TracedThroughRingsEveryRecordArrives) {
  using TraceRing = linpipe::TraceRing<2, num_stages>;
  using Tracer = linpipe::DrainedTrace<TraceRing>;
  using Traced = linpipe::ProducerConsumerPipeline<num_stages, linpipe::HostBackend<num_stages>, Tracer>;
  constexpr std::uint32_t traced_items = 100'000;
  auto ring = std::make_unique<Ring>();
  Traced(ring->signals).init_mbars(1, 1);
  TraceRing rings[2];
  rings[0].reset(0, 0, 0);
  rings[1].reset(1, 0, 1);
  // Room for every record: an acquire and at most one blocking wait (two records) an item.
  linpipe::TraceBuffer trace(2, 3 * traced_items + 2 * num_stages);
  {
    const linpipe::TraceDrainer drainer(trace.data(), trace.layout());
    std::jthread drain_producer([&] { drainer.drain(rings[0]); });
    std::jthread drain_consumer([&] { drainer.drain(rings[1]); });
    std::jthread producer([&] {
      Traced pipe(ring->signals, "traced stress", Tracer(&rings[0]));
      for (std::uint32_t i = 0; i < traced_items; ++i) {
        auto stage = pipe.acquire_producer();
        stage.mbar().arrive();
        stage.release();
      }
      pipe.drain();
    });
    std::jthread consumer([&] {
      Traced pipe(ring->signals, "traced stress", Tracer(&rings[1]));
      for (std::uint32_t i = 0; i < traced_items; ++i) {
        auto stage = pipe.acquire_consumer();
        stage.release();
      }
    });
  }
  for (const auto& role : linpipe::summarise_trace(trace.data(), trace.layout())) EXPECT_EQ(role.dropped, 0u);
  for (std::uint32_t s = 0; s < 2; ++s) {
    const linpipe::TraceSlice slice = linpipe::read_trace(trace.data(), trace.layout()).at(s);
    // Read back in time order, each release must end a claim of its slot and lap made before it.
    const ClaimCounts claims = count_claims(slice);
    EXPECT_EQ(claims.unmatched, 0u) << "slice " << s << ": releases that end no earlier claim of their slot";
    EXPECT_EQ(claims.acquires, traced_items) << "slice " << s;
    EXPECT_EQ(claims.releases, traced_items) << "slice " << s;
  }
}

}  // namespace
