// attention_bf16 (kernels/attention_*) against a float32 reference computed here on the host
// from the same bf16 inputs: O and the log-sum-exp, for head dims 64 and 128, with and without
// the causal mask, at sequence lengths that leave a tail in the last query and key tiles (1,
// 127, 129, 300; 1050, where a warpgroup's rows lie past the sequence and it releases the
// block's tiles unread) and whole tiles (256), over several heads, so a tile that runs past one
// head's rows must be masked or left unwritten, and must not read another head's rows (NaN
// there never reaches this head). Every shape runs with all eight kernel configurations
// (in order or overlapped, with or without ping-pong, a CTA per query block or a persistent
// grid of two CTAs), once more on a persistent grid of a CTA per SM, the persistent ones again
// claiming their blocks from a counter, with three consumer warpgroups (head dim 64) or lazy
// rescaling (head dim 128), and with the default configuration.
// Error bounds (inputs uniform in [-1, 1), scale 1 / sqrt(head_dim)): |O - ref| <= 0.01 for
// every element and <= 0.001 on average; |LSE - ref| <= 1e-4 x max(1, |ref|). The kernel's
// algorithm itself (fp32 scores and sums, P and O rounded to bf16), run on the CPU over these
// shapes, stays within 0.0025, 0.0002 and 4e-7: a quarter of each bound or less, while a
// misplaced column or row of a tile costs far more. Rows past the sequence
// are never written: O's guard rows keep their poison. Bad arguments are refused with a
// sentence, before any CUDA call, so those tests run without a GPU. Grouped-query shapes
// (query heads sharing K/V heads, packed into one CTA's rows or not) run the same checks, as
// do inputs whose scores grow along the keys (each tile then rescales O by 2^-4 to 2^-7).
#include "attention.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "gpu_test_support.h"

