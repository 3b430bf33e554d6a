// PipelineStorage: one declaration gives a pipeline's payload slots and barriers; and the
// release policies' derived arrive counts match who actually arrives.
import linpipe;

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

namespace {

constexpr int stages = 4;
using Pipeline = linpipe::ProducerConsumerPipeline<stages, linpipe::HostBackend<stages>>;

struct Tile {
  alignas(64) std::uint32_t words[48];  // 192 bytes, 64-byte aligned like a swizzled tile
  std::uint32_t item;
};
using Storage = linpipe::PipelineStorage<Pipeline, Tile>;

TEST(PipelineStorage, SizedFromTheStageCount) {
  EXPECT_EQ(Storage::num_stages, stages);
  EXPECT_EQ(Storage::payload_bytes, sizeof(Tile));
  EXPECT_EQ(sizeof(Storage::barriers) / sizeof(linpipe::HostSignal),
            linpipe::HostBackend<stages>::storage_elems());
  EXPECT_GE(sizeof(Storage), stages * sizeof(Tile) + Pipeline::smem_bytes());
  EXPECT_EQ(Storage::launch_bytes(), sizeof(Storage) + alignof(Storage) - 16)
      << "launch_bytes() covers the storage plus the slack to align a 16-byte aligned buffer";
}

// at() places the storage at the first aligned address, and it ends inside launch_bytes()
// for every misalignment a dynamic shared-memory buffer may have (multiples of 16).
TEST(PipelineStorage, AtAlignsInsideLaunchBytes) {
  auto buffer = std::make_unique<std::byte[]>(Storage::launch_bytes() + 2 * alignof(Storage));
  std::byte* aligned = buffer.get() + (alignof(Storage) - reinterpret_cast<std::uintptr_t>(buffer.get()) %
                                                              alignof(Storage));
  for (std::size_t shift = 0; shift < alignof(Storage); shift += 16) {
    std::byte* raw = aligned + shift;
    Storage& storage = Storage::at(raw);
    const auto* begin = reinterpret_cast<const std::byte*>(&storage);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(begin) % alignof(Tile), 0u) << "shift " << shift;
    EXPECT_GE(begin, raw);
    EXPECT_LE(begin + sizeof(Storage), raw + Storage::launch_bytes()) << "shift " << shift;
    for (int s = 0; s < stages; ++s) {
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(&storage[s]) % alignof(Tile), 0u);
    }
    EXPECT_GE(reinterpret_cast<const std::byte*>(storage.barriers),
              reinterpret_cast<const std::byte*>(&storage[stages - 1]) + sizeof(Tile))
        << "barriers follow the last slot";
  }
}

// The whole protocol over one storage: the producer writes storage[stage], the consumer reads
// the same slot through its own stage, in order, over several laps.
TEST(PipelineStorage, StagesIndexTheirOwnSlots) {
  auto buffer = std::make_unique<std::byte[]>(Storage::launch_bytes());
  Storage& storage = Storage::at(buffer.get());
  for (auto& signal : storage.barriers) std::construct_at(&signal);
  Pipeline(storage.barriers).init_mbars(1, 1);
  Pipeline producer(storage.barriers, "storage");
  Pipeline consumer(storage.barriers, "storage");
  int next = 0;
  for (int lap = 0; lap < 3; ++lap) {
    for (int i = 0; i < stages; ++i) {
      auto stage = producer.acquire_producer();
      storage[stage].item = static_cast<std::uint32_t>(next++);
      EXPECT_EQ(&storage[stage], &storage.ring<0>()[stage.index()]);
      stage.mbar().arrive();
      stage.release();
    }
    for (int i = 0; i < stages; ++i) {
      auto stage = consumer.acquire_consumer();
      EXPECT_EQ(storage[stage].item, static_cast<std::uint32_t>(lap * stages + i));
      stage.release();
    }
  }
  for (auto& signal : storage.barriers) std::destroy_at(&signal);
}

