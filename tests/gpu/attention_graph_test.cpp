// attention_bf16 launched other ways than one direct launch. Its default configuration
// captured into a CUDA graph on a stream that has never launched it: the dynamic schedule's
// counter is then created inside the capture (global mode, where cudaMalloc and legacy-stream
// memsets are refused). The graph, replayed twice, must write what a direct launch writes, bit
// for bit: each query block is computed the same way whichever CTA claims it. And chains of
// early-started launches (AttentionEarlyStart, below).
#include "attention.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gpu_test_support.h"

namespace {

using linpipe::kernels::AttentionShape;

struct GraphCase {
  int heads, seq, head_dim;
  bool causal;
};

AttentionShape shape_of(const GraphCase& c, int batch) {
  AttentionShape shape;
  shape.batch = batch;
  shape.heads = c.heads;
  shape.seq = c.seq;
  shape.head_dim = c.head_dim;
  shape.causal = c.causal;
  return shape;
}

std::string case_name(const ::testing::TestParamInfo<GraphCase>& info) {
  const GraphCase& c = info.param;
  return "h" + std::to_string(c.heads) + "s" + std::to_string(c.seq) + "d" + std::to_string(c.head_dim) +
         (c.causal ? "Causal" : "Full");
}

class DeviceBytes {
 public:
  explicit DeviceBytes(std::size_t bytes) : bytes_(bytes) { ok_ = cudaMalloc(&data_, bytes) == cudaSuccess; }
  ~DeviceBytes() { (void)cudaFree(data_); }
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
  bool ok() const { return ok_; }
  void* get() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  std::vector<std::uint8_t> read() const {
    std::vector<std::uint8_t> host(bytes_);
    if (cudaMemcpy(host.data(), data_, bytes_, cudaMemcpyDeviceToHost) != cudaSuccess) host.clear();
    return host;
  }

 private:
  void* data_ = nullptr;
  std::size_t bytes_;
  bool ok_ = false;
};

class AttentionGraph : public ::testing::TestWithParam<GraphCase> {};

TEST_P(AttentionGraph, DefaultCapturedOnAFreshStreamMatchesADirectLaunch) {
  LINPIPE_REQUIRE_GPU();
  const GraphCase& c = GetParam();
  const AttentionShape shape = shape_of(c, 1);
  ASSERT_TRUE(linpipe::kernels::attention_config_for(shape).dynamic)
      << "the case must take the dynamic schedule by default, or it does not test the counter";
  const std::size_t elems = static_cast<std::size_t>(c.heads) * c.seq * c.head_dim;
  const std::vector<std::uint16_t> input = random_bf16(3 * elems, 12345);  // Q, K, V
  const DeviceBytes qkv(3 * elems * 2), out(elems * 2), lse(static_cast<std::size_t>(c.heads) * c.seq * 4);
  ASSERT_TRUE(qkv.ok() && out.ok() && lse.ok());
  LINPIPE_CUDA_OK(cudaMemcpy(qkv.get(), input.data(), qkv.bytes(), cudaMemcpyHostToDevice));
  const auto* q = static_cast<const std::uint16_t*>(qkv.get());
  const float scale = 1.0f / 8.0f;
  const char* why = nullptr;

  cudaStream_t direct = nullptr, captured = nullptr;
  LINPIPE_CUDA_OK(cudaStreamCreateWithFlags(&direct, cudaStreamNonBlocking));
  // Blocking: the legacy stream joins its capture, so work the launch put on the legacy stream
  // would break the capture (a non-blocking stream would hide it).
  LINPIPE_CUDA_OK(cudaStreamCreate(&captured));
  LINPIPE_CUDA_OK(cudaMemset(out.get(), 0xff, out.bytes()));
  LINPIPE_CUDA_OK(linpipe::kernels::attention_bf16(q, q + elems, q + 2 * elems, out.get(),
                                                   static_cast<float*>(lse.get()), shape, scale, direct, &why));
  LINPIPE_CUDA_OK(cudaStreamSynchronize(direct));
  const std::vector<std::uint8_t> want_o = out.read(), want_lse = lse.read();

  cudaGraph_t graph = nullptr;
  LINPIPE_CUDA_OK(cudaStreamBeginCapture(captured, cudaStreamCaptureModeGlobal));
  const cudaError_t launched = linpipe::kernels::attention_bf16(
      q, q + elems, q + 2 * elems, out.get(), static_cast<float*>(lse.get()), shape, scale, captured, &why);
  const cudaError_t ended = cudaStreamEndCapture(captured, &graph);
  ASSERT_EQ(launched, cudaSuccess) << "launch inside the capture: " << cudaGetErrorString(launched)
                                   << (why != nullptr ? why : "");
  LINPIPE_CUDA_OK(ended);
  cudaGraphExec_t exec = nullptr;
  LINPIPE_CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 2; ++replay) {  // the second sees the counter the first left
    SCOPED_TRACE(testing::Message() << "replay " << replay);
    LINPIPE_CUDA_OK(cudaMemset(out.get(), 0xff, out.bytes()));
    LINPIPE_CUDA_OK(cudaMemset(lse.get(), 0xff, lse.bytes()));
    LINPIPE_CUDA_OK(cudaGraphLaunch(exec, captured));
    LINPIPE_CUDA_OK(cudaStreamSynchronize(captured));
    EXPECT_TRUE(out.read() == want_o) << "O from the graph differs from the direct launch's";
    EXPECT_TRUE(lse.read() == want_lse) << "LSE from the graph differs from the direct launch's";
  }
  LINPIPE_CUDA_OK(cudaGraphExecDestroy(exec));
  LINPIPE_CUDA_OK(cudaGraphDestroy(graph));
  LINPIPE_CUDA_OK(cudaStreamDestroy(direct));
  LINPIPE_CUDA_OK(cudaStreamDestroy(captured));
}

