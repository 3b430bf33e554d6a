// Downstream C++: items through the host backend between two threads. The standard headers
// come after `import linpipe;` on purpose: a user's file may include anything in any order.
import linpipe;

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

int main() {
  constexpr int stages = 2, items = 1000;
  using Pipeline = linpipe::ProducerConsumerPipeline<stages, linpipe::HostBackend<stages>>;
  struct Ring {
    Pipeline::Barriers signals;
  };
  // Barriers on the heap keep their size in their type too.
  auto barriers = std::make_unique<Ring>();
  auto& signals = barriers->signals;
  Pipeline(signals).init_mbars(1, 1);
  std::vector<int> ring(stages);
  std::vector<int> received;
  std::thread consumer_thread([&] {
    Pipeline consumer(signals, "downstream");
    for (int i = 0; i < items; ++i) {
      auto stage = consumer.acquire_consumer();
      received.push_back(ring[stage.index()]);
      stage.release();
    }
  });
  Pipeline producer(signals, "downstream");
  for (int i = 0; i < items; ++i) {
    auto stage = producer.acquire_producer();
    ring[stage.index()] = i;
    stage.mbar().arrive();
    stage.release();
  }
  producer.drain();
  consumer_thread.join();
  std::vector<int> expected(items);
  std::iota(expected.begin(), expected.end(), 0);
  const bool in_order = std::equal(received.begin(), received.end(), expected.begin(), expected.end());
  std::cout << "downstream_app: received " << received.size() << " items"
            << std::string(in_order ? ", in order" : ", OUT OF ORDER") << "\n";
  return in_order ? 0 : 1;
}
