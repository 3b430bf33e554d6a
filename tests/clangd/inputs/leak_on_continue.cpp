// Deliberately wrong (tests/clangd): a `continue` skips the release, so the stage leaks on every
// skipped iteration. clang's typestate analysis (-Werror=consumed in the compile command) flags
// the implicit destructor call; stock clangd-22 --check must report it.
import linpipe;
using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;

int sum_odd(Pipeline &pipe, const int *ring, int count) {
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