namespace {

using linpipe::kernels::AttentionShape;

// O and LSE of every (batch, head) slice, in float from the bf16 inputs; query head h reads
// K/V head h / (heads / kv_heads).
void reference(const std::vector<std::uint16_t>& q, const std::vector<std::uint16_t>& k,
               const std::vector<std::uint16_t>& v, const AttentionShape& s, float scale,
               std::vector<float>& o, std::vector<float>& lse) {
  const int d = s.head_dim;
  const int kv_heads = s.kv_heads == 0 ? s.heads : s.kv_heads;
  const int group = s.heads / kv_heads;
  std::vector<float> scores(static_cast<std::size_t>(s.seq));
  for (long long bh = 0; bh < static_cast<long long>(s.batch) * s.heads; ++bh) {
    const std::size_t base = static_cast<std::size_t>(bh) * s.seq;
    const long long kv_plane = bh / s.heads * kv_heads + bh % s.heads / group;
    const std::size_t kv_base = static_cast<std::size_t>(kv_plane) * s.seq;
    for (int i = 0; i < s.seq; ++i) {
      const int keys = s.causal ? i + 1 : s.seq;
      float max = -INFINITY;
      for (int j = 0; j < keys; ++j) {
        float dot = 0.0f;
        for (int c = 0; c < d; ++c)
          dot += bf16_to_float(q[(base + i) * d + c]) * bf16_to_float(k[(kv_base + j) * d + c]);
        scores[j] = dot * scale;
        max = std::max(max, scores[j]);
      }
      double sum = 0.0;
      for (int j = 0; j < keys; ++j) sum += std::exp(static_cast<double>(scores[j] - max));
      for (int c = 0; c < d; ++c) {
        double acc = 0.0;
        for (int j = 0; j < keys; ++j)
          acc += std::exp(static_cast<double>(scores[j] - max)) * bf16_to_float(v[(kv_base + j) * d + c]);
        o[(base + i) * d + c] = static_cast<float>(acc / sum);
      }
      lse[base + i] = max + static_cast<float>(std::log(sum));
    }
  }
}

struct Case {
  int batch, heads, seq, head_dim;
  bool causal;
  int kv_heads = 0;      // 0: as many as query heads
  int packed_heads = 0;  // 0: attention_packed_heads' rule
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  return "b" + std::to_string(c.batch) + "h" + std::to_string(c.heads) +
         (c.kv_heads != 0 ? "kv" + std::to_string(c.kv_heads) : "") + "s" + std::to_string(c.seq) + "d" +
         std::to_string(c.head_dim) + (c.causal ? "Causal" : "Full") +
         (c.packed_heads != 0 ? "Packed" + std::to_string(c.packed_heads) : "");
}

class Attention : public ::testing::TestWithParam<Case> {};

// The kernel configurations: bit 0 overlaps the softmax, bit 1 ping-pongs, bit 2 runs a
// persistent grid of `ctas` CTAs (few, so that each computes several query blocks in turn,
// its pipelines' stages carrying over from one block to the next), bit 3 makes that grid the
// default one CTA per SM, bit 4 makes the persistent CTAs claim their blocks from a counter
// (dynamic; the counter must be back at zero after every launch for the next to see every
// block), bit 5 runs three consumer warpgroups (192-row query blocks; every schedule but the
// overlapped ping-pong, which that blocking does not offer), bit 6 rescales lazily (head dim
// 128 only; every two-warpgroup schedule). Each test runs all of them; a three-warpgroup or
// lazy configuration where the case cannot have one (head dim 128, heads packed; head dim 64)
// must be refused (refused_by_design).
constexpr int three = 32;
constexpr int lazy = 64;
constexpr int configuration_bits[] = {0, 1, 2, 3, 4, 5, 6, 7, 4 | 8, 4 | 16, 5 | 16, 6 | 16, 7 | 16, 4 | 8 | 16,
                                      three, three | 1, three | 2, three | 4, three | 5, three | 6,
                                      three | 4 | 8, three | 4 | 16, three | 5 | 16, three | 6 | 16,
                                      lazy, lazy | 1, lazy | 2, lazy | 3, lazy | 4, lazy | 5, lazy | 6, lazy | 7,
                                      lazy | 4 | 8, lazy | 4 | 16, lazy | 5 | 16, lazy | 6 | 16, lazy | 7 | 16};
linpipe::kernels::AttentionConfig configuration(int bits, int ctas = 2) {
  linpipe::kernels::AttentionConfig config;
  config.overlap_softmax = (bits & 1) != 0;
  config.pingpong = (bits & 2) != 0;
  config.persistent = (bits & 4) != 0;
  config.persistent_ctas = (bits & 8) != 0 ? 0 : ctas;
  config.dynamic = (bits & 16) != 0;
  config.query_warpgroups = (bits & three) != 0 ? 3 : 2;
  config.lazy_rescale = (bits & lazy) != 0;
  return config;
}
// Three query warpgroups run head dim 64 only, one query head a CTA, and lazy rescaling head
// dim 128 only: elsewhere the launch must refuse, naming the option, and compute nothing.
// Returns whether it did (the caller then skips the checks of the output).
bool refused_by_design(const linpipe::kernels::AttentionConfig& config, const AttentionShape& shape) {
  const bool lazy_refused = config.lazy_rescale && shape.head_dim != 128;
  const bool wide_refused =
      config.query_warpgroups == 3 && !(shape.head_dim == 64 && config.packed_heads <= 1);
  if (!lazy_refused && !wide_refused) return false;
  alignas(16) static std::uint16_t host[64];  // never dereferenced: refused before any launch
  const char* why = nullptr;
  EXPECT_EQ(linpipe::kernels::attention_bf16(host, host, host, host, nullptr, shape, 0.1f, config, nullptr, &why),
            cudaErrorInvalidValue);
  const std::string reason = why != nullptr ? why : "";
  EXPECT_NE(reason.find(lazy_refused ? "lazy_rescale" : "query_warpgroups 3"), std::string::npos)
      << "refused with: " << reason;
  return true;
}
std::string describe(const linpipe::kernels::AttentionConfig& config) {
  return std::string(config.overlap_softmax ? "softmax overlapped with the tensor cores" : "one step at a time") +
         (config.pingpong ? ", warpgroups taking turns" : "") +
         (config.persistent ? ", persistent grid of " + (config.persistent_ctas == 0 ? std::string("a CTA per SM")
                                                                                    : std::to_string(config.persistent_ctas))
                            : "") +
         (config.dynamic ? ", blocks claimed from a counter" : "") +
         (config.query_warpgroups == 3 ? ", three query warpgroups" : "") +
         (config.lazy_rescale ? ", lazy rescaling" : "");
}

// Q, K and V copied to the device, O (o_elems bf16) and LSE (lse_elems floats) allocated;
// all freed at scope end. ok() says whether every allocation and copy worked.
class DeviceBuffers {
 public:
  DeviceBuffers(const std::vector<std::uint16_t>& q, const std::vector<std::uint16_t>& k,
                const std::vector<std::uint16_t>& v, std::size_t o_elems, std::size_t lse_elems) {
    ok_ = upload(q, &q_) && upload(k, &k_) && upload(v, &v_) && cudaMalloc(&o_, o_elems * 2) == cudaSuccess &&
          cudaMalloc(&lse_, lse_elems * sizeof(float)) == cudaSuccess;
  }
  ~DeviceBuffers() {
    for (void* p : {q_, k_, v_, o_, static_cast<void*>(lse_)}) (void)cudaFree(p);
  }
  DeviceBuffers(const DeviceBuffers&) = delete;
  DeviceBuffers& operator=(const DeviceBuffers&) = delete;

