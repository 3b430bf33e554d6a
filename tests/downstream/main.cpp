// Downstream C++: one hand-off through the host backend.
import linpipe;

#include <cstdio>

int main() {
  using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;
  linpipe::HostSignal signals[linpipe::HostBackend<2>::storage_elems()];
  Pipeline(signals).init_mbars(1, 1);
  Pipeline producer(signals, "downstream");
  Pipeline consumer(signals, "downstream");
  int ring[2] = {};
  {
    auto stage = producer.acquire_producer();
    ring[stage.index()] = 7;
    stage.mbar().arrive();
    stage.release();
  }
  auto stage = consumer.acquire_consumer();
  const int value = ring[stage.index()];
  stage.release();
  std::printf("downstream_app: received %d\n", value);
  return value == 7 ? 0 : 1;
}
