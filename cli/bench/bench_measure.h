// SPDX-License-Identifier: Apache-2.0
#pragma once

// The timing loops behind `yolo-edge bench`'s scenarios. They know nothing of the command line
// (only engines, already loaded with their thread counts set and their inputs filled), so the
// daemon's precision choice can time FP32 and INT8 with the same loops on its own frames.
#include <cstddef>
#include <functional>
#include <vector>

#include "runtime/engine/engine.h"

namespace yolo::cli {

// When a measurement may stop: once it has run at least `min_queries` queries and at least
// `min_seconds`.
struct Budget {
  std::size_t min_queries = 1;
  double min_seconds = 0;
};

// What a measurement timed.
struct Measurement {
  // One latency per query (per frame in measure_throughput), in ms, in the order they ended.
  std::vector<double> latency_ms;
  // Frames run: queries x frames per query.
  std::size_t frames = 0;
  // Wall time from the start of the first query to the end of the last.
  double seconds = 0;

  // Frames per second over the whole measurement (0 when nothing ran).
  double throughput() const { return seconds > 0 ? static_cast<double>(frames) / seconds : 0.0; }
};

// Told how far a measurement is: the queries (frames in measure_throughput) done and the seconds
// so far. Called on the caller's thread, after each query or every 100 ms.
using ProgressFn = std::function<void(std::size_t done, double seconds)>;

// Fills the engine's input with a fixed pattern, the same the ONNX Runtime peer script uses, so
// neither side gains from all-zero data.
void fill_test_pattern(runtime::Engine& engine);

// Queries one after another, the next issued when the previous is done; a query is
// `frames_per_query` frames spread over `engines` (the calling thread runs the first engine, one
// worker thread each of the others) and its latency lasts until its last frame is done. One
// engine and one frame per query time single runs back to back. Throws std::invalid_argument
// when `engines` is empty or frames_per_query is below 1; an engine's exception is rethrown.
Measurement measure_queries(const std::vector<runtime::Engine*>& engines, int frames_per_query,
                            const Budget& budget, const ProgressFn& progress);

// Throughput: every engine runs frames back to back on its own thread until the budget, counted
// in frames, is spent (exactly min_queries frames when min_seconds is already over); a latency
// per frame. Throws like measure_queries.
Measurement measure_throughput(const std::vector<runtime::Engine*>& engines, const Budget& budget,
                               const ProgressFn& progress);

}  // namespace yolo::cli