  bool ok() const { return ok_; }
  void* q() const { return q_; }
  void* k() const { return k_; }
  void* v() const { return v_; }
  void* o() const { return o_; }
  float* lse() const { return lse_; }

 private:
  static bool upload(const std::vector<std::uint16_t>& host, void** device) {
    return cudaMalloc(device, host.size() * 2) == cudaSuccess &&
           cudaMemcpy(*device, host.data(), host.size() * 2, cudaMemcpyHostToDevice) == cudaSuccess;
  }
  void *q_ = nullptr, *k_ = nullptr, *v_ = nullptr, *o_ = nullptr;
  float* lse_ = nullptr;
  bool ok_ = false;
};

// O and LSE against the reference, and nothing written past either.
void expect_matches(const std::vector<std::uint16_t>& out, const std::vector<float>& lse,
                    const std::vector<float>& want, const std::vector<float>& want_lse, const Case& c,
                    std::size_t n, std::size_t rows, std::size_t guard, std::size_t guard_rows);

// Q, K and V elements of a case: Q's rows, then K's and V's (fewer with grouped heads).
std::size_t q_elems(const Case& c) {
  return static_cast<std::size_t>(c.batch) * c.heads * c.seq * c.head_dim;
}
std::size_t kv_elems(const Case& c) { return q_elems(c) / c.heads * (c.kv_heads == 0 ? c.heads : c.kv_heads); }

// Every configuration (and the default) on these inputs, each against the reference.
void expect_every_configuration_matches(const Case& c, const std::vector<std::uint16_t>& q,
                                        const std::vector<std::uint16_t>& k,
                                        const std::vector<std::uint16_t>& v) {
  AttentionShape shape;
  shape.batch = c.batch;
  shape.heads = c.heads;
  shape.seq = c.seq;
  shape.head_dim = c.head_dim;
  shape.causal = c.causal;
  shape.kv_heads = c.kv_heads;
  const float scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim));
  const std::size_t n = q_elems(c), rows = n / c.head_dim;
  constexpr std::size_t guard_rows = 128;  // after O: must stay poisoned
  const std::size_t guard = guard_rows * c.head_dim;

  const DeviceBuffers device(q, k, v, n + guard, rows + guard_rows);
  ASSERT_TRUE(device.ok());
  void *dq = device.q(), *dk = device.k(), *dv = device.v(), *dout = device.o();
  float* dlse = device.lse();
  std::vector<float> want(n), want_lse(rows);
  reference(q, k, v, shape, scale, want, want_lse);

  // Every configuration, then (bits -1) the default: attention_config_for(shape).
  std::vector<int> runs(std::begin(configuration_bits), std::end(configuration_bits));
  runs.push_back(-1);
  for (const int bits : runs) {
    linpipe::kernels::AttentionConfig config = configuration(bits < 0 ? 0 : bits);
    config.packed_heads = c.packed_heads;
    SCOPED_TRACE(bits < 0 ? std::string("the default configuration") : describe(config));
    if (bits >= 0 && refused_by_design(config, shape)) continue;
    LINPIPE_CUDA_OK(cudaMemset(dout, 0xff, (n + guard) * 2));  // bf16 NaN everywhere
    LINPIPE_CUDA_OK(cudaMemset(dlse, 0xff, (rows + guard_rows) * sizeof(float)));
    const char* why = nullptr;
    if (bits < 0) {
      LINPIPE_CUDA_OK(linpipe::kernels::attention_bf16(dq, dk, dv, dout, dlse, shape, scale, nullptr, &why));
    } else {
      LINPIPE_CUDA_OK(linpipe::kernels::attention_bf16(dq, dk, dv, dout, dlse, shape, scale, config, nullptr, &why));
    }
    LINPIPE_CUDA_OK(cudaDeviceSynchronize());
    std::vector<std::uint16_t> out(n + guard);
    std::vector<float> lse(rows + guard_rows);
    LINPIPE_CUDA_OK(cudaMemcpy(out.data(), dout, (n + guard) * 2, cudaMemcpyDeviceToHost));
    LINPIPE_CUDA_OK(cudaMemcpy(lse.data(), dlse, (rows + guard_rows) * sizeof(float), cudaMemcpyDeviceToHost));
    expect_matches(out, lse, want, want_lse, c, n, rows, guard, guard_rows);
  }
}

