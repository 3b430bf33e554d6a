// A file on its own, as a user would lint it before any build exists: no compile database
// above it, no `--`. linpipe-tidy must resolve `import linpipe;` itself and find the bug.
import linpipe;

using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;

int consume_once(Pipeline& pipe) {
  auto stage = pipe.acquire_consumer();
  const int slot = static_cast<int>(stage.index());
  stage.release();
  stage.release();  // the finding
  return slot;
}
