// The host-backend demo: one producer thread streams blocks of items through a ring of
// NumStages stages to several consumer threads; each consumer sums its share of every block.
// The checksum proves every item arrived exactly once; items/s shows the protocol's speed.
// With --trace FILE, a second, shorter run is traced (linpipe:trace): its timeline goes to FILE
// as trace-event JSON (open it at ui.perfetto.dev) and its per-role summary is printed.
//
//   host_stream [--trace FILE] [items] [consumers]   (defaults: 50'000'000 items, 2 consumers)
import linpipe;

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int num_stages = 4;
constexpr std::uint32_t block_items = 4096;  // items per stage
using Backend = linpipe::HostBackend<num_stages>;
using Pipeline = linpipe::ProducerConsumerPipeline<num_stages, Backend>;
using TracedPipeline = linpipe::ProducerConsumerPipeline<num_stages, Backend, linpipe::SliceTrace>;
constexpr std::uint64_t traced_items = 200'000;  // the traced run: ~50 blocks, every event kept

struct Ring {
  linpipe::HostSignal signals[linpipe::HostBackend<num_stages>::storage_elems()];
  std::uint64_t blocks[num_stages][block_items];
};

// A cheap, position-dependent value so a lost, repeated or reordered item changes the sum.
std::uint64_t item_value(std::uint64_t i) { return i * 0x9E3779B97F4A7C15ull >> 17; }

// A role's pipeline object: untraced, or traced into its own slice of the trace.
template <class P>
P role_pipeline(Ring& ring, linpipe::TraceBuffer* trace, std::uint32_t slice) {
  if constexpr (P::TracerType::enabled) {
    return P(ring.signals, "host_stream", trace->slice(slice));
  } else {
    return P(ring.signals, "host_stream");
  }
}

template <class P>
void produce(Ring& ring, std::uint64_t items, linpipe::TraceBuffer* trace) {
  P pipe = role_pipeline<P>(ring, trace, 0);
  for (std::uint64_t first = 0; first < items; first += block_items) {
    auto stage = pipe.acquire_producer();
    pipe.mark_issue(stage);
    std::uint64_t* block = ring.blocks[stage.index()];
    for (std::uint32_t k = 0; k < block_items; ++k) {
      block[k] = first + k < items ? item_value(first + k) : 0;
    }
    stage.mbar().arrive();  // publish the block: completes the full barrier's phase
    stage.release();
  }
  pipe.drain();
}

template <class P>
std::uint64_t consume(Ring& ring, std::uint64_t items, std::uint32_t me, std::uint32_t consumers,
                      linpipe::TraceBuffer* trace) {
  P pipe = role_pipeline<P>(ring, trace, 1 + me);
  std::uint64_t sum = 0;
  for (std::uint64_t first = 0; first < items; first += block_items) {
    auto stage = pipe.acquire_consumer();
    const std::uint64_t* block = ring.blocks[stage.index()];
    for (std::uint32_t k = me; k < block_items; k += consumers) sum += block[k];
    stage.release();  // arrive on the empty barrier: the producer may refill this slot
  }
  return sum;
}

// Streams `items` items to `consumers` threads; true if every item arrived exactly once.
template <class P>
bool stream(std::uint64_t items, std::uint32_t consumers, linpipe::TraceBuffer* trace, double* seconds) {
  auto ring = std::make_unique<Ring>();
  P(ring->signals).init_mbars(/*producer_arrive_count=*/1, consumers);
  std::vector<std::uint64_t> sums(consumers);
  const auto start = std::chrono::steady_clock::now();
  {
    std::vector<std::jthread> threads;
    threads.emplace_back([&] { produce<P>(*ring, items, trace); });
    for (std::uint32_t c = 0; c < consumers; ++c) {
      threads.emplace_back([&, c] { sums[c] = consume<P>(*ring, items, c, consumers, trace); });
    }
  }
  *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::uint64_t got = 0, want = 0;
  for (std::uint64_t s : sums) got += s;
  for (std::uint64_t i = 0; i < items; ++i) want += item_value(i);
  std::printf("  checksum %016llx (expected %016llx): %s\n", static_cast<unsigned long long>(got),
              static_cast<unsigned long long>(want), got == want ? "ok" : "MISMATCH");
  return got == want;
}

// The traced run: writes the JSON timeline to `path` and prints the summary.
bool traced_run(const char* path, std::uint32_t consumers) {
  // Per role: about 5 events a block (two for the wait, acquire, issue or not, release).
  const std::uint32_t per_slice = static_cast<std::uint32_t>(traced_items / block_items + 1) * 6 + 64;
  linpipe::TraceBuffer trace(1 + consumers, per_slice);
  double seconds = 0;
  std::printf("host_stream, traced: %llu items, 1 producer + %u consumers\n",
              static_cast<unsigned long long>(traced_items), consumers);
  const bool ok = stream<TracedPipeline>(traced_items, consumers, &trace, &seconds);
  const std::string json = linpipe::trace_to_json(trace.data(), trace.layout(), "host_stream");
  FILE* out = std::fopen(path, "w");
  if (out == nullptr || std::fwrite(json.data(), 1, json.size(), out) != json.size() ||
      std::fclose(out) != 0) {
    std::fprintf(stderr, "host_stream: cannot write the trace to %s\n", path);
    return false;
  }
  std::printf("  trace: %s (%zu bytes; open at https://ui.perfetto.dev)\n%s", path, json.size(),
              linpipe::trace_summary_text(linpipe::summarise_trace(trace.data(), trace.layout())).c_str());
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const char* trace_path = nullptr;
  if (argc > 2 && std::strcmp(argv[1], "--trace") == 0) {
    trace_path = argv[2];
    argc -= 2;
    argv += 2;
  }
  const std::uint64_t items = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 50'000'000ull;
  const std::uint32_t consumers = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 2;
  if (items == 0 || consumers == 0 || consumers > block_items) {
    std::fprintf(stderr, "usage: host_stream [--trace FILE] [items > 0] [consumers in 1..%u]\n",
                 block_items);
    return 2;
  }
  std::printf("host_stream: %llu items, %d stages x %u items, 1 producer + %u consumers\n",
              static_cast<unsigned long long>(items), num_stages, block_items, consumers);
  double seconds = 0;
  bool ok = stream<Pipeline>(items, consumers, nullptr, &seconds);
  std::printf("  %.3f s, %.1f M items/s\n", seconds, items / seconds / 1e6);
  if (trace_path != nullptr) ok = traced_run(trace_path, consumers) && ok;
  return ok ? 0 : 1;
}
