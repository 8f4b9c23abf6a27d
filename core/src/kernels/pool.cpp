// The kernels' thread pool (mha/kernels.hpp's Threads): a fixed set of std::threads (Emscripten pthreads in the
// threaded wasm build) that sleep between parallel calls. A call publishes its items under a generation number;
// every thread, the caller included, claims items one at a time from a counter tagged with that generation, so a
// worker that wakes late (or never starts: a browser that could not start its Web Worker) claims nothing and the
// caller does the work itself. Which thread runs an item never changes what the item computes.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "mha/kernels.hpp"

#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__)
#define MHA_POOL_THREADS 1
#include <condition_variable>
#include <mutex>
#include <thread>
#endif

namespace mha::kernels {

namespace {

std::atomic<std::size_t> g_threshold{std::size_t(1) << 18};  // ~0.5 MFLOP: a wake-up is some µs

#if defined(MHA_POOL_THREADS)
constexpr std::size_t kCap = 64;
thread_local bool t_inside = false;  // this thread runs an item of a parallel call

class Pool {
 public:
  ~Pool() { resize(1); }

  std::size_t size() const { return size_; }

  void resize(std::size_t n) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
    workers_.clear();
    stop_ = false;
    size_ = 1;
    for (std::size_t i = 1; i < n; ++i) {
      try {
        workers_.emplace_back([this] { work(); });
      } catch (...) {  // no more threads: run with those there are
        break;
      }
    }
    size_ = workers_.size() + 1;
  }

  // One parallel call at a time: a second caller (another thread of the program) runs its items itself.
  void run(std::size_t n, void (*fn)(void*, std::size_t), void* ctx) {
    std::unique_lock<std::mutex> caller(calling_, std::try_to_lock);
    if (!caller.owns_lock()) {
      for (std::size_t i = 0; i < n; ++i) fn(ctx, i);
      return;
    }
    std::uint64_t gen;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      gen = ++generation_;
      fn_ = fn;
      ctx_ = ctx;
      n_ = n;
      done_.store(0, std::memory_order_relaxed);
      next_.store(gen << 32, std::memory_order_release);
    }
    wake_.notify_all();
    t_inside = true;
    const std::size_t mine = take(gen, n, fn, ctx);
    t_inside = false;
    // Items other threads claimed: wait for them (spin briefly, then sleep).
    std::size_t done = done_.fetch_add(mine, std::memory_order_acq_rel) + mine;
    for (int spin = 0; done < n && spin < 4096; ++spin) {
      std::this_thread::yield();
      done = done_.load(std::memory_order_acquire);
    }
    if (done < n) {
      std::unique_lock<std::mutex> lock(mutex_);
      finished_.wait(lock, [&] { return done_.load(std::memory_order_acquire) >= n; });
    }
  }

 private:
  // Claims and runs items of generation gen until none is left; returns how many it ran.
  std::size_t take(std::uint64_t gen, std::size_t n, void (*fn)(void*, std::size_t), void* ctx) {
    std::size_t count = 0;
    std::uint64_t v = next_.load(std::memory_order_acquire);
    for (;;) {
      if ((v >> 32) != (gen & 0xffffffffu) || (v & 0xffffffffu) >= n) return count;
      if (!next_.compare_exchange_weak(v, v + 1, std::memory_order_acq_rel)) continue;
      fn(ctx, std::size_t(v & 0xffffffffu));
      ++count;
      v = next_.load(std::memory_order_acquire);
    }
  }

  void work() {
    t_inside = true;
    std::uint64_t seen = 0;
    for (;;) {
      std::uint64_t gen;
      std::size_t n;
      void (*fn)(void*, std::size_t);
      void* ctx;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = gen = generation_;
        n = n_;
        fn = fn_;
        ctx = ctx_;
      }
      const std::size_t mine = take(gen, n, fn, ctx);
      if (mine && done_.fetch_add(mine, std::memory_order_acq_rel) + mine >= n) {
        std::lock_guard<std::mutex> lock(mutex_);  // the caller may be about to sleep
        finished_.notify_all();
      }
    }
  }

  std::mutex calling_, mutex_;
  std::condition_variable wake_, finished_;
  std::vector<std::thread> workers_;
  std::size_t size_ = 1;
  bool stop_ = false;
  std::uint64_t generation_ = 0;  // under mutex_
  void (*fn_)(void*, std::size_t) = nullptr;
  void* ctx_ = nullptr;
  std::size_t n_ = 0;
  std::atomic<std::uint64_t> next_{0};  // generation << 32 | next item
  std::atomic<std::size_t> done_{0};
};

Pool& pool() {
  static Pool p;
  return p;
}
std::atomic<std::size_t> g_size{1};  // pool().size(), read without touching the pool
#endif

}  // namespace

std::size_t max_threads() {
#if defined(MHA_POOL_THREADS)
#if defined(__EMSCRIPTEN__)
  // The JS API clamps to the pthread workers the page started (Module.mhaPthreads + 1): more would start late.
  const std::size_t cores = 16;
#else
  const std::size_t cores = kCap;  // natively any size (more threads than cores only share them)
#endif
  return std::min(cores, kCap);
#else
  return 1;
#endif
}

std::size_t threads() {
#if defined(MHA_POOL_THREADS)
  return g_size.load(std::memory_order_relaxed);
#else
  return 1;
#endif
}

std::size_t set_threads(std::size_t n) {
#if defined(MHA_POOL_THREADS)
  n = std::clamp<std::size_t>(n, 1, max_threads());
  if (n != pool().size()) pool().resize(n);
  g_size.store(pool().size(), std::memory_order_relaxed);
#else
  (void)n;
#endif
  return threads();
}

std::size_t split_threshold() { return g_threshold.load(std::memory_order_relaxed); }
void set_split_threshold(std::size_t madds) { g_threshold.store(madds, std::memory_order_relaxed); }

namespace detail {

bool run_inline() {
#if defined(MHA_POOL_THREADS)
  return g_size.load(std::memory_order_relaxed) <= 1 || t_inside;
#else
  return true;
#endif
}

void run_parallel(std::size_t n, void (*fn)(void*, std::size_t), void* ctx) {
#if defined(MHA_POOL_THREADS)
  pool().run(n, fn, ctx);
#else
  for (std::size_t i = 0; i < n; ++i) fn(ctx, i);
#endif
}

}  // namespace detail

}  // namespace mha::kernels