// Each takes the dynamic schedule by default: two warpgroups at head dim 64 and 128, and three.
INSTANTIATE_TEST_SUITE_P(Defaults, AttentionGraph,
                         ::testing::Values(GraphCase{4, 300, 64, true}, GraphCase{2, 1024, 128, true},
                                           GraphCase{2, 4096, 64, true}),
                         case_name);

// Early start (AttentionConfig::early_start): attention whose Q is the O of the attention just
// before it, each launched to start under the last one's final CTAs (and, with the dynamic
// schedule, claiming from the counter the last one resets as it ends), computes what the same
// chain launched in order computes, bit for bit.
class AttentionEarlyStart : public ::testing::TestWithParam<GraphCase> {};

TEST_P(AttentionEarlyStart, AChainReadingEachOutputMatchesTheChainInOrder) {
  LINPIPE_REQUIRE_GPU();
  const GraphCase& c = GetParam();
  const AttentionShape shape = shape_of(c, 8);
  const std::size_t elems = static_cast<std::size_t>(shape.batch) * c.heads * c.seq * c.head_dim;
  const std::vector<std::uint16_t> input = random_bf16(3 * elems, 777);  // Q, K, V
  const DeviceBytes qkv(3 * elems * 2), first(elems * 2), second(elems * 2),
      lse(static_cast<std::size_t>(shape.batch) * c.heads * c.seq * 4);
  ASSERT_TRUE(qkv.ok() && first.ok() && second.ok() && lse.ok());
  LINPIPE_CUDA_OK(cudaMemcpy(qkv.get(), input.data(), qkv.bytes(), cudaMemcpyHostToDevice));
  const auto* q = static_cast<const std::uint16_t*>(qkv.get());
  const auto* k = q + elems;
  const auto* v = q + 2 * elems;
  const float scale = 1.0f / 8.0f;
  const auto chain = [&](bool early) {
    linpipe::kernels::AttentionConfig config = linpipe::kernels::attention_config_for(shape);
    config.early_start = early;
    LINPIPE_CUDA_OK(cudaMemset(first.get(), 0xff, first.bytes()));
    LINPIPE_CUDA_OK(cudaMemset(second.get(), 0xff, second.bytes()));
    const char* why = nullptr;
    for (int repeat = 0; repeat < 3; ++repeat) {  // O1 = attention(Q), O2 = attention(O1)
      LINPIPE_CUDA_OK(linpipe::kernels::attention_bf16(q, k, v, first.get(), nullptr, shape, scale, config,
                                                       nullptr, &why));
      LINPIPE_CUDA_OK(linpipe::kernels::attention_bf16(first.get(), k, v, second.get(),
                                                       static_cast<float*>(lse.get()), shape, scale, config,
                                                       nullptr, &why));
    }
    LINPIPE_CUDA_OK(cudaDeviceSynchronize());
  };
  ASSERT_NO_FATAL_FAILURE(chain(false));
  const std::vector<std::uint8_t> want_o = second.read(), want_lse = lse.read();
  ASSERT_NO_FATAL_FAILURE(chain(true));
  EXPECT_TRUE(second.read() == want_o) << "O of the early-started chain differs from the chain in order";
  EXPECT_TRUE(lse.read() == want_lse) << "LSE of the early-started chain differs from the chain in order";
}

// The default configurations of a static persistent grid (full, head dim 128), the dynamic one
// (causal) and three warpgroups.
INSTANTIATE_TEST_SUITE_P(Defaults, AttentionEarlyStart,
                         ::testing::Values(GraphCase{16, 1024, 128, false}, GraphCase{16, 1024, 128, true},
                                           GraphCase{32, 2048, 64, false}),
                         case_name);

}  // namespace