TEST_P(Attention, MatchesFloatReference) {
  LINPIPE_REQUIRE_GPU();
  const Case& c = GetParam();
  expect_every_configuration_matches(c, random_bf16(q_elems(c), 1), random_bf16(kv_elems(c), 2),
                                     random_bf16(kv_elems(c), 3));
}

void expect_matches(const std::vector<std::uint16_t>& out, const std::vector<float>& lse,
                    const std::vector<float>& want, const std::vector<float>& want_lse, const Case& c,
                    std::size_t n, std::size_t rows, std::size_t guard, std::size_t guard_rows) {
  double worst = 0.0, total = 0.0;
  std::size_t worst_at = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double err = std::fabs(static_cast<double>(bf16_to_float(out[i])) - want[i]);
    if (!(err <= worst)) {  // NaN (an unwritten row) counts as the worst
      worst = std::isnan(err) ? INFINITY : err;
      worst_at = i;
    }
    total += std::isnan(err) ? INFINITY : err;
  }
  EXPECT_LE(worst, 0.01) << "at row " << worst_at / c.head_dim << " column " << worst_at % c.head_dim
                         << ": got " << bf16_to_float(out[worst_at]) << ", want " << want[worst_at];
  EXPECT_LE(total / static_cast<double>(n), 0.001);
  int lse_wrong = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    const bool ok = std::fabs(lse[r] - want_lse[r]) <= 1e-4f * std::max(1.0f, std::fabs(want_lse[r]));
    if (!ok && ++lse_wrong <= 3) ADD_FAILURE() << "LSE row " << r << ": got " << lse[r] << ", want " << want_lse[r];
  }
  EXPECT_EQ(lse_wrong, 0);
  for (std::size_t i = n; i < n + guard; ++i) ASSERT_EQ(out[i], 0xffff) << "O written past its last row";
  for (std::size_t r = rows; r < rows + guard_rows; ++r) {
    std::uint32_t bits;
    std::memcpy(&bits, &lse[r], sizeof bits);
    ASSERT_EQ(bits, 0xffffffffu) << "LSE written past its last row";
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, Attention,
                         ::testing::Values(Case{1, 1, 1, 64, false},     // one key, one query
                                           Case{1, 2, 127, 64, true},    // a tail in every tile
                                           Case{2, 1, 129, 128, false},  // one row into a new tile
                                           Case{1, 3, 256, 128, true},   // whole tiles, diagonal
                                           Case{1, 3, 256, 64, false},
                                           Case{2, 2, 300, 128, true},   // tails and heads
                                           Case{1, 2, 300, 64, false},
                                           Case{1, 2, 300, 64, true},    // 3 blocks a persistent CTA
                                           // A short last block: its last warpgroups' rows lie
                                           // past the sequence, so they skip all but one of
                                           // its 9 tiles (at 64, three warpgroups' first skips
                                           // its block's last tile, which its rows do not see).
                                           Case{1, 2, 1050, 64, true},
                                           Case{1, 1, 1050, 128, false}),
                         case_name);

// Grouped-query and multi-query attention: query heads sharing a K/V head, packed into one
// CTA's 128 rows (2 heads of 64 rows, 4 of 32, 16 of 8: a warpgroup's rows then span several
// heads), or not (a group of 3, or packing turned off), with tails and both masks.
INSTANTIATE_TEST_SUITE_P(GroupedQuery, Attention,
                         ::testing::Values(Case{1, 8, 300, 128, true, 2},      // groups of 4: 4 packed
                                           Case{2, 4, 127, 64, false, 1},      // multi-query
                                           Case{1, 16, 129, 64, true, 1},      // 16 packed, 8 rows each
                                           Case{1, 4, 200, 128, false, 2},     // 2 packed, 64 rows each
                                           Case{1, 6, 200, 128, true, 2},      // groups of 3: unpacked
                                           Case{1, 8, 300, 64, true, 1, 1},    // packing off
                                           Case{2, 8, 257, 128, false, 2, 2}),  // 2 of a group of 4
                         case_name);

