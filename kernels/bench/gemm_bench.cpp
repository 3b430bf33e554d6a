// linpipe's bf16 GEMM (C = A x B^T, fp32 accumulation) against cuBLAS (cublasGemmEx) and
// cuBLASLt (the fastest of its heuristic's first 8 algorithms for the shape, each timed) in the
// same process, on the same random inputs: correctness against cuBLAS first (relative Frobenius
// error, every output element written; cuBLASLt's result too), then, after a clock warm-up, the
// median and range over interleaved rounds of batched launches (the anchors and each linpipe
// variant alike), in TFLOP/s, for each variant (one CTA a tile; 2-CTA clusters sharing B
// through TMA multicast; the ping-pong schedule, a 128 x 128 tile per consumer warpgroup), with
// the GPU's SM clock, power and temperature before and after.
// Usage: gemm_bench [--quick | --once] [--shape MxNxK]
//                   [--trace FILE [--trace-roles all|producer|consumers]]
//   --quick: fewer timed rounds. --once: each contender once per shape, unchecked and untimed
//   (for ncu). --trace FILE: instead of the comparison, one traced launch at the shape (default
//   4096^3; its first 2 CTAs) written to FILE as trace-event JSON, with the summary, the traced
//   result checked against the untraced one, and the cost of tracing.
//   --trace-roles: which traced warps record (GemmTraceRoles; default all), to tell one
//   role's tracing cost from another's.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <iterator>
#include <vector>

#include "bench_timing.h"
#include "bench_trace.h"
#include "cublaslt_anchor.h"
#include "gpu_state.h"
#include "gemm.h"
#include "gemm_check.h"

using namespace linpipe::kernels;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

#define CUBLAS_CHECK(call)                                                          \
  do {                                                                              \
    const cublasStatus_t status_ = (call);                                          \
    if (status_ != CUBLAS_STATUS_SUCCESS) {                                         \
      std::fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #call, \
                   static_cast<int>(status_));                                      \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

struct Shape {
  int m, n, k;
};

// C (M x N, row-major) = A (M x K, row-major) x B^T (B: N x K, row-major). In cuBLAS's
// column-major terms that is C^T (N x M) = B^T-as-stored (op T on the K x N column-major B)
// x A (the K x M column-major A): the "TN" GEMM.
cublasStatus_t cublas_gemm(cublasHandle_t handle, const void* a, const void* b, void* c, const Shape& s) {
  const float alpha = 1.0f, beta = 0.0f;
  return cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, s.n, s.m, s.k, &alpha, b, CUDA_R_16BF, s.k,
                      a, CUDA_R_16BF, s.k, &beta, c, CUDA_R_16BF, s.n, CUBLAS_COMPUTE_32F,
                      CUBLAS_GEMM_DEFAULT);
}

// The anchors' library state, shared by every shape: cuBLAS's and cuBLASLt's handles and the
// workspace cuBLASLt's algorithms may use.
struct AnchorLibraries {
  static constexpr std::size_t lt_workspace_bytes = 32u << 20;
  cublasHandle_t handle;
  cublasLtHandle_t lt_handle;
  void* lt_workspace;
  AnchorLibraries() {
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasLtCreate(&lt_handle));
    BENCH_CHECK(cudaMalloc(&lt_workspace, lt_workspace_bytes));
  }
  ~AnchorLibraries() {
    cudaFree(lt_workspace);
    cublasLtDestroy(lt_handle);
    cublasDestroy(handle);
  }
  AnchorLibraries(const AnchorLibraries&) = delete;
  AnchorLibraries& operator=(const AnchorLibraries&) = delete;
};

// --trace-roles' arguments, and how the cost line names each role set.
struct TraceRolesName {
  const char* argument;
  GemmTraceRoles roles;
  const char* description;
};
constexpr TraceRolesName trace_roles_names[] = {
    {"all", GemmTraceRoles::all, "all three traced warps"},
    {"producer", GemmTraceRoles::producer, "the producer's warp"},
    {"consumers", GemmTraceRoles::consumers, "the consumers' warps"},
};

