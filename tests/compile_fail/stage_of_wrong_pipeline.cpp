// A stage type spelled with mismatched template arguments.
// EXPECT: linpipe::ConsumerStage<NumStages, Backend>: Backend was built for a different stage count
import linpipe;
using Pipeline = linpipe::ProducerConsumerPipeline<4, linpipe::HostBackend<4>>;
#ifndef LINPIPE_FIXED
using Stage = linpipe::ConsumerStage<4, linpipe::HostBackend<2>>;
#else
using Stage = Pipeline::ConsumerStageType;
#endif
void take(Stage stage) { stage.release(); }