// Scores that grow along the keys, so every row's running maximum moves in every tile it
// sees, by 4-7 in log2 units (Q's elements are positive and key j's are scaled by
// 1 + j / 128): each tile multiplies O and the sum by 2^-4 to 2^-7, where the uniform inputs
// above move a maximum by little after the first tile. Run on the CPU on these inputs, the
// kernel's algorithm stays within a quarter of the error bounds (0.0021, 0.0002, 1e-7); with
// O's rescale left out its worst error is 4.1 (uniform inputs: 0.04-0.07).
TEST(AttentionSoftmax, RowMaximaGrowingAcrossTiles) {
  LINPIPE_REQUIRE_GPU();
  const auto positive = [](std::vector<std::uint16_t> x) {  // [-1, 1) -> [0.25, 1)
    for (auto& e : x) e = float_to_bf16(0.625f + 0.375f * bf16_to_float(e));
    return x;
  };
  for (const Case& c : {Case{1, 2, 1024, 64, false}, Case{1, 2, 1024, 128, true}}) {
    SCOPED_TRACE(testing::Message() << "head dim " << c.head_dim << (c.causal ? ", causal" : ", full"));
    const auto q = positive(random_bf16(q_elems(c), 7));
    auto k = positive(random_bf16(kv_elems(c), 8));
    for (std::size_t i = 0; i < k.size(); ++i) {
      const auto key = static_cast<float>(i / c.head_dim % c.seq);
      k[i] = float_to_bf16(bf16_to_float(k[i]) * (1.0f + key / 128.0f));
    }
    expect_every_configuration_matches(c, q, k, random_bf16(kv_elems(c), 9));
  }
}

// A head reads only its own keys and values: with every K and V element of heads 0 and 2
// NaN, head 1's output and LSE stay exact. Its one tile runs past its 100 keys: had the heads
// been one flat range of rows, that tile would read head 2's first rows, and 0 x NaN in P V
// would spoil every row of head 1. A persistent grid of one CTA computes head 0 first, so
// head 1's K and V land in stages that held NaN: the rows past its keys must come as zeros.
TEST(AttentionHeads, NanInAnotherHeadStaysThere) {
  LINPIPE_REQUIRE_GPU();
  AttentionShape shape;
  shape.batch = 1;
  shape.heads = 3;
  shape.seq = 100;
  shape.head_dim = 64;
  const float scale = 0.125f;
  const std::size_t per_head = static_cast<std::size_t>(shape.seq) * shape.head_dim;
  const std::size_t n = 3 * per_head;
  auto q = random_bf16(n, 4), k = random_bf16(n, 5), v = random_bf16(n, 6);
  constexpr std::uint16_t bf16_nan = 0x7fc0;
  for (auto* x : {&k, &v}) {
    std::fill(x->begin(), x->begin() + per_head, bf16_nan);
    std::fill(x->begin() + 2 * per_head, x->end(), bf16_nan);
  }
  const auto head1 = [&](const std::vector<std::uint16_t>& x) {
    return std::vector<std::uint16_t>(x.begin() + per_head, x.begin() + 2 * per_head);
  };
  AttentionShape one_head = shape;
  one_head.heads = 1;
  std::vector<float> want(per_head), want_lse(shape.seq);
  reference(head1(q), head1(k), head1(v), one_head, scale, want, want_lse);

  const DeviceBuffers device(q, k, v, n, 3 * static_cast<std::size_t>(shape.seq));
  ASSERT_TRUE(device.ok());
  void *dq = device.q(), *dk = device.k(), *dv = device.v(), *dout = device.o();
  float* dlse = device.lse();
  for (const int bits : configuration_bits) {
    const linpipe::kernels::AttentionConfig config = configuration(bits, 1);
    SCOPED_TRACE(describe(config));
    if (config.lazy_rescale) {  // head dim 64
      ASSERT_TRUE(refused_by_design(config, shape));
      continue;
    }
    ASSERT_FALSE(refused_by_design(config, shape));
    LINPIPE_CUDA_OK(linpipe::kernels::attention_bf16(dq, dk, dv, dout, dlse, shape, scale, config));
    LINPIPE_CUDA_OK(cudaDeviceSynchronize());
    std::vector<std::uint16_t> out(n);
    std::vector<float> lse(3 * shape.seq);
    LINPIPE_CUDA_OK(cudaMemcpy(out.data(), dout, n * 2, cudaMemcpyDeviceToHost));
    LINPIPE_CUDA_OK(cudaMemcpy(lse.data(), dlse, lse.size() * sizeof(float), cudaMemcpyDeviceToHost));
    // Head 1 only (heads 0 and 2 are NaN, as they should be); no guard rows to check here.
    const std::vector<std::uint16_t> out1 = head1(out);
    const std::vector<float> lse1(lse.begin() + shape.seq, lse.begin() + 2 * shape.seq);
    expect_matches(out1, lse1, want, want_lse, Case{1, 1, shape.seq, shape.head_dim, false}, per_head,
                   static_cast<std::size_t>(shape.seq), 0, 0);
  }
}

