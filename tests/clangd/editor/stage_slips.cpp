// Deliberately wrong (tests/clangd, editor session): what an editor running linpipe-clangd shows.
// The leak on the `continue` path is an error from the compiler (-Werror=consumed) and a warning
// from linpipe-linear-stage; the second arrival is a warning only linpipe-stage-protocol gives.
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
