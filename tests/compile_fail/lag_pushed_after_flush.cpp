// A flushed lag is consumed: pushing into it again is rejected by the typestate layer. (A lag
// never flushed is the linpipe-linear-stage check's to report: for -Wconsumed the lag starts
// 'unknown', so that lags lent to helpers inside loops build; see stage_lag.cppm.)
// EXPECT: invalid invocation of method 'push' on object 'lag' while it is in the 'consumed' state
import linpipe;
using Pipeline = linpipe::ProducerConsumerPipeline<3, linpipe::HostBackend<3>>;

void lagged(Pipeline& pipe, int n) {
  linpipe::StageLag<Pipeline::ConsumerStageType, 2> lag;
  for (int i = 0; i < n; ++i) lag.push(pipe.acquire_consumer());
  lag.flush();
#ifndef LINPIPE_FIXED
  lag.push(pipe.acquire_consumer());
#endif
}
