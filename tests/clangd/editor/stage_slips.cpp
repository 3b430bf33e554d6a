// Deliberately wrong (tests/clangd, editor session): what an editor running linpipe-clangd shows.
// The leak on the `continue` path is one error, linpipe-linear-stage's (linpipe-clangd hides
// -Wconsumed's report of the same leak); the second arrival is an error only
// linpipe-stage-protocol gives.
import linpipe;

using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;

int sumOdd(Pipeline &pipe, const int *ring, int count) {
  int sum = 0;
  for (int i = 0; i < count; ++i) {
    auto stage = pipe.acquire_consumer();
    const int value = ring[stage.index()];
    if (value % 2 == 0)
      continue; // leaks `stage`
    sum += value;
    stage.release();
  }
  return sum;
}

void arrivesTwice(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  stage.arrive();
  stage.release(); // release() arrives a second time
}
