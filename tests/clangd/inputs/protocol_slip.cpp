// Deliberately wrong (tests/clangd) in a way only the linpipe checks see: the typestate layer
// accepts both functions (each stage is released exactly once), the clang-tidy checks do not.
// linpipe-clangd --check must report both findings.
import linpipe;

#include <utility>
#include <vector>

using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;
using ConsumerStage = Pipeline::ConsumerStageType;

void arrivesTwice(Pipeline &pipe) {
  auto stage = pipe.acquire_consumer();
  stage.arrive();
  stage.release(); // linpipe-stage-protocol: release() arrives a second time
}

void escapesIntoVector(Pipeline &pipe, std::vector<ConsumerStage> &parked) {
  auto stage = pipe.acquire_consumer();
  parked.push_back(std::move(stage)); // linpipe-linear-stage: escapes into a container
}
