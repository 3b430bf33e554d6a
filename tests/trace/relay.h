// The traffic the trace tests record: items handed through a pipeline by a producer role and a
// consumer role, on two threads or taking turns on one. Include after `import linpipe;`.
#pragma once

// The producer's side: each item's stage claimed, its copy marked issued, filled and released;
// then every stage waited back before the role ends.
template <class Pipeline>
void produce_items(Pipeline& pipe, int items) {
  for (int i = 0; i < items; ++i) {
    auto stage = pipe.acquire_producer();
    pipe.mark_issue(stage);
    stage.mbar().arrive();
    stage.release();
  }
  pipe.drain();
}

template <class Pipeline>
void consume_items(Pipeline& pipe, int items) {
  for (int i = 0; i < items; ++i) {
    auto stage = pipe.acquire_consumer();
    stage.release();
  }
}

// One thread playing both roles, an item at a time, so no wait ever blocks (nothing marked
// issued: one record, the acquire, per item and role).
template <class Pipeline>
void relay_in_turns(Pipeline& producer, Pipeline& consumer, int items) {
  for (int i = 0; i < items; ++i) {
    auto made = producer.acquire_producer();
    made.mbar().arrive();
    made.release();
    auto taken = consumer.acquire_consumer();
    taken.release();
  }
}