// A ring whose slot size is chosen at launch time: from any 16-byte-aligned start, the
// barriers come first, then NumStages 128-byte-aligned slots of at least the asked size, all
// inside launch_bytes(); each stage writes and reads its own slot, over several laps.
TEST(ByteRing, SlotsSizedAtLaunchTimeStayInsideLaunchBytes) {
  using Ring = linpipe::ByteRing<Pipeline>;
  for (const std::uint32_t slot_bytes : {16u, 1000u * 16, 48u * 1024}) {
    const std::size_t bytes = Ring::launch_bytes(slot_bytes);
    auto buffer = std::make_unique<std::byte[]>(bytes + 2 * Ring::slot_alignment);
    std::byte* line = buffer.get() + (Ring::slot_alignment -
                                      reinterpret_cast<std::uintptr_t>(buffer.get()) % Ring::slot_alignment);
    for (std::size_t shift = 0; shift < Ring::slot_alignment; shift += 16) {
      SCOPED_TRACE(::testing::Message() << "slot bytes " << slot_bytes << " shift " << shift);
      std::byte* raw = line + shift;
      const Ring ring = Ring::place(raw, slot_bytes);
      auto& barriers = ring.barriers();
      EXPECT_GE(reinterpret_cast<std::byte*>(&barriers), raw);
      for (auto& signal : barriers) std::construct_at(&signal);
      Pipeline(barriers).init_mbars(1, 1);
      Pipeline producer(barriers, "byte ring");
      Pipeline consumer(barriers, "byte ring");
      std::vector<std::byte*> slots;
      for (int lap = 0; lap < 2; ++lap) {
        for (int i = 0; i < stages; ++i) {
          auto stage = producer.acquire_producer();
          std::byte* slot = ring.slot(stage);
          EXPECT_EQ(reinterpret_cast<std::uintptr_t>(slot) % Ring::slot_alignment, 0u);
          EXPECT_GE(slot, reinterpret_cast<std::byte*>(&barriers + 1)) << "slots follow the barriers";
          EXPECT_LE(slot + slot_bytes, raw + bytes);
          if (lap == 0) slots.push_back(slot);
          std::memset(slot, lap * stages + i, slot_bytes);
          stage.mbar().arrive();
          stage.release();
        }
        for (int i = 0; i < stages; ++i) {
          auto stage = consumer.acquire_consumer();
          const std::byte* slot = ring.slot(stage);
          EXPECT_EQ(slot, slots[static_cast<std::size_t>(i)]);
          EXPECT_EQ(slot[0], std::byte(lap * stages + i));
          EXPECT_EQ(slot[slot_bytes - 1], std::byte(lap * stages + i)) << "no slot overlaps the next";
          stage.release();
        }
      }
      for (auto& signal : barriers) std::destroy_at(&signal);
    }
  }
}

// Several tile types: one ring each, in the order given, then the barriers; a stage's slot in
// each ring is the one its index names, by type or by position.
struct TileA {
  alignas(128) std::uint16_t elems[64 * 16];
};
struct TileB {
  alignas(256) std::uint16_t elems[128 * 16];
};
using TwoRings = linpipe::PipelineStorage<Pipeline, TileA, TileB>;

TEST(PipelineStorage, OneRingPerTileType) {
  EXPECT_EQ(TwoRings::payload_bytes, sizeof(TileA) + sizeof(TileB));
  EXPECT_EQ(TwoRings::payload_bytes, (linpipe::tx_bytes<TileA, TileB>));
  auto buffer = std::make_unique<std::byte[]>(TwoRings::launch_bytes());
  TwoRings& storage = TwoRings::at(buffer.get());
  const auto* a = reinterpret_cast<const std::byte*>(&storage.ring<TileA>());
  const auto* b = reinterpret_cast<const std::byte*>(&storage.ring<1>());
  EXPECT_EQ(a, reinterpret_cast<const std::byte*>(&storage)) << "the first ring starts the storage";
  EXPECT_EQ(b, a + stages * sizeof(TileA)) << "ring B follows all of ring A";
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b) % alignof(TileB), 0u);
  EXPECT_GE(reinterpret_cast<const std::byte*>(storage.barriers), b + stages * sizeof(TileB));
  EXPECT_LE(reinterpret_cast<const std::byte*>(storage.barriers + Pipeline::BackendType::storage_elems()),
            buffer.get() + TwoRings::launch_bytes());

  for (auto& signal : storage.barriers) std::construct_at(&signal);
  Pipeline(storage.barriers).init_mbars(1, 1);
  Pipeline producer(storage.barriers, "two rings");
  for (int i = 0; i < stages; ++i) {
    auto stage = producer.acquire_producer();
    EXPECT_EQ(&storage.slot<TileA>(stage), &storage.ring<0>()[i]);
    EXPECT_EQ(&storage.slot<1>(stage), &storage.ring<TileB>()[i]);
    stage.mbar().arrive();
    stage.release();
  }
  for (auto& signal : storage.barriers) std::destroy_at(&signal);
}