// What a caller gets wrong is refused with a sentence, before any CUDA call (no GPU needed).
TEST(AttentionArguments, RefusedWithAReason) {
  alignas(16) static std::uint16_t host[64];  // never dereferenced: refused before any launch
  void* p = host;
  AttentionShape shape;
  shape.seq = 128;
  const auto refusal = [&](AttentionShape s, const void* q, float scale) {
    const char* why = nullptr;
    const cudaError_t status = linpipe::kernels::attention_bf16(q, p, p, p, nullptr, s, scale, nullptr, &why);
    EXPECT_EQ(status, cudaErrorInvalidValue);
    return std::string(why != nullptr ? why : "");
  };
  // The same with a configuration given.
  const auto refusal_with = [&](AttentionShape s, const linpipe::kernels::AttentionConfig& config) {
    const char* why = nullptr;
    EXPECT_EQ(linpipe::kernels::attention_bf16(p, p, p, p, nullptr, s, 0.1f, config, nullptr, &why),
              cudaErrorInvalidValue);
    return std::string(why != nullptr ? why : "");
  };
  AttentionShape odd = shape;
  odd.head_dim = 96;
  EXPECT_EQ(refusal(odd, p, 0.1f), "head_dim must be 64 or 128");
  AttentionShape empty = shape;
  empty.seq = 0;
  EXPECT_EQ(refusal(empty, p, 0.1f), "batch, heads and seq must be at least 1");
  AttentionShape huge = shape;  // 2^31 rows of Q
  huge.batch = 65536;
  huge.heads = 256;
  EXPECT_NE(refusal(huge, p, 0.1f).find("below 2^31 rows"), std::string::npos);
  EXPECT_NE(refusal(shape, nullptr, 0.1f).find("not null"), std::string::npos);
  EXPECT_NE(refusal(shape, static_cast<const char*>(p) + 2, 0.1f).find("16-byte aligned"), std::string::npos);
  EXPECT_NE(refusal(shape, p, 0.0f).find("scale must be positive"), std::string::npos);
  linpipe::kernels::AttentionConfig negative;
  negative.persistent = true;
  negative.persistent_ctas = -1;
  EXPECT_NE(refusal_with(shape, negative).find("persistent_ctas"), std::string::npos);
  linpipe::kernels::AttentionConfig one_shot_dynamic;
  one_shot_dynamic.dynamic = true;
  EXPECT_EQ(refusal_with(shape, one_shot_dynamic), "dynamic claims query blocks on a persistent grid: set persistent too");
  AttentionShape grouped = shape;
  grouped.heads = 8;
  grouped.kv_heads = 3;
  EXPECT_EQ(refusal(grouped, p, 0.1f), "kv_heads must divide heads (0: as many K/V heads as query heads)");
  grouped.kv_heads = 9;
  EXPECT_EQ(refusal(grouped, p, 0.1f), "kv_heads must divide heads (0: as many K/V heads as query heads)");
  grouped.kv_heads = 2;  // groups of 4
  for (const int packed : {3, 8, 32, -2}) {
    linpipe::kernels::AttentionConfig config;
    config.packed_heads = packed;
    EXPECT_EQ(refusal_with(grouped, config), "packed_heads must be 0 or a power of two up to 16 dividing heads / kv_heads")
        << "packed_heads " << packed;
  }
  // Three query warpgroups: head dim 64 only, no overlapped ping-pong, one query head a CTA.
  linpipe::kernels::AttentionConfig wide;
  wide.query_warpgroups = 4;
  EXPECT_EQ(refusal_with(shape, wide), "query_warpgroups must be 2 or 3");
  wide.query_warpgroups = 3;
  EXPECT_NE(refusal_with(shape, wide).find("needs head_dim 64"), std::string::npos);  // shape: head dim 128
  AttentionShape narrow = shape;
  narrow.head_dim = 64;
  wide.overlap_softmax = wide.pingpong = true;
  EXPECT_NE(refusal_with(narrow, wide).find("no overlapped ping-pong"), std::string::npos);
  wide.overlap_softmax = wide.pingpong = false;
  narrow.heads = 8;
  narrow.kv_heads = 2;
  wide.packed_heads = 2;
  EXPECT_NE(refusal_with(narrow, wide).find("one query head per CTA"), std::string::npos);
  // Lazy rescaling: head dim 128 only.
  linpipe::kernels::AttentionConfig lazy_at_64;
  lazy_at_64.lazy_rescale = true;
  EXPECT_NE(refusal_with(narrow, lazy_at_64).find("lazy_rescale is built at head_dim 128 only"), std::string::npos);
}

