// A self-contained stand-in for linpipe's stage types, for the checker's lit tests.
// It carries the same annotations (linpipe::linear, consume, arrives, signals,
// needs_signal, hand_off) and the same clang typestate attributes as the library, so
// the same cases can be compiled with -Wconsumed for comparison
// (see ../wconsumed_comparison.md). Declarations only: nothing here is linked.
#pragma once

#include <memory>
#include <optional>
#include <utility>
#include <vector>

// Host and device in CUDA compiles (clang defines __CUDA__), nothing in plain C++.
#if defined(__CUDA__)
#define LP_HD __host__ __device__
#else
#define LP_HD
#endif

#define LP_LINEAR [[nodiscard, clang::consumable(unconsumed), clang::annotate("linpipe::linear")]]
#define LP_USE [[clang::callable_when("unconsumed", "unknown")]]
#define LP_SIGNALS [[clang::callable_when("unconsumed", "unknown"), clang::annotate("linpipe::signals")]]
#define LP_ARRIVE                                                                          \
  [[clang::callable_when("unconsumed", "unknown"), clang::annotate("linpipe::signals"),               \
    clang::annotate("linpipe::arrives")]]
#define LP_RELEASE                                                                         \
  [[clang::callable_when("unconsumed", "unknown"), clang::set_typestate(consumed),                    \
    clang::annotate("linpipe::consume"), clang::annotate("linpipe::arrives")]]
#define LP_RELEASE_SILENT                                                                  \
  [[clang::callable_when("unconsumed", "unknown"), clang::set_typestate(consumed),                    \
    clang::annotate("linpipe::consume"), clang::annotate("linpipe::needs_signal")]]
#define LP_STEP                                                                            \
  [[clang::callable_when("unconsumed", "unknown"), clang::set_typestate(consumed),                    \
    clang::annotate("linpipe::consume")]]

namespace lp {

class Pipeline;

// The escape hatch: hands a stage to storage the checker does not follow.
template <class T>
[[clang::annotate("linpipe::hand_off")]] constexpr T &&hand_off(T &&stage) noexcept {
  return static_cast<T &&>(stage);
}

struct Handle {
  LP_HD void arrive() const;
  LP_HD void expect_tx(unsigned bytes) const;
};

class LP_LINEAR ConsumerStage {
public:
  LP_HD ConsumerStage(ConsumerStage &&other) noexcept;
  ConsumerStage(const ConsumerStage &) = delete;
  [[clang::callable_when("consumed", "unknown")]] LP_HD ConsumerStage &operator=(ConsumerStage &&other) noexcept;
  [[clang::callable_when("consumed", "unknown")]] LP_HD ~ConsumerStage();

  LP_USE LP_HD unsigned index() const;
  LP_SIGNALS LP_HD Handle mbar() const;
  LP_ARRIVE LP_HD void arrive() const;
  LP_RELEASE LP_HD void release();
  LP_RELEASE_SILENT LP_HD void release_without_signal();

private:
  friend class Pipeline;
  [[clang::return_typestate(unconsumed)]] LP_HD ConsumerStage(Pipeline *pipeline, unsigned index);
  Pipeline *pipeline_;
  unsigned index_;
};

class LP_LINEAR ProducerStage {
public:
  LP_HD ProducerStage(ProducerStage &&other) noexcept;
  ProducerStage(const ProducerStage &) = delete;
  [[clang::callable_when("consumed", "unknown")]] LP_HD ProducerStage &operator=(ProducerStage &&other) noexcept;
  [[clang::callable_when("consumed", "unknown")]] LP_HD ~ProducerStage();

