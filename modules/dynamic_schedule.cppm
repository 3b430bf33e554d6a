// linpipe:dynamic_schedule — a persistent schedule whose CTAs claim their next work item from a
// counter in global memory as they go, so a CTA that drew short items takes more of them (work
// of uneven length, or SMs shared with another kernel).
//
// One thread of each CTA, the leader (the producer's elected lane), claims; every other thread
// that walks the items follows it through a small ring in shared memory, itself a linpipe
// pipeline: the leader publishes each position it claims, the followers read the same positions
// in the same order. So, as with WorkSchedule, the roles of a CTA cannot disagree: they read one
// sequence. The walk ends, for leader and followers alike, at the first position past the end.
//
// The counter (WorkCounter: the next position and the CTAs done claiming) needs no reset by
// the host between launches: the last CTA to finish claiming sets it back to zero. Start it at
// zero (DeviceWorkCounter allocates one so on the host; linpipe::stream_scratch keeps one per
// stream, and may be asked inside a graph capture) and give each launch that may run at the
// same time as another its own.
//
//   using Schedule = linpipe::DynamicWorkSchedule<linpipe::LongestFirstOrder>;
//   struct Shared { Schedule::Shared work; ... };                  // in the kernel's SharedPlan
//   if (threadIdx.x == 0) Schedule::init(shared.work, Roles::threads - 1);   // all but the leader
//   __syncthreads();
//   if (me.is_producer() && me.leader()) for (WorkItem item : schedule.lead(shared.work)) ...
//   else                                 for (WorkItem item : schedule.follow(shared.work)) ...
module;
#include "linpipe_macros.h"
#include <atomic>
#include <cstdint>
#if defined(__CUDA__)
// After the standard headers: linpipe_cuda_attributes.h says why.
#include <cuda_runtime_api.h>
#endif
export module linpipe:dynamic_schedule;
import :pipeline;
import :stage;
import :work_schedule;

export namespace linpipe {

// The per-launch state of a dynamic schedule, in memory every CTA reaches (global memory on the
// GPU). Both words start at zero; the launch leaves them at zero.
struct WorkCounter {
  std::uint32_t next;      // the next position to hand out
  std::uint32_t finished;  // CTAs whose leader has claimed past the end
};

#if defined(__CUDA__)
// A WorkCounter in device memory, zeroed, for the launches of one stream (a launch leaves it
// at zero for the next). status() says whether the allocation worked.
class DeviceWorkCounter {
 public:
  inline DeviceWorkCounter() {
    status_ = cudaMalloc(reinterpret_cast<void**>(&counter_), sizeof(WorkCounter));
    if (status_ == cudaSuccess) status_ = cudaMemset(counter_, 0, sizeof(WorkCounter));
  }
  inline ~DeviceWorkCounter() {
    if (counter_ != nullptr) (void)cudaFree(counter_);
  }
  DeviceWorkCounter(const DeviceWorkCounter&) = delete;
  DeviceWorkCounter& operator=(const DeviceWorkCounter&) = delete;

  inline cudaError_t status() const { return status_; }
  inline WorkCounter* get() const { return counter_; }

 private:
  WorkCounter* counter_ = nullptr;
  cudaError_t status_ = cudaSuccess;
};
#endif

}  // namespace linpipe

namespace linpipe::detail {

// atomicAdd on a word every CTA (or host thread) shares; returns the old value.
LINPIPE_HOST_DEVICE inline std::uint32_t fetch_add(std::uint32_t& word, std::uint32_t n) {
#if defined(__CUDA_ARCH__)
  const int old = __nvvm_atom_add_gen_i(reinterpret_cast<int*>(&word), static_cast<int>(n));
  return static_cast<std::uint32_t>(old);
#else
  return std::atomic_ref<std::uint32_t>(word).fetch_add(n);
#endif
}
// Orders this thread's earlier accesses to the counter before its later ones, as every thread
// of the launch sees them (fence.sc.gpu; a sequentially consistent fence on the host).
LINPIPE_HOST_DEVICE inline void fence_launch() {
#if defined(__CUDA_ARCH__)
  __nvvm_membar_gl();
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}
LINPIPE_HOST_DEVICE inline void store_relaxed(std::uint32_t& word, std::uint32_t value) {
#if defined(__CUDA_ARCH__)
  *static_cast<volatile std::uint32_t*>(&word) = value;
#else
  std::atomic_ref<std::uint32_t>(word).store(value, std::memory_order_relaxed);
#endif
}

}  // namespace linpipe::detail

export namespace linpipe {

// Order: which tile each position is (as for WorkSchedule). Depth: positions the leader may
// claim ahead of the slowest follower. Pipeline: the ring that carries them (the default
// backend: mbarriers on the GPU, host signals in host code).
template <class Order = LinearOrder, int Depth = 2,
          class Pipeline = ProducerConsumerPipeline<Depth>>
class DynamicWorkSchedule {
  static_assert(Depth >= 1, "linpipe::DynamicWorkSchedule<Order, Depth>: Depth must be >= 1");
  static_assert(Pipeline::num_stages == Depth,
                "linpipe::DynamicWorkSchedule<Order, Depth, Pipeline>: the pipeline must have "
                "Depth stages (ProducerConsumerPipeline<Depth, ...>)");

 public:
  // What each CTA keeps in shared memory: the ring's barriers and the positions in flight.
  // Declare a member of this type in the kernel's shared layout.
  struct Shared {
    typename Pipeline::Barriers barriers;
    std::uint32_t positions[Depth];
  };

