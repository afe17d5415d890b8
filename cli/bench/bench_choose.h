// SPDX-License-Identifier: Apache-2.0
#pragma once

// yolo-edge bench --choose: the daemon's precision: auto decision on the command line. FP32 and
// INT8 run side by side on the user's own frames at the thread counts the daemon would try, and
// the same detector::choose_precision() decides.

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>

#include "detector/precision_trial.h"
#include "vision/decode.h"

namespace yolo::cli {

struct ChooseOptions {
  std::filesystem::path fp32;
  std::filesystem::path int8;
  runtime::InputSize imgsz;
  std::vector<int> thread_counts;
  double min_map50 = 0;
  // FP32's thresholds (the truth's), as the daemon's detect section sets them.
  vision::DecodeOptions decode;
};

struct ChooseResult {
  detector::TrialFigures figures;
  detector::PrecisionChoice choice;
};

// Called after each frame of the trial with the frames done and the total.
using ChooseProgress = std::function<void(int done, int total)>;

// Loads both models and runs the trial over `frames` (again from the first when the trial needs
// more). Throws what loading a model throws, and std::invalid_argument without frames.
ChooseResult run_choose(const ChooseOptions& options, const std::vector<cv::Mat>& frames,
                        const ChooseProgress& progress);

// The table people read: each count's latency per precision, the agreement and the decision.
std::string choose_text(const ChooseOptions& options, const ChooseResult& result,
                        std::size_t distinct_frames, const std::string& source);

nlohmann::json choose_json(const ChooseOptions& options, const ChooseResult& result,
                           std::size_t distinct_frames, const std::string& source);

}  // namespace yolo::cli