// --trace: a timeline of one launch (the first 2 CTAs) and the cost of tracing every CTA.
int trace_mode(const char* path, Shape s, GemmTraceRoles roles) {
  if (s.m == 0) s = {4096, 4096, 4096};
  void *a, *b, *c, *traced_c;
  const std::size_t c_elems = std::size_t(s.m) * s.n;
  BENCH_CHECK(cudaMalloc(&a, std::size_t(s.m) * s.k * 2));
  BENCH_CHECK(cudaMalloc(&b, std::size_t(s.n) * s.k * 2));
  BENCH_CHECK(cudaMalloc(&c, c_elems * 2));
  BENCH_CHECK(cudaMalloc(&traced_c, c_elems * 2));
  BENCH_CHECK(fill_random_bf16(a, std::size_t(s.m) * s.k, 11));
  BENCH_CHECK(fill_random_bf16(b, std::size_t(s.n) * s.k, 12));
  const GemmConfig config{};
  int ctas = 0;
  BENCH_CHECK(gemm_bf16_grid_ctas(config, &ctas));
  // Per warp: about 4 events a stage (wait begin/end, acquire, release; the producer also an
  // issue mark), a stage per k-step of each of its CTA's tiles.
  const int tiles = (s.m / gemm_tile_m) * (s.n / gemm_tile_n);
  const unsigned per_slice =
      static_cast<unsigned>((tiles + ctas - 1) / ctas) * static_cast<unsigned>(s.k / gemm_tile_k) * 5 + 64;
  const auto traced = [&](void* target, void* buffer, unsigned slices, unsigned records) {
    return gemm_bf16_traced(a, b, target, s.m, s.n, s.k, config, buffer, slices, records, roles);
  };
  char title[96];
  std::snprintf(title, sizeof title, "gemm_bf16 %dx%dx%d, first 2 of %d CTAs", s.m, s.n, s.k, ctas);
  if (!linpipe::bench::write_trace(path, title, 2 * gemm_warps_per_cta, per_slice,
                                   [&](void* buffer, unsigned slices, unsigned records) {
                                     return traced(traced_c, buffer, slices, records);
                                   })) {
    return 1;
  }
  BENCH_CHECK(gemm_bf16(a, b, c, s.m, s.n, s.k, config));
  BENCH_CHECK(cudaDeviceSynchronize());
  Bf16Comparison cmp{};
  BENCH_CHECK(compare_bf16(traced_c, c, c_elems, &cmp));
  std::printf("traced result vs untraced: relative error %.1e, %llu non-finite\n", cmp.relative_error,
              static_cast<unsigned long long>(cmp.non_finite));
  const char* role_names = "";
  for (const TraceRolesName& name : trace_roles_names) {
    if (name.roles == roles) role_names = name.description;
  }
  char what[112];
  std::snprintf(what, sizeof what, "gemm %dx%dx%d, all %d CTAs traced (%s)", s.m, s.n, s.k, ctas,
                role_names);
  linpipe::bench::print_trace_overhead(
      what, [&] { return gemm_bf16(a, b, c, s.m, s.n, s.k, config); },
      static_cast<unsigned>(ctas) * gemm_warps_per_cta, per_slice,
      [&](void* buffer, unsigned slices, unsigned records) { return traced(c, buffer, slices, records); });
  for (void* p : {a, b, c, traced_c}) BENCH_CHECK(cudaFree(p));
  return cmp.relative_error == 0.0 && cmp.non_finite == 0 ? 0 : 1;
}

// linpipe's ping-pong schedule: each consumer warpgroup its own 128 x 128 tile; then in 2-CTA
// clusters sharing B.
constexpr GemmConfig pingpong_config{1, 16, false, false, GemmSchedule::pingpong};
constexpr GemmConfig pingpong_cluster_config{2, 16, false, false, GemmSchedule::pingpong};

// Launches of a contender timed together: enough for about 1.5 TFLOP (at least 3).
int batch_for(double flops) { return std::max(3, static_cast<int>(1.5e12 / flops)); }

// Each contender's milliseconds per launch in each of `rounds` interleaved rounds (so clock and
// thermal drift hit all alike), ms[which][round]: a warm-up of about 0.3 s of launches (clocks
// up), then per round a batch of back-to-back launches of each contender between two events.
template <class Launch>
std::vector<std::vector<double>> interleaved_rounds(Launch&& launch, int contenders, int rounds, double flops) {
  const int warmup = std::max(20, static_cast<int>(2e14 / flops));
  for (int i = 0; i < warmup; ++i) BENCH_CHECK(launch(i % contenders));
  BENCH_CHECK(cudaDeviceSynchronize());
  const int batch = batch_for(flops);
  std::vector<std::vector<double>> ms(contenders);
  cudaEvent_t start, stop;
  BENCH_CHECK(cudaEventCreate(&start));
  BENCH_CHECK(cudaEventCreate(&stop));
  for (int round = 0; round < rounds; ++round) {
    for (int which = 0; which < contenders; ++which) {
      BENCH_CHECK(cudaEventRecord(start));
      for (int i = 0; i < batch; ++i) BENCH_CHECK(launch(which));
      BENCH_CHECK(cudaEventRecord(stop));
      BENCH_CHECK(cudaEventSynchronize(stop));
      float elapsed = 0;
      BENCH_CHECK(cudaEventElapsedTime(&elapsed, start, stop));
      ms[which].push_back(double(elapsed) / batch);
    }
  }
  BENCH_CHECK(cudaEventDestroy(start));
  BENCH_CHECK(cudaEventDestroy(stop));
  return ms;
}

// GemmSplit::stream_k's configurations (one whole wave shared with the last partial one, and
// the last partial wave alone, each also in phase) on one workspace.
struct StreamKConfigs {
  GemmWorkspace workspace;
  GemmConfig shared_wave{}, tail{}, shared_wave_in_phase{}, tail_in_phase{};
  StreamKConfigs() {
    if (workspace.status() != cudaSuccess) {
      std::fprintf(stderr, "gemm_bench: no stream-K workspace: %s\n", cudaGetErrorString(workspace.status()));
      std::exit(1);
    }
    shared_wave = workspace.stream_k();
    tail = shared_wave;
    tail.stream_k_shared_waves = 0;
    shared_wave_in_phase = shared_wave;
    shared_wave_in_phase.stream_k_in_phase = true;
    tail_in_phase = tail;
    tail_in_phase.stream_k_in_phase = true;
  }
};

