// SPDX-License-Identifier: Apache-2.0
#pragma once

// `yolo-edge bench`'s thread sweep: the latency of one model per thread count, optionally
// interleaved with an FP32 baseline model and the ONNX Runtime peer, printed as a table or JSON.
#include <string>
#include <vector>

#include "cli/common/model_options.h"

namespace yolo::cli {

// The options of the thread sweep (bench's scenarios take several of them too).
struct SweepArgs {
  ModelOptions model;
  std::vector<int> threads{1, 2};
  int runs = 50;
  int warmup = 5;
  int rounds = 3;
  std::string peer;
  std::string peer_model;  // what the peer runs, when not --model
  std::string baseline;    // a model our engine also times in FP32, interleaved
  bool json = false;
};

// Times the model at each of args.threads and prints the results; returns the exit code.
int run_sweep(const SweepArgs& args);

}  // namespace yolo::cli
