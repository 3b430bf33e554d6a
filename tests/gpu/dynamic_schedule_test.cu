// The dynamic schedule on the GPU: eight CTAs of a warp-specialised block (a producer warp,
// two consumer warpgroups) claim 200 items from one counter. Every item is taken exactly once,
// every thread of a CTA walks exactly its leader's sequence, the counter is back at zero after
// the launch (a second launch on it covers everything again), and a CTA whose leader is slow
// takes fewer items than a static stride would give it.
import linpipe;

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "gpu_test_support.h"

namespace {

using Roles = linpipe::WarpRoles<1, 2, 4>;
using Schedule = linpipe::DynamicWorkSchedule<linpipe::LinearOrder, 3>;
struct Shared {
  Schedule::Shared work;
};
using Plan = linpipe::SharedPlan<Shared>;
constexpr std::uint32_t ctas = 8;
constexpr std::uint32_t items = 200;

// walked[(cta * threads + thread) * items + k]: the k-th position thread `thread` walked;
// walked_count[cta * threads + thread]: how many.
__global__ void walk_items(Schedule schedule, std::uint32_t* walked, std::uint32_t* walked_count,
                           std::uint32_t slow_leader_ns) {
  extern __shared__ __align__(16) std::byte smem[];
  Shared& shared = Plan::place(smem);
  if (threadIdx.x == 0) Schedule::init(shared.work, Roles::threads - 1);
  __syncthreads();
  const auto me = Roles::this_thread();
  const std::uint32_t slot = blockIdx.x * Roles::threads + threadIdx.x;
  std::uint32_t k = 0;
  if (me.is_producer() && me.leader()) {
    for (const linpipe::WorkItem item : schedule.lead(shared.work)) {
      walked[slot * items + k++] = item.position;
      if (blockIdx.x == 0 && slow_leader_ns != 0) __nanosleep(slow_leader_ns);
    }
  } else {
    for (const linpipe::WorkItem item : schedule.follow(shared.work)) walked[slot * items + k++] = item.position;
  }
  walked_count[slot] = k;
}

struct Walks {
  std::vector<std::uint32_t> walked, count;
  std::vector<std::uint32_t> of(std::uint32_t cta, std::uint32_t thread) const {
    const std::uint32_t slot = cta * Roles::threads + thread;
    return {walked.begin() + slot * items, walked.begin() + slot * items + count[slot]};
  }
};

Walks launch_walk(const Schedule& schedule, std::uint32_t slow_leader_ns) {
  const std::size_t slots = ctas * Roles::threads;
  std::uint32_t* walked = nullptr;
  std::uint32_t* count = nullptr;
  EXPECT_EQ(cudaMalloc(&walked, slots * items * 4), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&count, slots * 4), cudaSuccess);
  const linpipe::LaunchResult launched = linpipe::launch(
      walk_items, {.threads = Roles::threads, .shared_bytes = Plan::launch_bytes(), .items = ctas},
      schedule, walked, count, slow_leader_ns);
  EXPECT_TRUE(launched) << launched.why;
  const linpipe::LaunchResult done = linpipe::synchronize();
  EXPECT_TRUE(done) << done.why;
  Walks back{std::vector<std::uint32_t>(slots * items), std::vector<std::uint32_t>(slots)};
  EXPECT_EQ(cudaMemcpy(back.walked.data(), walked, slots * items * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(back.count.data(), count, slots * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(cudaFree(walked), cudaSuccess);
  EXPECT_EQ(cudaFree(count), cudaSuccess);
  return back;
}

// The producer warp's lane 0 leads (WarpRoles' leader()).
void expect_each_item_once_and_every_thread_agrees(const Walks& walks) {
  std::multiset<std::uint32_t> taken;
  for (std::uint32_t cta = 0; cta < ctas; ++cta) {
    const std::vector<std::uint32_t> led = walks.of(cta, 0);
    taken.insert(led.begin(), led.end());
    for (std::uint32_t thread = 1; thread < Roles::threads; ++thread) {
      ASSERT_EQ(walks.of(cta, thread), led) << "CTA " << cta << " thread " << thread << " left its leader's walk";
    }
  }
  ASSERT_EQ(taken.size(), items);
  std::uint32_t expected = 0;
  for (const std::uint32_t position : taken) EXPECT_EQ(position, expected++) << "an item taken twice or skipped";
}

linpipe::WorkCounter read_counter(const linpipe::DeviceWorkCounter& counter) {
  linpipe::WorkCounter host{1, 1};
  EXPECT_EQ(cudaMemcpy(&host, counter.get(), sizeof host, cudaMemcpyDeviceToHost), cudaSuccess);
  return host;
}

TEST(DynamicWorkSchedule, EveryItemOnceEveryThreadWalksTheLeadersSequenceTwice) {
  LINPIPE_REQUIRE_GPU();
  const linpipe::DeviceWorkCounter counter;
  ASSERT_EQ(counter.status(), cudaSuccess);
  const Schedule schedule(linpipe::TileSpace{{items, 1, 1}, {1, 1, 1}}, counter.get());
  for (int launch = 0; launch < 2; ++launch) {
    expect_each_item_once_and_every_thread_agrees(launch_walk(schedule, 0));
    const linpipe::WorkCounter after = read_counter(counter);
    EXPECT_EQ(after.next, 0u) << "launch " << launch << ": the last CTA sets the counter back";
    EXPECT_EQ(after.finished, 0u);
  }
}

TEST(DynamicWorkSchedule, SlowLeaderTakesFewerItemsThanAStaticStride) {
  LINPIPE_REQUIRE_GPU();
  const linpipe::DeviceWorkCounter counter;
  ASSERT_EQ(counter.status(), cudaSuccess);
  const Schedule schedule(linpipe::TileSpace{{items, 1, 1}, {1, 1, 1}}, counter.get());
  const Walks walks = launch_walk(schedule, /*20 us per item=*/20000);
  expect_each_item_once_and_every_thread_agrees(walks);
  EXPECT_LT(walks.of(0, 0).size(), items / ctas) << "a static stride gives each of 8 CTAs 25 items";
}

}  // namespace
