// Ordered turns on the GPU: consumer warpgroups take turns in a fixed cycle, on named barriers
// (OrderedTurns) and on mbarriers (MbarOrderedTurns, three parties, storage in a SharedPlan,
// each turn's shared-memory writes seen by the next party). Debug builds: a party that stops
// early, a party larger than the barrier's count, a pass without a wait and turns never
// initialised each trap with a report naming the turns, the party and the turn.
import linpipe;

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "gpu_test_support.h"

namespace {

// Reads back `count` words of device memory and frees it.
std::vector<std::uint32_t> take_back(std::uint32_t* device, std::size_t count) {
  std::vector<std::uint32_t> host(count);
  EXPECT_EQ(cudaMemcpy(host.data(), device, count * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(cudaFree(device), cudaSuccess);
  return host;
}

std::uint32_t* device_words(std::size_t count, int fill) {
  std::uint32_t* words = nullptr;
  EXPECT_EQ(cudaMalloc(&words, count * 4), cudaSuccess);
  EXPECT_EQ(cudaMemset(words, fill, count * 4), cudaSuccess);
  return words;
}

// Two consumer warpgroups take turns appending their id to a log, `turns` times each; the
// log's next entry comes from a global atomic, so the order it records is the order the turns
// really ran in.
using TwoGroups = linpipe::WarpRoles<4, 2, 4>;
using NamedTurns = linpipe::OrderedTurns<2, 128>;
__global__ void take_named_turns(std::uint32_t* log, std::uint32_t* next, std::uint32_t turns) {
  const auto me = TwoGroups::this_thread();
  if (me.is_producer()) return;
  const NamedTurns order(me.consumer());
  order.open();
  for (std::uint32_t t = 0; t < turns; ++t) {
    order.wait();
    if (me.thread_in_consumer() == 0) log[atomicAdd(next, 1u)] = me.consumer();
    order.pass_unless_last(t + 1 == turns);
  }
}

TEST(OrderedTurns, NamedBarriersAlternateTwoWarpgroups) {
  LINPIPE_REQUIRE_GPU();
  constexpr std::uint32_t turns = 50;
  std::uint32_t* log = device_words(2 * turns, 0xff);
  std::uint32_t* next = device_words(1, 0);
  const linpipe::LaunchResult launched =
      linpipe::launch(take_named_turns, {.threads = TwoGroups::threads, .items = 1}, log, next, turns);
  ASSERT_TRUE(launched) << launched.why;
  const linpipe::LaunchResult done = linpipe::synchronize();
  ASSERT_TRUE(done) << done.why;
  (void)take_back(next, 1);
  const std::vector<std::uint32_t> back = take_back(log, 2 * turns);
  for (std::uint32_t i = 0; i < back.size(); ++i) EXPECT_EQ(back[i], i % 2) << "entry " << i;
}

// Three warpgroups on mbarriers. In its turn every thread of the party adds one to a counter
// in shared memory: in the cycle's g-th turn overall it must find a value in [128 g, 128 g +
// 127], which holds only if the turns run in order and each party's adds are visible to the
// next. Thread 0 of each party also logs the party, as above.
using ThreeGroups = linpipe::WarpRoles<4, 3, 4>;
using MbarTurns = linpipe::MbarOrderedTurns<3, 128>;
struct TurnShared {
  MbarTurns::Barriers turns;
  std::uint32_t counter;
};
using TurnPlan = linpipe::SharedPlan<TurnShared>;

__global__ void take_mbar_turns(std::uint32_t* log, std::uint32_t* next, std::uint32_t* misordered,
                                std::uint32_t turns) {
  extern __shared__ __align__(16) std::byte smem[];
  TurnShared& shared = TurnPlan::place(smem);
  if (threadIdx.x == 0) {
    MbarTurns::init(shared.turns);
    shared.counter = 0;
  }
  __syncthreads();
  const auto me = ThreeGroups::this_thread();
  if (me.is_producer()) return;
  MbarTurns order(shared.turns, me.consumer(), "three groups");
  for (std::uint32_t t = 0; t < turns; ++t) {
    order.wait();
    const std::uint32_t g = 3 * t + me.consumer();
    const std::uint32_t seen = atomicAdd(&shared.counter, 1u);
    if (seen / 128 != g) atomicAdd(misordered, 1u);
    if (me.thread_in_consumer() == 0) log[atomicAdd(next, 1u)] = me.consumer();
    order.pass();  // every turn passes, the last one too
  }
}

// What take_mbar_turns left: threads that found the counter out of turn, and the log.
struct MbarTurnsRun {
  std::uint32_t misordered = 0;
  std::vector<std::uint32_t> log;
};

MbarTurnsRun run_mbar_turns(std::uint32_t ctas, std::uint32_t turns) {
  std::uint32_t* log = device_words(ctas * 3 * turns, 0xff);
  std::uint32_t* next = device_words(1, 0);
  std::uint32_t* misordered = device_words(1, 0);
  const linpipe::LaunchResult launched = linpipe::launch(
      take_mbar_turns,
      {.threads = ThreeGroups::threads, .shared_bytes = TurnPlan::launch_bytes(), .items = ctas},
      log, next, misordered, turns);
  EXPECT_TRUE(launched) << launched.why;
  const linpipe::LaunchResult done = linpipe::synchronize();
  EXPECT_TRUE(done) << done.why;
  EXPECT_EQ(take_back(next, 1)[0], ctas * 3 * turns) << "every party of every CTA logs each turn";
  return {take_back(misordered, 1)[0], take_back(log, ctas * 3 * turns)};
}

TEST(OrderedTurns, MbarriersCycleThreeWarpgroupsInOrder) {
  LINPIPE_REQUIRE_GPU();
  constexpr std::uint32_t ctas = 4, turns = 40;
  const MbarTurnsRun run = run_mbar_turns(ctas, turns);
  EXPECT_EQ(run.misordered, 0u) << "threads that found the shared counter out of turn";
  // The CTAs share the log, so it interleaves their cycles: count each party's entries.
  std::uint32_t per_party[3] = {};
  for (const std::uint32_t party : run.log) {
    ASSERT_LT(party, 3u);
    ++per_party[party];
  }
  for (const std::uint32_t count : per_party) EXPECT_EQ(count, ctas * turns);
}

// One CTA, so the log is the cycle itself.
TEST(OrderedTurns, MbarriersLogTheCycle) {
  LINPIPE_REQUIRE_GPU();
  const MbarTurnsRun run = run_mbar_turns(1, 40);
  EXPECT_EQ(run.misordered, 0u);
  for (std::uint32_t i = 0; i < run.log.size(); ++i) EXPECT_EQ(run.log[i], i % 3) << "entry " << i;
}

// Misuse, each in a child process (a trap ends the CUDA context):
//   stops_early: party 1 takes 3 turns, party 0 then waits for a fourth pass that never comes;
//   party_too_big: 128-thread parties where the barrier counts 64;
//   pass_unheld: party 1 passes without waiting;
//   no_init: nobody calls init().
template <std::uint32_t ThreadsPerParty>
__global__ void misuse_turns(int which) {
  using Turns = linpipe::MbarOrderedTurns<2, ThreadsPerParty>;
  __shared__ typename Turns::Barriers barriers;
  if (threadIdx.x == 0 && which != 3) Turns::init(barriers);
  __syncthreads();
  const auto me = TwoGroups::this_thread();
  if (me.is_producer()) return;
  Turns order(barriers, me.consumer(), "misused");
  if (which == 2 && me.consumer() == 1) {
    order.pass();
    return;
  }
  const std::uint32_t turns = which == 0 && me.consumer() == 1 ? 3 : 8;
  for (std::uint32_t t = 0; t < turns; ++t) {
    order.wait();
    order.pass();
  }
}

int run_misuse_child(const std::string& which) {
  const int index = which == "stops_early"     ? 0
                    : which == "party_too_big" ? 1
                    : which == "pass_unheld"   ? 2
                                               : 3;
  const linpipe::LaunchResult launched =
      index == 1 ? linpipe::launch(misuse_turns<64>, {.threads = TwoGroups::threads, .items = 1}, index)
                 : linpipe::launch(misuse_turns<128>, {.threads = TwoGroups::threads, .items = 1}, index);
  return trap_child_status(launched, [] { return linpipe::synchronize(); });
}

std::string misuse_output(const std::string& which) {
  const auto [status, output] = run_in_child_process("LINPIPE_TURNS_CHILD", which, "OrderedTurns.Mbar*Traps*");
  EXPECT_EQ(status, 1) << "the kernel should fail with a trap";
  return output;
}

#define LINPIPE_TURNS_CHILD_OR_SKIP()                                                         \
  if (const char* which = std::getenv("LINPIPE_TURNS_CHILD")) std::exit(run_misuse_child(which)); \
  if (!linpipe::debug_checks) GTEST_SKIP() << "built without debug checks (NDEBUG)";          \
  LINPIPE_REQUIRE_GPU()

TEST(OrderedTurns, MbarPartyThatStopsEarlyTrapsWithAHungTurn) {
  LINPIPE_TURNS_CHILD_OR_SKIP();
  const std::string output = misuse_output("stops_early");
  EXPECT_NE(output.find("synchronize says: linpipe: wait for this party's turn exceeded its budget"),
            std::string::npos);
  EXPECT_NE(output.find("ordered turns 'misused'"), std::string::npos);
  EXPECT_NE(output.find("party 0 turn 4"), std::string::npos);
  EXPECT_NE(output.find("(each turn's barrier expects 128 arrivals: one per thread of the party before)"),
            std::string::npos);
}

TEST(OrderedTurns, MbarPartyLargerThanItsCountTrapsAtTheExtraPass) {
  LINPIPE_TURNS_CHILD_OR_SKIP();
  const std::string output = misuse_output("party_too_big");
  EXPECT_NE(output.find("linpipe: more passes into the next party's barrier than one turn expects"),
            std::string::npos);
  EXPECT_NE(output.find("turn 0,"), std::string::npos) << "the first turn already passes too often";
  EXPECT_NE(output.find("expects 64 arrivals"), std::string::npos);
}

TEST(OrderedTurns, MbarPassWithoutWaitTraps) {
  LINPIPE_TURNS_CHILD_OR_SKIP();
  const std::string output = misuse_output("pass_unheld");
  EXPECT_NE(output.find("linpipe: pass() without a wait() for this turn: ordered turns 'misused'"),
            std::string::npos);
  EXPECT_NE(output.find("party 1 turn 0"), std::string::npos);
}

TEST(OrderedTurns, MbarTurnsWithoutInitTraps) {
  LINPIPE_TURNS_CHILD_OR_SKIP();
  const std::string output = misuse_output("no_init");
  EXPECT_NE(output.find("linpipe: turn barriers used before init(): ordered turns 'misused'"),
            std::string::npos);
}

}  // namespace
