// SPDX-License-Identifier: Apache-2.0
// The model section: which network runs, at which precision.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>

#include "config/schema_rows.h"
#include "config/sections/sections.h"

namespace yolo::config::section_files {

using namespace rows;

namespace fs = std::filesystem;

namespace {

// model.imgsz beyond its range: each side a multiple of 32, the largest YOLO stride (a model
// with a larger one says so when it loads).
std::string image_size_rule(const Value& v) {
  const auto side = [](std::int64_t n) -> std::string {
    if (n % 32 == 0) return "";
    const std::int64_t down = std::max<std::int64_t>(32, n / 32 * 32);
    return std::to_string(n) + " is not a multiple of 32 (the largest YOLO stride): use " +
           std::to_string(down) + " or " + std::to_string(down + 32);
  };
  if (const auto* n = std::get_if<std::int64_t>(&v)) {
    const std::string problem = side(*n);
    return problem.empty() ? "" : problem + ", 0 for the model's own size, or auto";
  }
  if (const auto* list = std::get_if<std::vector<std::int64_t>>(&v)) {
    for (const std::int64_t n : *list) {
      if (n == 0)
        return "[height, width] needs two sizes: 0 alone (not in a list) is the model's own";
      if (std::string problem = side(n); !problem.empty()) return problem;
    }
  }
  return "";
}

// model.path names a static INT8 file itself (then model.int8_path is not needed).
bool static_int8_model(const ModelConfig& m, const Problems& problems, const LoadOptions& options) {
  if (!options.static_int8 || m.path.empty()) return false;
  const fs::path path = problems.resolve(m.path);
  std::error_code ec;
  return fs::is_regular_file(path, ec) && options.static_int8(path);
}

}  // namespace

SectionSpec model_spec() {
  return {"model", "Which network runs, at which precision."};
}

void add_model_fields(std::vector<FieldSpec>& t) {
  const SectionAdder<ModelConfig> add{t, &Config::model};
  add("path", &ModelConfig::path, "",
      "ONNX model to run, e.g. yolov8n.onnx: FP32, an FP16 export (computed in FP32), dynamic INT8 "
      "(run at FP32 speed) or static INT8 (QDQ); must be set before the daemon starts.");
  add("int8_path", &ModelConfig::int8_path, "",
      "Static INT8 (QDQ) ONNX model run when precision is int8 (yolo-edge quantize makes one); not "
      "needed when model.path is one already; with quantize: auto it is made from model.path when "
      "missing, in the daemon's state directory when this is empty.");
  add("precision", &ModelConfig::precision, Precision::kFile,
      {.choices = as_choices(kPrecisionNames)},
      "Precision to run at: file runs model.path as it was made (int8 for a static INT8 file, fp32 "
      "for the others); fp32 runs model.path in FP32 (a static INT8 file's Q/DQ computed in "
      "float); int8 runs model.int8_path, or model.path when it is static INT8; auto times both on "
      "the camera's own frames at start (and after a model change) and runs INT8 only where it is "
      "faster and agrees with FP32 (see model.auto_min_map50).");
  add("quantize", &ModelConfig::quantize, Quantize::kOff, {.choices = {"off", "auto"}},
      "auto: when int8 or auto is asked for and model.int8_path is unset or missing, quantize "
      "model.path in the background from the camera's own frames (the stream keeps running at fp32 "
      "meanwhile), then switch; off: never.");
  add("calibration_frames", &ModelConfig::calibration_frames, 64, {.min = 8, .max = 1024},
      "Frames of the camera's own that quantize: auto calibrates on: the daemon keeps this many in "
      "its state directory, one a second at most, sampled evenly over everything it has seen, and "
      "across restarts.");
  add("auto_min_map50", &ModelConfig::auto_min_map50, 0.95, {.min = 0, .max = 1},
      "precision: auto runs INT8 only when its detections agree with FP32's on the trial frames at "
      "least this well (FP32 as the truth, as yolo-edge compare measures it: the mAP50 over the "
      "classes with at least 10 FP32 boxes, or the box-weighted AP50 when no class has that "
      "many).");
  add("imgsz", &ModelConfig::imgsz, runtime::InputSize{},
      {.min = 0, .max = 4096, .rule = image_size_rule},
      "Network input size for models exported with dynamic axes: 640 (square), [height, width] "
      "such as [384, 640], or auto: the source's aspect with the long side as exported, each side "
      "rounded up to a multiple of the stride (384x640 for a 16:9 camera at 640, no grey bars to "
      "compute); 0 takes the model's own size. A fixed-shape model keeps its shape with auto.");
  add("labels", &ModelConfig::labels, "",
      "Class names file, one per line, for models without names metadata; empty shows class "
      "numbers.");
  add("decoder", &ModelConfig::decoder, Decoder::kAuto,
      {.choices = {"auto", "yolov8", "end2end", "yolov5"}},
      "Output layout: auto (from the model), yolov8 [1,4+nc,N], end2end [1,K,6], yolov5 "
      "[1,N,5+nc].");
}

void check_model(const ModelConfig& m, Problems& problems, const LoadOptions& options) {
  const bool wants_int8 = m.precision == Precision::kInt8 || m.precision == Precision::kAuto;
  if (wants_int8 && m.quantize == Quantize::kOff && m.int8_path.empty() &&
      problems.usable("model.int8_path") && !static_int8_model(m, problems, options)) {
    const std::string precision = precision_name(m.precision);
    problems.add("model.precision", problems.written_at("model.precision"),
                 precision +
                     " needs model.int8_path: set it to a static INT8 model, or set "
                     "model.quantize: auto to make one from model.path");
  }
}

void check_model_files(const ModelConfig& m, Problems& problems) {
  if (problems.usable("model.path")) {
    if (m.path.empty()) {
      problems.add("model.path", problems.written_at("model.path"),
                   "is not set: set it to the ONNX model to run, e.g. /opt/models/yolov8n.onnx");
    } else {
      problems.require_file("model.path", m.path, "the ONNX model");
    }
  }
  if (!m.int8_path.empty() && problems.usable("model.int8_path")) {
    if (m.quantize == Quantize::kOff) {
      problems.require_file("model.int8_path", m.int8_path, "the INT8 ONNX model");
    } else if (!fs::exists(m.int8_path) && !fs::is_directory(m.int8_path.parent_path())) {
      problems.add("model.int8_path", problems.written_at("model.int8_path"),
                   "folder '" + m.int8_path.parent_path().string() +
                       "' does not exist, so the quantized model cannot be written there: "
                       "create it or choose another path");
    }
  }
  if (!m.labels.empty() && problems.usable("model.labels")) {
    problems.require_file("model.labels", m.labels, "the labels file (one class name per line)");
  }
}

}  // namespace yolo::config::section_files