TEST(ReleasePolicies, ArriveCountsFollowWhoArrives) {
  EXPECT_EQ(linpipe::ReleaseStage::empty_arrive_count(3), 3u);
  EXPECT_EQ(linpipe::ReleaseToCluster<1>::empty_arrive_count(8), 8u);
  EXPECT_EQ(linpipe::ReleaseToCluster<2>::empty_arrive_count(8), 16u);
  EXPECT_EQ(linpipe::ReleaseToCluster<4>::empty_arrive_count(2), 8u);
}

// ReleaseToCluster<1> on whole warps (each lane a consumer holding the stage): lane 0 of each
// signalling warp arrives, the others only end their claims, so a ring initialised with the
// derived count frees the slot exactly when the last signalling warp has released it.
TEST(ReleasePolicies, LaneGuardedReleaseFreesTheSlotAfterEverySignallingWarp) {
  constexpr int warps = 2, lanes = 32;
  linpipe::HostSignal signals[Pipeline::BackendType::storage_elems()];
  Pipeline(signals).init_mbars(1, linpipe::ReleaseToCluster<1>::empty_arrive_count(warps));
  Pipeline producer(signals, "warps");
  std::vector<std::unique_ptr<Pipeline>> consumers;
  for (int t = 0; t < warps * lanes; ++t) consumers.push_back(std::make_unique<Pipeline>(signals, "warps"));

  for (int i = 0; i < stages; ++i) {  // fill the ring: the producer is back at slot 0
    auto stage = producer.acquire_producer();
    stage.mbar().arrive();
    stage.release();
  }
  for (int warp = 0; warp < warps; ++warp) {
    for (int lane = 0; lane < lanes; ++lane) {
      const linpipe::ReleaseToCluster<1> release{static_cast<std::uint32_t>(lane), true};
      release(consumers[warp * lanes + lane]->acquire_consumer());
    }
    EXPECT_EQ(static_cast<bool>(producer.try_wait_producer()), warp == warps - 1)
        << "slot 0 must be free after the last signalling warp, not before (warp " << warp << ")";
  }
}

// A non-signalling warp ends its claims without arriving: with one signalling warp counted,
// the slot frees after that warp alone, whatever the other warp does.
TEST(ReleasePolicies, NonSignallingWarpDoesNotArrive) {
  constexpr int lanes = 32;
  linpipe::HostSignal signals[Pipeline::BackendType::storage_elems()];
  Pipeline(signals).init_mbars(1, linpipe::ReleaseToCluster<1>::empty_arrive_count(1));
  Pipeline producer(signals, "warps");
  for (int i = 0; i < stages; ++i) {
    auto stage = producer.acquire_producer();
    stage.mbar().arrive();
    stage.release();
  }
  std::vector<std::unique_ptr<Pipeline>> consumers;
  for (int t = 0; t < 2 * lanes; ++t) consumers.push_back(std::make_unique<Pipeline>(signals, "warps"));
  for (int lane = 0; lane < lanes; ++lane) {
    const linpipe::ReleaseToCluster<1> silent{static_cast<std::uint32_t>(lane), false};
    silent(consumers[lanes + lane]->acquire_consumer());
  }
  EXPECT_FALSE(static_cast<bool>(producer.try_wait_producer())) << "a silent warp arrived";
  for (int lane = 0; lane < lanes; ++lane) {
    const linpipe::ReleaseToCluster<1> signalling{static_cast<std::uint32_t>(lane), true};
    signalling(consumers[lane]->acquire_consumer());
  }
  EXPECT_TRUE(static_cast<bool>(producer.try_wait_producer()));
}

}  // namespace
