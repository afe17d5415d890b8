// SPDX-License-Identifier: Apache-2.0
#include "cli/bench/bench_measure.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>

namespace yolo::cli {

namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

void check_arguments(const std::vector<runtime::Engine*>& engines, const Budget& budget) {
  if (engines.empty()) throw std::invalid_argument("a measurement needs at least one engine");
  if (budget.min_queries == 0) throw std::invalid_argument("a measurement needs min_queries >= 1");
}

// The engines that share out the frames of one query: each takes the next frame number until
// none is left. The calling thread runs the first engine; the others wait on their own threads
// between queries, so a query costs no thread start.
class QueryCrew {
 public:
  explicit QueryCrew(const std::vector<runtime::Engine*>& engines) : engines_(engines) {
    for (std::size_t i = 1; i < engines.size(); ++i) workers_.emplace_back([this, i] { work(i); });
  }
  ~QueryCrew() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      ++generation_;
    }
    start_.notify_all();
  }
  QueryCrew(const QueryCrew&) = delete;
  QueryCrew& operator=(const QueryCrew&) = delete;

  // Runs `frames` frames over the engines; returns when all are done. Rethrows the first
  // engine exception once every engine has stopped.
  void run(int frames) {
    {
      std::lock_guard lock(mutex_);
      next_.store(0);
      frames_ = frames;
      busy_ = workers_.size();
      ++generation_;
    }
    start_.notify_all();
    take_frames(0);
    std::unique_lock lock(mutex_);
    done_.wait(lock, [this] { return busy_ == 0; });
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  void take_frames(std::size_t engine) {
    try {
      while (next_.fetch_add(1) < frames_) engines_[engine]->run();
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
      next_.store(frames_);
    }
  }

  void work(std::size_t engine) {
    std::uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        start_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (stopping_) return;
      }
      take_frames(engine);
      std::lock_guard lock(mutex_);
      if (--busy_ == 0) done_.notify_one();
    }
  }

  const std::vector<runtime::Engine*>& engines_;
  // The next frame number of the query under way.
  std::atomic<int> next_{0};
  std::mutex mutex_;
  std::condition_variable start_, done_;
  // Guarded by mutex_: the frames of the query, a count that changes with every query (and on
  // stopping), the workers still running frames, and the first exception.
  int frames_ = 0;
  std::uint64_t generation_ = 0;
  bool stopping_ = false;
  std::size_t busy_ = 0;
  std::exception_ptr error_;
  std::vector<std::jthread> workers_;
};

bool spent(const Budget& budget, std::size_t done, double seconds) {
  return done >= budget.min_queries && seconds >= budget.min_seconds;
}

}  // namespace

void fill_test_pattern(runtime::Engine& engine) {
  const std::size_t n = static_cast<std::size_t>(engine.input_width()) * engine.input_height() * 3;
  if (engine.input_layout() == runtime::InputLayout::kNhwcUint8) {
    auto* p = static_cast<std::uint8_t*>(engine.input_data());
    for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<std::uint8_t>((i * 2654435761u) % 256);
  } else {
    auto* p = static_cast<float*>(engine.input_data());
    for (std::size_t i = 0; i < n; ++i) {
      p[i] = static_cast<float>((i * 2654435761ull) % 1000) / 1000.0f;
    }
  }
}

Measurement measure_queries(const std::vector<runtime::Engine*>& engines, int frames_per_query,
                            const Budget& budget, const ProgressFn& progress) {
  check_arguments(engines, budget);
  if (frames_per_query < 1) throw std::invalid_argument("a query needs at least one frame");
  std::optional<QueryCrew> crew;
  if (engines.size() > 1) crew.emplace(engines);
  Measurement m;
  const auto start = Clock::now();
  auto end = start;
  do {
    const auto query_start = Clock::now();
    if (crew) {
      crew->run(frames_per_query);
    } else {
      for (int i = 0; i < frames_per_query; ++i) engines.front()->run();
    }
    end = Clock::now();
    m.latency_ms.push_back(ms_between(query_start, end));
    m.frames += static_cast<std::size_t>(frames_per_query);
    if (progress) progress(m.latency_ms.size(), ms_between(start, end) / 1000.0);
  } while (!spent(budget, m.latency_ms.size(), ms_between(start, end) / 1000.0));
  m.seconds = ms_between(start, end) / 1000.0;
  return m;
}

Measurement measure_throughput(const std::vector<runtime::Engine*>& engines, const Budget& budget,
                               const ProgressFn& progress) {
  check_arguments(engines, budget);
  // Each engine's frames: when each ended, and its latency.
  std::vector<std::vector<std::pair<Clock::time_point, double>>> frames(engines.size());
  std::atomic<std::size_t> claimed{0}, done{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;
  std::condition_variable finished_cv;
  std::size_t finished = 0;
  std::exception_ptr error;
  const auto start = Clock::now();
  {
    std::vector<std::jthread> workers;
    for (std::size_t e = 0; e < engines.size(); ++e) {
      workers.emplace_back([&, e] {
        try {
          // A frame is claimed before it runs, so the count is exact when time is not the limit.
          while (!failed.load() &&
                 (claimed.fetch_add(1) < budget.min_queries ||
                  ms_between(start, Clock::now()) < budget.min_seconds * 1000.0)) {
            const auto frame_start = Clock::now();
            engines[e]->run();
            const auto frame_end = Clock::now();
            frames[e].emplace_back(frame_end, ms_between(frame_start, frame_end));
            done.fetch_add(1);
          }
        } catch (...) {
          failed.store(true);
          std::lock_guard lock(mutex);
          if (!error) error = std::current_exception();
        }
        std::lock_guard lock(mutex);
        ++finished;
        finished_cv.notify_one();
      });
    }
    std::unique_lock lock(mutex);
    while (!finished_cv.wait_for(lock, std::chrono::milliseconds(100),
                                 [&] { return finished == engines.size(); })) {
      lock.unlock();
      if (progress) progress(done.load(), ms_between(start, Clock::now()) / 1000.0);
      lock.lock();
    }
  }
  if (error) std::rethrow_exception(error);

  std::vector<std::pair<Clock::time_point, double>> all;
  for (const auto& engine_frames : frames)
    all.insert(all.end(), engine_frames.begin(), engine_frames.end());
  std::sort(all.begin(), all.end());
  Measurement m;
  m.frames = all.size();
  for (const auto& [end, ms] : all) m.latency_ms.push_back(ms);
  m.seconds = all.empty() ? 0.0 : ms_between(start, all.back().first) / 1000.0;
  if (progress) progress(m.frames, m.seconds);
  return m;
}

}  // namespace yolo::cli