// --once: every contender once per shape, unchecked and untimed, for a profiler (ncu names the
// kernels cuBLAS and cuBLASLt run per shape, with their grid and cluster shape): cuBLAS,
// linpipe's 1-CTA, 2-CTA and ping-pong (1-CTA, 2-CTA) kernels, stream-K (one wave shared, then the
// tail alone; then both in phase), each algorithm of cuBLASLt's heuristic, then its pick.
int once_mode(const std::vector<Shape>& shapes) {
  const AnchorLibraries libraries;
  const StreamKConfigs stream_k;
  for (const Shape& s : shapes) {
    void *a, *b, *c;
    BENCH_CHECK(cudaMalloc(&a, std::size_t(s.m) * s.k * 2));
    BENCH_CHECK(cudaMalloc(&b, std::size_t(s.n) * s.k * 2));
    BENCH_CHECK(cudaMalloc(&c, std::size_t(s.m) * s.n * 2));
    BENCH_CHECK(fill_random_bf16(a, std::size_t(s.m) * s.k, 21));
    BENCH_CHECK(fill_random_bf16(b, std::size_t(s.n) * s.k, 22));
    CUBLAS_CHECK(cublas_gemm(libraries.handle, a, b, c, s));
    for (const GemmConfig config : {GemmConfig{1}, GemmConfig{2}, pingpong_config, pingpong_cluster_config,
                                    stream_k.shared_wave, stream_k.tail, stream_k.shared_wave_in_phase,
                                    stream_k.tail_in_phase}) {
      BENCH_CHECK(gemm_bf16(a, b, c, s.m, s.n, s.k, config));
    }
    const linpipe::bench::CublasLtAnchor lt(libraries.lt_handle, a, b, c, s.m, s.n, s.k, libraries.lt_workspace,
                                            AnchorLibraries::lt_workspace_bytes, 8, 1, 1);
    if (lt.ok()) BENCH_CHECK(lt.run());
    BENCH_CHECK(cudaDeviceSynchronize());
    std::printf("once %dx%dx%d: cuBLAS, linpipe 1-CTA, 2-CTA, ping-pong 1-CTA and 2-CTA, stream-K and its tail form (then both in phase), "
                "cuBLASLt's %d algorithms, "
                "its pick\n", s.m,
                s.n, s.k, lt.tried());
    for (void* p : {a, b, c}) BENCH_CHECK(cudaFree(p));
  }
  return 0;
}

