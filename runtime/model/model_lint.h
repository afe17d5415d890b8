// SPDX-License-Identifier: Apache-2.0
#pragma once

// Checks of a model file for the mistakes that make an INT8 model useless or slow before it is
// deployed: `yolo-edge inspect --lint` prints them, and detect, bench and the daemon warn of them
// when they load a model (Engine::lint_findings()). Each check reads the file as written.

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/engine/input_size.h"

namespace yolo::runtime {

// One problem of a model file.
struct LintFinding {
  // What was checked, a stable identifier:
  //   score-levels          a Q/DQ pair on a detection output or on the class scores leaves the
  //                         0..1 scores fewer than 64 levels
  //   bad-scale             a zero, negative, NaN, infinite or denormal Q/DQ scale
  //   zero-point-range      a zero point outside its element type, or of a type Q/DQ do not take
  //   channel-scale-ratio   per-channel weight scales spread over more than 1e4 (dead or
  //                         exploding channels)
  //   dynamic-quantization  DynamicQuantizeLinear: activations quantized on every run
  //   qoperator             QOperator INT8 nodes (QLinearConv, ...), which do not run here
  //   input-quantization    the input's scale / zero point do not match a uint8 image
  //   unsupported           the engine would refuse the file at load (an op, attribute, shape or
  //                         input it does not take); only lint_model_file makes this check
  std::string check;
  // The node concerned ("" when the finding is about the model as a whole).
  std::string node;
  // What is wrong and where, with the numbers.
  std::string message;
  // What to do about it.
  std::string fix;
  // The numbers behind the message (levels, best_score, scale, ...), by name.
  nlohmann::json details = nlohmann::json::object();
};

// Fewer distinct levels than this between score 0 and 1 make score thresholds meaningless.
inline constexpr int kMinScoreLevels = 64;
// Per-channel weight scales spread over more than this (largest / smallest) mark dead or
// exploding channels.
inline constexpr double kMaxChannelScaleRatio = 1e4;

// Every finding of a parsed model, grouped by check in the order listed above. `file` (the
// model's path, when known) goes into the commands the fixes name.
std::vector<LintFinding> lint_model(const onnx::ModelProto& model,
                                    const std::filesystem::path& file = {});
// Lints the file at `path` as written, then makes the checks Engine::load makes before it runs it
// at precision fp32 (`unsupported`; `imgsz` as in EngineOptions). Throws ModelError when the file
// cannot be read, is not ONNX, or its graph is malformed.
std::vector<LintFinding> lint_model_file(const std::filesystem::path& path,
                                         const InputSize& imgsz = {});

// {"check", "node", "message", "fix", "details"}.
nlohmann::json to_json(const LintFinding& finding);
// "check: message; fix" on one line, for logs and warnings.
std::string to_string(const LintFinding& finding);

// Why a dynamic INT8 model is slow and what to run instead; `dynamic_quantize_count` is its
// number of DynamicQuantizeLinear nodes. Shared by the lint and inspect's note.
std::string dynamic_int8_cost(std::size_t dynamic_quantize_count);

}  // namespace yolo::runtime