// The packing rule (AttentionConfig::packed_heads = 0): the largest power of two dividing the
// group, at most 16; 1 without groups.
TEST(AttentionArguments, PackedHeadsRule) {
  const auto packed = [](int heads, int kv_heads) {
    AttentionShape shape;
    shape.heads = heads;
    shape.kv_heads = kv_heads;
    return linpipe::kernels::attention_packed_heads(shape);
  };
  EXPECT_EQ(packed(16, 0), 1);
  EXPECT_EQ(packed(16, 16), 1);
  EXPECT_EQ(packed(32, 8), 4);
  EXPECT_EQ(packed(12, 4), 1);   // groups of 3
  EXPECT_EQ(packed(24, 2), 4);   // groups of 12
  EXPECT_EQ(packed(64, 1), 16);  // multi-query: capped at 16 (8 rows a head)
}

// The default configuration's rule (attention_config_for), as attention.h states it, shape by
// shape: a persistent grid but for head dim 128 causal above seq 8192, which is overlapped and
// lazy on a CTA per block (below: dynamic, in order up to seq 1024, lazy above 2048 up to
// 4096), and head dim 128 with grouped heads
// above seq 4096, which is overlapped ping-pong on a CTA per block (overlapped and persistent
// below); head dim 128 full overlapped at every seq; at head dim 64 overlapped but for the full
// mask below seq 2048, three warpgroups from seq 2048 (full) or at every seq (causal) with a
// K/V head per query head, and with grouped heads at every seq but causal below 2048.
TEST(AttentionArguments, DefaultConfigurationRule) {
  struct RuleCase {
    int head_dim, seq;
    bool causal;
    int kv_heads;  // of 16 query heads
    bool overlap, dynamic;
    int warpgroups;
    bool persistent = true;
    bool pingpong = false;
    bool lazy = false;
  };
  const RuleCase cases[] = {
      {64, 512, false, 16, false, false, 2},   {64, 512, true, 16, true, true, 3},
      {64, 1024, false, 16, false, false, 2},  {64, 1024, true, 16, true, true, 3},
      {64, 2048, false, 16, true, false, 3},   {64, 2048, true, 16, true, true, 3},
      {64, 4096, true, 16, true, true, 3},     {64, 16384, false, 16, true, false, 3},
      {64, 16384, true, 16, true, true, 3},   {64, 4096, false, 2, true, true, 3},
      {64, 4096, true, 1, true, true, 3},      {64, 512, false, 2, true, true, 3},
      {64, 1024, true, 2, true, false, 2},     {64, 2048, true, 4, true, true, 3},
      {128, 512, false, 16, true, false, 2},
      {128, 512, true, 16, false, true, 2},    {128, 1024, false, 16, true, false, 2},
      {128, 1024, true, 16, false, true, 2},   {128, 1024, true, 2, true, false, 2},
      {128, 2048, false, 16, true, false, 2},  {128, 2048, true, 16, true, true, 2},
      {128, 1536, true, 16, true, true, 2},    {128, 2560, true, 16, true, true, 2, true, false, true},
      {128, 4096, true, 16, true, true, 2, true, false, true}, {128, 6144, true, 16, true, true, 2},
      {128, 8192, true, 16, true, true, 2},    {128, 12288, true, 16, true, false, 2, false, false, true},
      {128, 16384, true, 16, true, false, 2, false, false, true}, {128, 4096, true, 2, true, false, 2},
      {128, 8192, true, 2, true, false, 2, false, true}, {128, 3072, false, 16, true, false, 2},
      {128, 4096, false, 16, true, false, 2},  {128, 8192, false, 16, true, false, 2},
      {128, 16384, false, 16, true, false, 2}, {128, 16384, true, 2, true, false, 2, false, true},
      {128, 512, false, 2, true, false, 2},    {128, 512, true, 1, true, false, 2},
      {128, 4096, false, 2, true, false, 2},   {128, 8192, false, 2, true, false, 2, false, true},
      {128, 16384, false, 1, true, false, 2, false, true},
  };
  for (const RuleCase& want : cases) {
    AttentionShape shape;
    shape.heads = 16;
    shape.kv_heads = want.kv_heads;
    shape.head_dim = want.head_dim;
    shape.seq = want.seq;
    shape.causal = want.causal;
    const linpipe::kernels::AttentionConfig c = linpipe::kernels::attention_config_for(shape);
    SCOPED_TRACE(testing::Message() << "head dim " << want.head_dim << " seq " << want.seq << " causal "
                                    << want.causal << " kv heads " << want.kv_heads);
    EXPECT_EQ(c.persistent, want.persistent);
    EXPECT_EQ(c.overlap_softmax, want.overlap);
    EXPECT_EQ(c.dynamic, want.dynamic);
    EXPECT_EQ(c.query_warpgroups, want.warpgroups);
    EXPECT_EQ(c.pingpong, want.pingpong);
    EXPECT_EQ(c.persistent_ctas, 0);
    EXPECT_EQ(c.packed_heads, 0);
    EXPECT_EQ(c.lazy_rescale, want.lazy);
  }
}

