// The host-backend demo: one producer thread streams blocks of items through a ring of
// NumStages stages to several consumer threads; each consumer sums its share of every block.
// The checksum proves every item arrived exactly once; items/s shows the protocol's speed.
//
//   host_stream [items] [consumers]      (defaults: 50'000'000 items, 2 consumers)
import linpipe;

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

namespace {

constexpr int num_stages = 4;
constexpr std::uint32_t block_items = 4096;  // items per stage
using Pipeline = linpipe::ProducerConsumerPipeline<num_stages, linpipe::HostBackend<num_stages>>;

struct Ring {
  linpipe::HostSignal signals[linpipe::HostBackend<num_stages>::storage_elems()];
  std::uint64_t blocks[num_stages][block_items];
};

// A cheap, position-dependent value so a lost, repeated or reordered item changes the sum.
std::uint64_t item_value(std::uint64_t i) { return i * 0x9E3779B97F4A7C15ull >> 17; }

void produce(Ring& ring, std::uint64_t items) {
  Pipeline pipe(ring.signals, "host_stream");
  for (std::uint64_t first = 0; first < items; first += block_items) {
    auto stage = pipe.acquire_producer();
    std::uint64_t* block = ring.blocks[stage.index()];
    for (std::uint32_t k = 0; k < block_items; ++k) {
      block[k] = first + k < items ? item_value(first + k) : 0;
    }
    stage.mbar().arrive();  // publish the block: completes the full barrier's phase
    stage.release();
  }
  pipe.drain();
}

std::uint64_t consume(Ring& ring, std::uint64_t items, std::uint32_t me, std::uint32_t consumers) {
  Pipeline pipe(ring.signals, "host_stream");
  std::uint64_t sum = 0;
  for (std::uint64_t first = 0; first < items; first += block_items) {
    auto stage = pipe.acquire_consumer();
    const std::uint64_t* block = ring.blocks[stage.index()];
    for (std::uint32_t k = me; k < block_items; k += consumers) sum += block[k];
    stage.release();  // arrive on the empty barrier: the producer may refill this slot
  }
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t items = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 50'000'000ull;
  const std::uint32_t consumers = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 2;
  if (items == 0 || consumers == 0 || consumers > block_items) {
    std::fprintf(stderr, "usage: host_stream [items > 0] [consumers in 1..%u]\n", block_items);
    return 2;
  }

  auto ring = std::make_unique<Ring>();
  Pipeline(ring->signals).init_mbars(/*producer_arrive_count=*/1, consumers);

  std::vector<std::uint64_t> sums(consumers);
  const auto start = std::chrono::steady_clock::now();
  {
    std::vector<std::jthread> threads;
    threads.emplace_back([&] { produce(*ring, items); });
    for (std::uint32_t c = 0; c < consumers; ++c) {
      threads.emplace_back([&, c] { sums[c] = consume(*ring, items, c, consumers); });
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::uint64_t got = 0, want = 0;
  for (std::uint64_t s : sums) got += s;
  for (std::uint64_t i = 0; i < items; ++i) want += item_value(i);

  std::printf("host_stream: %llu items, %d stages x %u items, 1 producer + %u consumers\n",
              static_cast<unsigned long long>(items), num_stages, block_items, consumers);
  std::printf("  checksum %016llx (expected %016llx): %s\n", static_cast<unsigned long long>(got),
              static_cast<unsigned long long>(want), got == want ? "ok" : "MISMATCH");
  std::printf("  %.3f s, %.1f M items/s\n", seconds, items / seconds / 1e6);
  return got == want ? 0 : 1;
}
