// A bare pointer carries no size, so a pipeline built from one could overrun its storage: the
// constructor refuses it and names what to declare.
// EXPECT: build a pipeline from storage whose type carries its size, not a pointer
import linpipe;
#include <memory>

using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;

void make() {
#ifdef LINPIPE_FIXED
  struct Ring {
    Pipeline::Barriers signals;
  };
  auto ring = std::make_unique<Ring>();
  Pipeline(ring->signals).init_mbars(1, 1);
#else
  auto signals = std::make_unique<linpipe::HostSignal[]>(Pipeline::BackendType::storage_elems());
  Pipeline(signals.get()).init_mbars(1, 1);
#endif
}
