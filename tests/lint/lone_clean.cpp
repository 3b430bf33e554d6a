// A correct file, for `linpipe-tidy --summary FILE --` (no compile flags after `--`): the run
// must parse it as C++20 (`import`) and say in one line that it ran and found nothing.
import linpipe;

using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;

void consume(Pipeline& pipe) {
  auto stage = pipe.acquire_consumer();
  stage.release();
}