// --stream-k: GemmSplit::stream_k where a persistent grid's waves are few and uneven (0.24 to
// 3.88 waves of 128 x 256 tiles on 132 SMs), against the cooperative kernel and both anchors,
// each shape checked against cuBLAS, then timed in interleaved rounds; `pick` says which of
// them gemm_bf16 takes, with a GemmWorkspace (gemm_config_for(m, n, k, workspace)) or without a
// config (the same pick, from its stream's own workspace).
int stream_k_mode(int rounds) {
  const std::vector<Shape> shapes = {{1024, 1024, 16384}, {1024, 2048, 8192}, {1792, 2560, 8192},
                                     {2560, 2560, 8192},  {3072, 3072, 4096}, {2816, 4096, 4096},
                                     {4096, 3072, 4096},  {4096, 4096, 4096}};
  const AnchorLibraries libraries;
  const StreamKConfigs stream_k;
  int ctas = 0;
  BENCH_CHECK(gemm_bf16_grid_ctas(GemmConfig{}, &ctas));
  struct Row {
    Shape s;
    double waves, tflops[7];
    int lt_tried;
  };
  std::vector<Row> rows;
  bool ok = true;
  for (const Shape& s : shapes) {
    const std::size_t na = std::size_t(s.m) * s.k, nb = std::size_t(s.n) * s.k, nc = std::size_t(s.m) * s.n;
    void *a, *b, *c, *ref;
    BENCH_CHECK(cudaMalloc(&a, na * 2));
    BENCH_CHECK(cudaMalloc(&b, nb * 2));
    BENCH_CHECK(cudaMalloc(&c, nc * 2));
    BENCH_CHECK(cudaMalloc(&ref, nc * 2));
    BENCH_CHECK(fill_random_bf16(a, na, 31));
    BENCH_CHECK(fill_random_bf16(b, nb, 32));
    CUBLAS_CHECK(cublas_gemm(libraries.handle, a, b, ref, s));
    for (const GemmConfig& config : {GemmConfig{}, stream_k.shared_wave, stream_k.tail, stream_k.shared_wave_in_phase,
                                     stream_k.tail_in_phase}) {
      BENCH_CHECK(poison_bf16(c, nc));
      BENCH_CHECK(gemm_bf16(a, b, c, s.m, s.n, s.k, config));
      BENCH_CHECK(cudaDeviceSynchronize());
      Bf16Comparison cmp{};
      BENCH_CHECK(compare_bf16(c, ref, nc, &cmp));
      const bool good = cmp.non_finite == 0 && cmp.ref_norm > 0 && cmp.relative_error < 1e-2;
      ok = ok && good;
      std::printf("check %5dx%5dx%5d %s%s: rel err %.3e -> %s\n", s.m, s.n, s.k,
                  config.split == GemmSplit::none ? "cooperative" : config.stream_k_shared_waves ? "stream-K" : "stream-K tail",
                  config.stream_k_in_phase ? " in phase" : "", cmp.relative_error, good ? "ok" : "WRONG");
    }
    const double flops = 2.0 * s.m * s.n * double(s.k);
    const linpipe::bench::CublasLtAnchor lt(libraries.lt_handle, a, b, c, s.m, s.n, s.k, libraries.lt_workspace,
                                            AnchorLibraries::lt_workspace_bytes, 8,
                                            std::max(2, static_cast<int>(5e11 / flops)), 3);
    if (!lt.ok()) return 1;
    // cuBLAS, cuBLASLt's best, the cooperative kernel, stream-K, stream-K's tail form, both in phase.
    const auto launch = [&](int which) -> cudaError_t {
      switch (which) {
        case 0: return cublas_gemm(libraries.handle, a, b, ref, s) == CUBLAS_STATUS_SUCCESS ? cudaSuccess
                                                                                            : cudaErrorUnknown;
        case 1: return lt.run();
        case 2: return gemm_bf16(a, b, c, s.m, s.n, s.k, GemmConfig{});
        case 3: return gemm_bf16(a, b, c, s.m, s.n, s.k, stream_k.shared_wave);
        case 4: return gemm_bf16(a, b, c, s.m, s.n, s.k, stream_k.tail);
        case 5: return gemm_bf16(a, b, c, s.m, s.n, s.k, stream_k.shared_wave_in_phase);
        default: return gemm_bf16(a, b, c, s.m, s.n, s.k, stream_k.tail_in_phase);
      }
    };
    constexpr int contenders = 7;
    const std::vector<std::vector<double>> ms = interleaved_rounds(launch, contenders, rounds, flops);
    Row row{s, double(s.m / gemm_tile_m) * (s.n / gemm_tile_n) / ctas, {}, lt.tried()};
    for (int which = 0; which < contenders; ++which) row.tflops[which] = flops / median(ms[which]) / 1e9;
    rows.push_back(row);
    for (void* p : {a, b, c, ref}) BENCH_CHECK(cudaFree(p));
  }
  std::printf("\nstream-K at few waves (waves: 128 x 256 tiles / %d CTAs), TFLOP/s, median of %d interleaved rounds; "
              "tail: stream_k_shared_waves = 0; phase: stream_k_in_phase; /best: of the faster anchor\n"
              "%-16s %6s %7s %9s %7s %8s %6s %8s %6s %6s %6s %6s %6s %6s %6s\n", ctas, rounds, "M x N x K", "waves",
              "cuBLAS", "cuBLASLt", "coop", "stream-K", "tail", "phase", "tail+ph", "coop/b", "sk/b", "tail/b", "ph/b",
              "t+p/b", "pick");
  for (const Row& r : rows) {
    char shape[32];
    std::snprintf(shape, sizeof shape, "%dx%dx%d", r.s.m, r.s.n, r.s.k);
    const double best = std::max(r.tflops[0], r.tflops[1]);
    const GemmConfig pick = gemm_config_for(r.s.m, r.s.n, r.s.k, stream_k.workspace);
    const bool picks_phase = pick.split == GemmSplit::stream_k && pick.stream_k_in_phase && pick.stream_k_shared_waves == 1;
    std::printf("%-16s %6.2f %7.1f %9.1f %7.1f %8.1f %6.1f %8.1f %6.1f %6.3f %6.3f %6.3f %6.3f %6.3f %6s\n", shape,
                r.waves, r.tflops[0], r.tflops[1], r.tflops[2], r.tflops[3], r.tflops[4], r.tflops[5], r.tflops[6],
                r.tflops[2] / best, r.tflops[3] / best, r.tflops[4] / best, r.tflops[5] / best, r.tflops[6] / best,
                picks_phase                        ? "phase"
                : pick.split != GemmSplit::none    ? "other"
                : pick.schedule == GemmSchedule::pingpong ? "pp"
                                                   : "coop");
  }
  std::printf("%s\n", ok ? "all checks passed" : "SOME CHECKS FAILED");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, once = false, split = false;
  Shape only{0, 0, 0};  // --shape MxNxK: that shape alone (after the tiny check shape), e.g. for ncu
  const char* trace_path = nullptr;
  GemmTraceRoles trace_roles = GemmTraceRoles::all;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) {
      quick = true;
    } else if (!std::strcmp(argv[i], "--once")) {
      once = true;
    } else if (!std::strcmp(argv[i], "--stream-k")) {
      split = true;
    } else if (!std::strcmp(argv[i], "--trace") && i + 1 < argc) {
      trace_path = argv[++i];
    } else if (!std::strcmp(argv[i], "--trace-roles") && i + 1 < argc &&
               std::any_of(std::begin(trace_roles_names), std::end(trace_roles_names),
                           [&](const TraceRolesName& name) {
                             if (std::strcmp(name.argument, argv[i + 1]) != 0) return false;
                             trace_roles = name.roles;
                             return true;
                           })) {
      ++i;
    } else if (!std::strcmp(argv[i], "--shape") && i + 1 < argc &&
               std::sscanf(argv[++i], "%dx%dx%d", &only.m, &only.n, &only.k) == 3) {
    } else {
      std::fprintf(stderr,
                   "usage: gemm_bench [--quick | --once | --stream-k] [--shape MxNxK] [--trace FILE [--trace-roles "
                   "all|producer|consumers]]\n");
      return 2;
    }
  }
  if (trace_path != nullptr) return trace_mode(trace_path, only, trace_roles);
  const int rounds = quick ? 5 : 21;
  if (split) return stream_k_mode(rounds);
  std::vector<Shape> shapes = {{256, 256, 64},    {2048, 2048, 2048}, {4096, 4096, 4096},
                               {8192, 8192, 8192}, {8192, 4096, 2048}, {2048, 8192, 8192},
                               {4096, 4096, 1024}, {16384, 1024, 4096}};
  if (only.m > 0) shapes = {shapes.front(), only};
  if (once) return once_mode({shapes.begin() + 1, shapes.end()});  // the tiny shape is for checks
  // Then the default launched early (programmatic dependent launch) and the ping-pong schedule
  // (1-CTA, 2-CTA), checked like the rest.
  // Then the cooperative kernel with its last waves shared by k-steps (GemmSplit::stream_k).
  const StreamKConfigs stream_k;
  const GemmConfig variants[9] = {{1}, {2}, {1, 16, true}, {2, 16, true}, {1, 16, false, true}, pingpong_config,
                                  pingpong_cluster_config, stream_k.shared_wave, stream_k.tail};
  cudaDeviceProp prop{};
  BENCH_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  for (const GemmConfig& config : {variants[0], variants[1], variants[5], variants[6]}) {
    int ctas = 0;
    BENCH_CHECK(gemm_bf16_grid_ctas(config, &ctas));
    std::printf("linpipe cluster %d%s: persistent grid of %d CTAs\n", config.cluster_m,
                config.schedule == GemmSchedule::pingpong ? " ping-pong" : "", ctas);
  }

  std::size_t max_a = 0, max_b = 0, max_c = 0;
  for (const Shape& s : shapes) {
    max_a = std::max(max_a, std::size_t(s.m) * s.k);
    max_b = std::max(max_b, std::size_t(s.n) * s.k);
    max_c = std::max(max_c, std::size_t(s.m) * s.n);
  }
  void *a, *b, *c, *ref;
  BENCH_CHECK(cudaMalloc(&a, max_a * 2));
  BENCH_CHECK(cudaMalloc(&b, max_b * 2));
  BENCH_CHECK(cudaMalloc(&c, max_c * 2));
  BENCH_CHECK(cudaMalloc(&ref, max_c * 2));
  const AnchorLibraries libraries;
  cublasHandle_t handle = libraries.handle;

  struct Row {
    Shape s;
    double cublas_tflops, linpipe_tflops, cluster_tflops, error;
    double ratio_min, ratio_max;  // linpipe / cuBLAS over the rounds
    double group8_tflops, group32_tflops;
    double wg1_tflops, wg2_tflops;  // warpgroup_release: 1-CTA, 2-CTA
    double lt_tflops;
    double early_tflops;  // the default launched early
    double pingpong_tflops, pingpong_cluster_tflops;
    double stream_k_tflops, stream_k_tail_tflops;
    int lt_tried;
    // cuBLAS, cuBLASLt, linpipe, ping-pong, ping-pong 2-CTA: TFLOP/s of their slowest and fastest round
    double low[5], high[5];
    linpipe::bench::GpuState before, after;
  };
  // The default's figure: gemm_config_for's pick, which for every shape that runs here is one
  // of the timed kernels (cooperative 1-CTA, or the ping-pong on one CTA or in 2-CTA clusters).
  struct DefaultPick {
    const char* name;
    double tflops;
  };
  const auto default_pick = [](const Row& r) {
    const GemmConfig pick = gemm_config_for(r.s.m, r.s.n, r.s.k);
    if (pick.schedule == GemmSchedule::pingpong)
      return pick.cluster_m == 2 ? DefaultPick{"ping-pong 2-CTA", r.pingpong_cluster_tflops}
                                 : DefaultPick{"ping-pong", r.pingpong_tflops};
    return pick.cluster_m == 2 ? DefaultPick{"2-CTA", r.cluster_tflops} : DefaultPick{"cooperative", r.linpipe_tflops};
  };
  std::vector<Row> rows;
  bool ok = true;
  std::uint64_t seed = 2026;
  for (const Shape& s : shapes) {
    BENCH_CHECK(fill_random_bf16(a, std::size_t(s.m) * s.k, seed++));
    BENCH_CHECK(fill_random_bf16(b, std::size_t(s.n) * s.k, seed++));
    BENCH_CHECK(poison_bf16(c, std::size_t(s.m) * s.n));
    BENCH_CHECK(poison_bf16(ref, std::size_t(s.m) * s.n));
    CUBLAS_CHECK(cublas_gemm(handle, a, b, ref, s));
    double error = 0;
    bool shape_ok = true, default_ok = true;
    for (const GemmConfig& config : variants) {
      BENCH_CHECK(poison_bf16(c, std::size_t(s.m) * s.n));
      const char* why = nullptr;
      const cudaError_t launched = gemm_bf16(a, b, c, s.m, s.n, s.k, config, nullptr, &why);
      if (launched != cudaSuccess) {
        std::fprintf(stderr, "gemm_bf16 %dx%dx%d cluster %d: %s (%s)\n", s.m, s.n, s.k,
                     config.cluster_m, cudaGetErrorString(launched), why ? why : "-");
        return 1;
      }
      BENCH_CHECK(cudaDeviceSynchronize());
      Bf16Comparison cmp{};
      BENCH_CHECK(compare_bf16(c, ref, std::size_t(s.m) * s.n, &cmp));
      const bool good = cmp.non_finite == 0 && cmp.ref_norm > 0 && cmp.relative_error < 1e-2;
      if (&config == &variants[0]) default_ok = good;  // times the shape if the default is right
      shape_ok = shape_ok && good;
      error = std::max(error, cmp.relative_error);
      std::printf("check %5dx%5dx%5d cluster %d%s%s%s: rel err %.3e (||ref|| %.3e), non-finite %llu -> %s\n",
                  s.m, s.n, s.k, config.cluster_m, config.warpgroup_release ? " wg-release" : "",
                  config.early_start ? " early start" : "",
                  config.schedule == GemmSchedule::pingpong ? " ping-pong"
                  : config.split == GemmSplit::stream_k     ? (config.stream_k_shared_waves ? " stream-K" : " stream-K tail")
                                                            : "",
                  cmp.relative_error, cmp.ref_norm,
                  cmp.non_finite, good ? "ok" : "WRONG");
      std::fflush(stdout);
    }
    ok = ok && shape_ok;
    if (!default_ok || s.m * std::size_t(s.n) < 1000000) continue;  // the tiny shape: check only

    // cuBLASLt: its heuristic's algorithms timed, the fastest checked against cuBLAS.
    const double flops = 2.0 * s.m * s.n * double(s.k);
    const linpipe::bench::CublasLtAnchor lt(libraries.lt_handle, a, b, c, s.m, s.n, s.k, libraries.lt_workspace,
                                            AnchorLibraries::lt_workspace_bytes, 8,
                                            std::max(2, static_cast<int>(5e11 / flops)), 3);
    if (!lt.ok()) {
      std::fprintf(stderr, "cuBLASLt offered no algorithm that runs %dx%dx%d\n", s.m, s.n, s.k);
      return 1;
    }
    BENCH_CHECK(poison_bf16(c, std::size_t(s.m) * s.n));
    BENCH_CHECK(lt.run());
    BENCH_CHECK(cudaDeviceSynchronize());
    Bf16Comparison lt_cmp{};
    BENCH_CHECK(compare_bf16(c, ref, std::size_t(s.m) * s.n, &lt_cmp));
    const bool lt_good = lt_cmp.non_finite == 0 && lt_cmp.relative_error < 1e-2;
    std::printf("check %5dx%5dx%5d cuBLASLt (best of %d algorithms): rel err %.3e vs cuBLAS -> %s\n", s.m, s.n,
                s.k, lt.tried(), lt_cmp.relative_error, lt_good ? "ok" : "WRONG");
    ok = ok && lt_good;
    const linpipe::bench::GpuState before = linpipe::bench::read_gpu_state();

    // Contenders, timed in interleaved rounds (interleaved_rounds).
    const GemmConfig group8{1, 8}, group32{1, 32}, wg1{1, 16, true}, wg2{2, 16, true};
    const auto launch = [&](int which) -> cudaError_t {
      switch (which) {
        case 0: return cublas_gemm(handle, a, b, ref, s) == CUBLAS_STATUS_SUCCESS ? cudaSuccess
                                                                                  : cudaErrorUnknown;
        case 1: return gemm_bf16(a, b, c, s.m, s.n, s.k, variants[0]);
        case 2: return gemm_bf16(a, b, c, s.m, s.n, s.k, variants[1]);
        case 3: return gemm_bf16(a, b, c, s.m, s.n, s.k, group8);
        case 4: return gemm_bf16(a, b, c, s.m, s.n, s.k, group32);
        case 5: return gemm_bf16(a, b, c, s.m, s.n, s.k, wg1);
        case 6: return gemm_bf16(a, b, c, s.m, s.n, s.k, wg2);
        case 7: return lt.run();
        case 8: return gemm_bf16(a, b, c, s.m, s.n, s.k, variants[4]);
        case 9: return gemm_bf16(a, b, c, s.m, s.n, s.k, variants[5]);
        case 10: return gemm_bf16(a, b, c, s.m, s.n, s.k, variants[6]);
        case 11: return gemm_bf16(a, b, c, s.m, s.n, s.k, variants[7]);
        default: return gemm_bf16(a, b, c, s.m, s.n, s.k, variants[8]);
      }
    };
    constexpr int contenders = 13;
    const int batch = batch_for(flops);
    const std::vector<std::vector<double>> ms = interleaved_rounds(launch, contenders, rounds, flops);
    std::vector<double> ratios;
    for (int round = 0; round < rounds; ++round) ratios.push_back(ms[0][round] / ms[1][round]);
    std::sort(ratios.begin(), ratios.end());
    double tflops[contenders];
    for (int which = 0; which < contenders; ++which) tflops[which] = flops / median(ms[which]) / 1e9;
    Row row{s, tflops[0], tflops[1], tflops[2], error, ratios.front(), ratios.back(),
            tflops[3], tflops[4], tflops[5], tflops[6], tflops[7], tflops[8], tflops[9], tflops[10], tflops[11], tflops[12], lt.tried(),
            {}, {}, before, linpipe::bench::read_gpu_state()};
    const int ranged[5] = {0, 7, 1, 9, 10};  // cuBLAS, cuBLASLt, linpipe, ping-pong, ping-pong 2-CTA
    for (int i = 0; i < 5; ++i) {
      const auto [fastest, slowest] = std::minmax_element(ms[ranged[i]].begin(), ms[ranged[i]].end());
      row.low[i] = flops / *slowest / 1e9;
      row.high[i] = flops / *fastest / 1e9;
    }
    rows.push_back(row);
    std::printf("time  %5dx%5dx%5d: cuBLAS %.3f ms, linpipe %.3f ms, 2-CTA %.3f ms, group 8 %.3f ms,"
                " group 32 %.3f ms (%d rounds x %d launches)\n", s.m, s.n, s.k, median(ms[0]),
                median(ms[1]), median(ms[2]), median(ms[3]), median(ms[4]), rounds, batch);
    std::fflush(stdout);
  }
  // Host cost of one call at the tiny shape (enqueue only: no sync inside the timed loop, and
  // 200 launches stay well inside the launch queue): cuBLAS, linpipe with its per-thread map
  // cache hit, and linpipe with every call missing it (9 operand bases cycled through 8 entries).
  const Shape tiny = shapes.front();
  const auto host_us = [&](auto&& call) {
    for (int i = 0; i < 50; ++i) BENCH_CHECK(call(i));
    BENCH_CHECK(cudaDeviceSynchronize());
    constexpr int calls = 200;
    const auto begin = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) BENCH_CHECK(call(i));
    const auto end = std::chrono::steady_clock::now();
    BENCH_CHECK(cudaDeviceSynchronize());
    return std::chrono::duration<double, std::micro>(end - begin).count() / calls;
  };
  const double cublas_host = host_us([&](int) {
    return cublas_gemm(handle, a, b, ref, tiny) == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
  });
  const double linpipe_host =
      host_us([&](int) { return gemm_bf16(a, b, c, tiny.m, tiny.n, tiny.k, variants[0]); });
  const double linpipe_host_miss = host_us([&](int i) {
    const void* shifted = static_cast<const char*>(a) + 64 * (i % 9);
    return gemm_bf16(shifted, b, c, tiny.m, tiny.n, tiny.k, variants[0]);
  });
  BENCH_CHECK(cudaFree(a));
  BENCH_CHECK(cudaFree(b));
  BENCH_CHECK(cudaFree(c));
  BENCH_CHECK(cudaFree(ref));

  std::printf("\nvariants, TFLOP/s: 1-CTA with scheduler group rows 8/16/32; per-warpgroup release"
              " (1-CTA, 2-CTA)\n%-16s %8s %8s %8s %8s %8s\n", "M x N x K", "g8", "g16", "g32",
              "wg 1CTA", "wg 2CTA");
  for (const Row& r : rows) {
    char shape[32];
    std::snprintf(shape, sizeof shape, "%dx%dx%d", r.s.m, r.s.n, r.s.k);
    std::printf("%-16s %8.1f %8.1f %8.1f %8.1f %8.1f\n", shape, r.group8_tflops, r.linpipe_tflops,
                r.group32_tflops, r.wg1_tflops, r.wg2_tflops);
  }
  std::printf("\nTFLOP/s, median of %d interleaved rounds (ratio range: per-round linpipe/cuBLAS)\n"
              "%-16s %7s %7s %6s %13s %7s %6s %8s\n", rounds, "M x N x K", "cuBLAS", "linpipe",
              "ratio", "ratio range", "2-CTA", "ratio", "rel err");
  for (const Row& r : rows) {
    char shape[32];
    std::snprintf(shape, sizeof shape, "%dx%dx%d", r.s.m, r.s.n, r.s.k);
    std::printf("%-16s %7.1f %7.1f %6.3f  %5.3f-%5.3f %7.1f %6.3f %8.1e\n", shape, r.cublas_tflops,
                r.linpipe_tflops, r.linpipe_tflops / r.cublas_tflops, r.ratio_min, r.ratio_max,
                r.cluster_tflops, r.cluster_tflops / r.cublas_tflops, r.error);
  }
  std::printf("\nanchors, TFLOP/s: median [slowest-fastest round] of %d interleaved rounds; linpipe's cooperative "
              "kernel (1-CTA) and its ping-pong schedule (1-CTA, 2-CTA) against the faster anchor, and the default "
              "(gemm_bf16 without a config: gemm_config_for's pick of those three); the GPU (SM clock, power, "
              "temperature) before and after each shape's rounds\n"
              "%-16s %21s %25s %21s %7s %21s %7s %21s %7s %-15s %7s %18s %18s\n", rounds, "M x N x K", "cuBLAS",
              "cuBLASLt (algorithms)", "cooperative", "/best", "ping-pong", "/best", "ping-pong 2-CTA", "/best",
              "default", "/best", "GPU before", "GPU after");
  for (const Row& r : rows) {
    char shape[32], cells[5][48];
    std::snprintf(shape, sizeof shape, "%dx%dx%d", r.s.m, r.s.n, r.s.k);
    const double median_of[5] = {r.cublas_tflops, r.lt_tflops, r.linpipe_tflops, r.pingpong_tflops,
                                 r.pingpong_cluster_tflops};
    for (int i = 0; i < 5; ++i)
      std::snprintf(cells[i], sizeof cells[i], "%.1f [%.1f-%.1f]", median_of[i], r.low[i], r.high[i]);
    const double best_anchor = std::max(r.cublas_tflops, r.lt_tflops);
    const DefaultPick pick = default_pick(r);
    std::printf("%-16s %21s %20s (%2d) %21s %7.3f %21s %7.3f %21s %7.3f %-15s %7.3f %18s %18s\n", shape, cells[0],
                cells[1], r.lt_tried, cells[2], r.linpipe_tflops / best_anchor, cells[3],
                r.pingpong_tflops / best_anchor, cells[4], r.pingpong_cluster_tflops / best_anchor, pick.name,
                pick.tflops / best_anchor, linpipe::bench::describe(r.before).c_str(),
                linpipe::bench::describe(r.after).c_str());
  }
  std::printf("\nearly start (GemmConfig::early_start: each launch's start under the last one's end), TFLOP/s,"
              " median of the same rounds\n%-16s %8s %8s %8s %8s\n", "M x N x K", "linpipe", "early", "ratio",
              "/best");
  for (const Row& r : rows) {
    char shape[32];
    std::snprintf(shape, sizeof shape, "%dx%dx%d", r.s.m, r.s.n, r.s.k);
    std::printf("%-16s %8.1f %8.1f %8.3f %8.3f\n", shape, r.linpipe_tflops, r.early_tflops,
                r.early_tflops / r.linpipe_tflops, r.early_tflops / std::max(r.cublas_tflops, r.lt_tflops));
  }
  // Stream-K: the cooperative kernel's last waves shared by k-steps. `waves`: the grid's waves
  // of whole tiles (tiles / CTAs), whose fraction is the last wave's share of busy SMs.
  int ctas = 0;
  BENCH_CHECK(gemm_bf16_grid_ctas(GemmConfig{}, &ctas));
  std::printf("\nstream-K (GemmSplit::stream_k; `tail`: stream_k_shared_waves = 0, the last partial wave alone) "
              "against the cooperative kernel, TFLOP/s, median of the same rounds"
              "\n%-16s %7s %8s %8s %8s %8s %8s %8s\n", "M x N x K", "waves", "coop", "stream-K", "ratio", "/best",
              "tail", "ratio");
  for (const Row& r : rows) {
    char shape[32];
    std::snprintf(shape, sizeof shape, "%dx%dx%d", r.s.m, r.s.n, r.s.k);
    const double tiles = double(r.s.m / gemm_tile_m) * (r.s.n / gemm_tile_n);
    std::printf("%-16s %7.2f %8.1f %8.1f %8.3f %8.3f %8.1f %8.3f\n", shape, tiles / ctas, r.linpipe_tflops,
                r.stream_k_tflops, r.stream_k_tflops / r.linpipe_tflops,
                r.stream_k_tflops / std::max(r.cublas_tflops, r.lt_tflops), r.stream_k_tail_tflops,
                r.stream_k_tail_tflops / r.linpipe_tflops);
  }
  std::printf("\nhost cost per call at %dx%dx%d, us (enqueue only, mean of 200 calls): cuBLAS %.2f, "
              "linpipe %.2f (tensor maps cached), linpipe %.2f (every call re-encodes them)\n",
              tiny.m, tiny.n, tiny.k, cublas_host, linpipe_host, linpipe_host_miss);
  std::printf("%s\n", ok ? "all checks passed" : "SOME CHECKS FAILED");
  return ok ? 0 : 1;
}
