// Many threads through one ring: one producer, several consumers, at least 10^6 items. Each
// stage carries one item per consumer; every consumer must see its items in order, and every
// item must be seen exactly once. Runs in its own ctest entry, and under ThreadSanitizer in the
// tsan preset.
import linpipe;

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

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

}  // namespace