  class LeaderItems;
  class FollowerItems;

  // `counter`: zero-initialised state every CTA of the launch reaches (see WorkCounter).
  LINPIPE_HOST_DEVICE constexpr DynamicWorkSchedule(TileSpace space, WorkCounter* counter,
                                                    Order order = Order{})
      : tiles_(space, order), counter_(counter) {}

  LINPIPE_HOST_DEVICE constexpr std::uint32_t count() const { return tiles_.count(); }
  LINPIPE_HOST_DEVICE constexpr const TileSpace& space() const { return tiles_.space(); }
  LINPIPE_HOST_DEVICE constexpr WorkItem item(std::uint32_t position) const {
    return tiles_.item(position);
  }

  // One thread of the CTA, before a block barrier and any walk. `followers`: the threads that
  // walk with follow(), each of which reads every position.
  LINPIPE_HOST_DEVICE static void init(Shared& shared, std::uint32_t followers) {
    Pipeline(shared.barriers).init_mbars(1, followers);
  }

  // The leader's walk: each step claims the next position and publishes it to the followers.
  // `ctas`: CTAs in the launch (the leader of the last one to finish resets the counter).
  LINPIPE_HOST_DEVICE LeaderItems lead(Shared& shared, std::uint32_t ctas) const {
    return LeaderItems(*this, shared, ctas);
  }
  // A follower's walk: the leader's positions, in its order.
  LINPIPE_HOST_DEVICE FollowerItems follow(Shared& shared) const {
    return FollowerItems(*this, shared);
  }
#if defined(__CUDA__)
  LINPIPE_DEVICE LeaderItems lead(Shared& shared) const {
    return LeaderItems(*this, shared,
                       __nvvm_read_ptx_sreg_nctaid_x() * __nvvm_read_ptx_sreg_nctaid_y() *
                           __nvvm_read_ptx_sreg_nctaid_z());
  }
#endif

  // The end of every walk: iteration stops at the first position past the last item.
  struct End {};

  // Either walk's iterator: the walk's current item; ++ takes the next (Items::next()).
  template <class Items>
  class Iterator {
   public:
    LINPIPE_HOST_DEVICE WorkItem operator*() const {
      return items_->schedule_.item(items_->position_);
    }
    LINPIPE_HOST_DEVICE Iterator& operator++() {
      items_->next();
      return *this;
    }
    LINPIPE_HOST_DEVICE bool operator!=(End) const {
      return items_->position_ < items_->schedule_.count();
    }

   private:
    friend Items;
    LINPIPE_HOST_DEVICE explicit Iterator(Items* items) : items_(items) {}
    Items* items_;
  };

  class LeaderItems {
   public:
    // Claims the first position. A walk is begun once.
    LINPIPE_HOST_DEVICE Iterator<LeaderItems> begin() {
      next();
      return Iterator<LeaderItems>(this);
    }
    LINPIPE_HOST_DEVICE End end() const { return {}; }

   private:
    friend DynamicWorkSchedule;
    friend Iterator<LeaderItems>;
    LINPIPE_HOST_DEVICE LeaderItems(const DynamicWorkSchedule& schedule, Shared& shared,
                                    std::uint32_t ctas)
        : schedule_(schedule),
          shared_(shared),
          ring_(shared.barriers, "dynamic schedule"),
          ctas_(ctas) {}

    // Claims a position and publishes it. The position past the end is published too (it ends
    // the followers' walks); then this CTA counts itself finished, and the last CTA to finish
    // sets the counter back to zero for the next launch (every claim has been made by then).
    LINPIPE_HOST_DEVICE void next() {
      WorkCounter& counter = *schedule_.counter_;
      position_ = detail::fetch_add(counter.next, 1);
      auto slot = ring_.acquire_producer();
      shared_.positions[slot.index()] = position_;
      slot.mbar().arrive();  // releases the position to the followers
      slot.release();
      if (position_ < schedule_.count()) return;
      // This CTA's last claim before its count, and every CTA's before the reset.
      detail::fence_launch();
      if (detail::fetch_add(counter.finished, 1) + 1 == ctas_) {
        detail::fence_launch();
        detail::store_relaxed(counter.next, 0);
        detail::store_relaxed(counter.finished, 0);
      }
    }

    DynamicWorkSchedule schedule_;
    Shared& shared_;
    Pipeline ring_;
    std::uint32_t ctas_;
    std::uint32_t position_ = 0;
  };

  class FollowerItems {
   public:
    LINPIPE_HOST_DEVICE Iterator<FollowerItems> begin() {
      next();
      return Iterator<FollowerItems>(this);
    }
    LINPIPE_HOST_DEVICE End end() const { return {}; }

   private:
    friend DynamicWorkSchedule;
    friend Iterator<FollowerItems>;
    LINPIPE_HOST_DEVICE FollowerItems(const DynamicWorkSchedule& schedule, Shared& shared)
        : schedule_(schedule), shared_(shared), ring_(shared.barriers, "dynamic schedule") {}

    // Reads the leader's next position.
    LINPIPE_HOST_DEVICE void next() {
      auto slot = ring_.acquire_consumer();
      position_ = shared_.positions[slot.index()];
      slot.release();
    }

    DynamicWorkSchedule schedule_;
    Shared& shared_;
    Pipeline ring_;
    std::uint32_t position_ = 0;
  };

 private:
  WorkSchedule<Order> tiles_;
  WorkCounter* counter_;
};

}  // namespace linpipe