  LP_USE LP_HD unsigned index() const;
  LP_SIGNALS LP_HD Handle mbar() const;
  LP_STEP LP_HD void release();

private:
  friend class Pipeline;
  [[clang::return_typestate(unconsumed)]] LP_HD ProducerStage(Pipeline *pipeline, unsigned index);
  Pipeline *pipeline_;
  unsigned index_;
};

// A user type whose consuming members are &&-qualified: `std::move(t).finish()`.
class LP_LINEAR Ticket {
public:
  [[clang::return_typestate(unconsumed)]] LP_HD Ticket(int id);
  LP_HD Ticket(Ticket &&other) noexcept;
  [[clang::callable_when("consumed", "unknown")]] LP_HD Ticket &operator=(Ticket &&other) noexcept;
  [[clang::callable_when("consumed", "unknown")]] LP_HD ~Ticket();
  LP_USE LP_HD int id() const;
  LP_STEP LP_HD void finish() &&;
};

// The scoped forms: not linear, released by their destructor. consume_explicit()'s scope
// must be signalled through (arrive(), mbar()) on some path before it ends.
class [[nodiscard]] StageScope {
public:
  StageScope(const StageScope &) = delete;
  StageScope(StageScope &&) = delete;
  LP_HD ~StageScope();
  LP_HD unsigned index() const;
  [[clang::annotate("linpipe::signals")]] LP_HD Handle mbar() const;
  [[clang::annotate("linpipe::signals"), clang::annotate("linpipe::arrives")]] LP_HD void
  arrive() const;

private:
  friend class Pipeline;
  LP_HD StageScope(Pipeline &pipeline, unsigned index);
};

class Pipeline {
public:
  LP_HD ConsumerStage acquire_consumer();
  LP_HD ProducerStage acquire_producer();
  LP_HD StageScope consume();
  [[clang::annotate("linpipe::signal_scope")]] LP_HD StageScope consume_explicit();
  LP_HD StageScope produce();
  LP_HD bool try_wait_consumer();
};

// The lag holder: linear itself (default construction acquires it, flush() consumes it);
// push() takes a stage's obligation.
class LP_LINEAR Lag {
public:
  [[clang::return_typestate(unconsumed), clang::annotate("linpipe::acquires")]] LP_HD Lag();
  Lag(const Lag &) = delete;
  [[clang::callable_when("consumed", "unknown")]] LP_HD ~Lag();
  LP_USE LP_HD void push(ConsumerStage &&stage);
  LP_STEP LP_HD void flush();
};

// Lags whose push() releases through a policy that arrives (or not, or as its template argument
// says): an arrival before the push is a second one where it does.
class LP_LINEAR ArrivingLag {
public:
  [[clang::return_typestate(unconsumed), clang::annotate("linpipe::acquires")]] LP_HD ArrivingLag();
  ArrivingLag(const ArrivingLag &) = delete;
  [[clang::callable_when("consumed", "unknown")]] LP_HD ~ArrivingLag();
  [[clang::annotate("linpipe::arrives_arg")]] LP_HD void push(ConsumerStage &&stage);
  LP_STEP LP_HD void flush();
};
template <bool Arrives>
class LP_LINEAR PolicyLag {
public:
  [[clang::return_typestate(unconsumed), clang::annotate("linpipe::acquires")]] LP_HD PolicyLag();
  PolicyLag(const PolicyLag &) = delete;
  [[clang::callable_when("consumed", "unknown")]] LP_HD ~PolicyLag();
  [[clang::annotate("linpipe::arrives_arg", Arrives)]] LP_HD void push(ConsumerStage &&stage);
  LP_STEP LP_HD void flush();
};

// A class template: its specialisations are linear.
template <int N>
class LP_LINEAR Slot {
public:
  LP_HD Slot(Slot &&other) noexcept;
  [[clang::callable_when("consumed", "unknown")]] LP_HD ~Slot();
  LP_USE LP_HD int value() const;
  LP_STEP LP_HD void release();
};

template <int N>
LP_HD Slot<N> make_slot();

// Shared memory the copy engine reads or writes (the proxy-fence rule): a ring of slots, the
// bulk/TMA operations on them, and the fence between generic and async-proxy accesses.
struct alignas(16) Tile {
  float values[256];
  LP_HD void clear();
  LP_HD float sum() const;
};
struct Ring {
  [[clang::annotate("linpipe::slot")]] LP_HD Tile &operator[](const ConsumerStage &stage);
  [[clang::annotate("linpipe::slot")]] LP_HD Tile &slot(unsigned index);
};
namespace ptx {
[[clang::annotate("linpipe::async_proxy_read")]] LP_HD void
cp_async_bulk_shared_to_global(void *dst_global, const void *src_shared, unsigned bytes);
[[clang::annotate("linpipe::async_proxy_write")]] LP_HD void
cp_async_bulk_global_to_shared(void *dst_shared, const void *src_global, unsigned bytes);
[[clang::annotate("linpipe::proxy_fence")]] LP_HD void fence_proxy_async_shared_cta();
} // namespace ptx
LP_HD void fill(float *out, unsigned count);
LP_HD float total(const float *in, unsigned count);

// Sinks: by value and by rvalue reference take the obligation; by lvalue reference borrows.
LP_HD void take_consumer(ConsumerStage stage);
LP_HD void take_consumer_rvalue(ConsumerStage &&stage);
LP_HD void inspect(const ConsumerStage &stage);
LP_HD void borrow(ConsumerStage &stage);
LP_HD void work(unsigned index);
LP_HD bool done();

} // namespace lp

// Device-code markers, so the same test files read like CUDA kernels.
#if !defined(__CUDA__)
#define __device__
#define __global__
[[noreturn]] LP_HD void __trap();
#endif