// Grouped heads read only their own K/V head: with K/V heads 0 and 2 NaN, the query heads of
// K/V head 1 stay exact, packed or not, in every configuration.
TEST(AttentionHeads, NanInAnotherKvHeadStaysThere) {
  LINPIPE_REQUIRE_GPU();
  AttentionShape shape;
  shape.heads = 12;
  shape.kv_heads = 3;  // groups of 4
  shape.seq = 100;
  shape.head_dim = 64;
  shape.causal = true;
  const float scale = 0.125f;
  const std::size_t per_head = static_cast<std::size_t>(shape.seq) * shape.head_dim;
  const std::size_t n = 12 * per_head, kv_n = 3 * per_head;
  const auto q = random_bf16(n, 7);
  auto k = random_bf16(kv_n, 8), v = random_bf16(kv_n, 9);
  constexpr std::uint16_t bf16_nan = 0x7fc0;
  for (auto* x : {&k, &v}) {
    std::fill(x->begin(), x->begin() + per_head, bf16_nan);
    std::fill(x->begin() + 2 * per_head, x->end(), bf16_nan);
  }
  // The reference for query heads 4-7 alone, against K/V head 1.
  AttentionShape group1 = shape;
  group1.heads = 4;
  group1.kv_heads = 1;
  const std::vector<std::uint16_t> q1(q.begin() + 4 * per_head, q.begin() + 8 * per_head);
  const std::vector<std::uint16_t> k1(k.begin() + per_head, k.begin() + 2 * per_head);
  const std::vector<std::uint16_t> v1(v.begin() + per_head, v.begin() + 2 * per_head);
  std::vector<float> want(4 * per_head), want_lse(4 * static_cast<std::size_t>(shape.seq));
  reference(q1, k1, v1, group1, scale, want, want_lse);

  const DeviceBuffers device(q, k, v, n, 12 * static_cast<std::size_t>(shape.seq));
  ASSERT_TRUE(device.ok());
  void *dq = device.q(), *dk = device.k(), *dv = device.v(), *dout = device.o();
  float* dlse = device.lse();
  for (const int packed : {1, 4}) {
    for (const int bits : configuration_bits) {
      linpipe::kernels::AttentionConfig config = configuration(bits, 1);
      config.packed_heads = packed;
      SCOPED_TRACE(describe(config) + ", " + std::to_string(packed) + " heads packed");
      if (refused_by_design(config, shape)) continue;
      LINPIPE_CUDA_OK(linpipe::kernels::attention_bf16(dq, dk, dv, dout, dlse, shape, scale, config));
      LINPIPE_CUDA_OK(cudaDeviceSynchronize());
      std::vector<std::uint16_t> out(n);
      std::vector<float> lse(12 * static_cast<std::size_t>(shape.seq));
      LINPIPE_CUDA_OK(cudaMemcpy(out.data(), dout, n * 2, cudaMemcpyDeviceToHost));
      LINPIPE_CUDA_OK(cudaMemcpy(lse.data(), dlse, lse.size() * sizeof(float), cudaMemcpyDeviceToHost));
      const std::vector<std::uint16_t> out1(out.begin() + 4 * per_head, out.begin() + 8 * per_head);
      const std::vector<float> lse1(lse.begin() + 4 * shape.seq, lse.begin() + 8 * shape.seq);
      expect_matches(out1, lse1, want, want_lse, Case{1, 4, shape.seq, shape.head_dim, true}, 4 * per_head,
                     4 * static_cast<std::size_t>(shape.seq), 0, 0);
    }
  }
}

}  // namespace
