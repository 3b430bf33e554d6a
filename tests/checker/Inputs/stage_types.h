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

#define LP_LINEAR [[nodiscard, clang::consumable(unconsumed), clang::annotate("linpipe::linear")]]
#define LP_USE [[clang::callable_when("unconsumed")]]
#define LP_SIGNALS [[clang::callable_when("unconsumed"), clang::annotate("linpipe::signals")]]
#define LP_ARRIVE                                                                          \
  [[clang::callable_when("unconsumed"), clang::annotate("linpipe::signals"),               \
    clang::annotate("linpipe::arrives")]]
#define LP_RELEASE                                                                         \
  [[clang::callable_when("unconsumed"), clang::set_typestate(consumed),                    \
    clang::annotate("linpipe::consume"), clang::annotate("linpipe::arrives")]]
#define LP_RELEASE_SILENT                                                                  \
  [[clang::callable_when("unconsumed"), clang::set_typestate(consumed),                    \
    clang::annotate("linpipe::consume"), clang::annotate("linpipe::needs_signal")]]
#define LP_STEP                                                                            \
  [[clang::callable_when("unconsumed"), clang::set_typestate(consumed),                    \
    clang::annotate("linpipe::consume")]]

namespace lp {

class Pipeline;

// The escape hatch: hands a stage to storage the checker does not follow.
template <class T>
[[clang::annotate("linpipe::hand_off")]] constexpr T &&hand_off(T &&stage) noexcept {
  return static_cast<T &&>(stage);
}

struct Handle {
  void arrive() const;
  void expect_tx(unsigned bytes) const;
};

class LP_LINEAR ConsumerStage {
public:
  ConsumerStage(ConsumerStage &&other) noexcept;
  ConsumerStage(const ConsumerStage &) = delete;
  [[clang::callable_when("consumed")]] ConsumerStage &operator=(ConsumerStage &&other) noexcept;
  [[clang::callable_when("consumed")]] ~ConsumerStage();

  LP_USE unsigned index() const;
  LP_SIGNALS Handle mbar() const;
  LP_ARRIVE void arrive() const;
  LP_RELEASE void release();
  LP_RELEASE_SILENT void release_without_signal();

private:
  friend class Pipeline;
  [[clang::return_typestate(unconsumed)]] ConsumerStage(Pipeline *pipeline, unsigned index);
  Pipeline *pipeline_;
  unsigned index_;
};

class LP_LINEAR ProducerStage {
public:
  ProducerStage(ProducerStage &&other) noexcept;
  ProducerStage(const ProducerStage &) = delete;
  [[clang::callable_when("consumed")]] ProducerStage &operator=(ProducerStage &&other) noexcept;
  [[clang::callable_when("consumed")]] ~ProducerStage();

  LP_USE unsigned index() const;
  LP_SIGNALS Handle mbar() const;
  LP_STEP void release();

private:
  friend class Pipeline;
  [[clang::return_typestate(unconsumed)]] ProducerStage(Pipeline *pipeline, unsigned index);
  Pipeline *pipeline_;
  unsigned index_;
};

// A user type whose consuming members are &&-qualified: `std::move(t).finish()`.
class LP_LINEAR Ticket {
public:
  [[clang::return_typestate(unconsumed)]] Ticket(int id);
  Ticket(Ticket &&other) noexcept;
  [[clang::callable_when("consumed")]] Ticket &operator=(Ticket &&other) noexcept;
  [[clang::callable_when("consumed")]] ~Ticket();
  LP_USE int id() const;
  LP_STEP void finish() &&;
};

// The scoped forms: not annotated, released by their destructor.
class [[nodiscard]] StageScope {
public:
  StageScope(const StageScope &) = delete;
  StageScope(StageScope &&) = delete;
  ~StageScope();
  unsigned index() const;
  Handle mbar() const;
  void arrive() const;

private:
  friend class Pipeline;
  StageScope(Pipeline &pipeline, unsigned index);
};

class Pipeline {
public:
  ConsumerStage acquire_consumer();
  ProducerStage acquire_producer();
  StageScope consume();
  StageScope consume_explicit();
  StageScope produce();
  bool try_wait_consumer();
};

// A class template: its specialisations are linear.
template <int N>
class LP_LINEAR Slot {
public:
  Slot(Slot &&other) noexcept;
  [[clang::callable_when("consumed")]] ~Slot();
  LP_USE int value() const;
  LP_STEP void release();
};

template <int N>
Slot<N> make_slot();

// Sinks: by value and by rvalue reference take the obligation; by lvalue reference borrows.
void take_consumer(ConsumerStage stage);
void take_consumer_rvalue(ConsumerStage &&stage);
void inspect(const ConsumerStage &stage);
void borrow(ConsumerStage &stage);
void work(unsigned index);
bool done();

} // namespace lp

// Device-code markers, so the same test files read like CUDA kernels.
#if !defined(__CUDA__)
#define __device__
#define __global__
[[noreturn]] void __trap();
#endif
