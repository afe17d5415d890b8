// SPDX-License-Identifier: Apache-2.0
// yolo-edge quantize: static INT8 (QDQ) from an FP32 model, calibrated on frames from a source.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "cli/model_options.h"
#include "runtime/model_error.h"
#include "runtime/onnx_model.h"
#include "runtime/quantize/model_file.h"
#include "runtime/quantizer.h"
#include "vision/capture.h"
#include "vision/decode.h"
#include "vision/letterbox.h"

namespace yolo::cli {

namespace {

struct QuantizeArgs {
  std::string model;
  std::string calib;
  int frames = 256;
  std::string method = "minmax";
  std::string keep = "auto";
  runtime::InputSize imgsz;
  std::string out;
  std::string report;
};

runtime::QuantizeOptions parse_options(const QuantizeArgs& args) {
  runtime::QuantizeOptions options;
  options.method = runtime::parse_calibration_method(args.method);
  options.frames = args.frames;
  options.imgsz = args.imgsz;
  if (args.keep == "auto") {
    options.keep = runtime::KeepFp32Mode::kAuto;
  } else if (args.keep == "none") {
    options.keep = runtime::KeepFp32Mode::kNone;
  } else {
    options.keep = runtime::KeepFp32Mode::kList;
    std::stringstream list(args.keep);
    for (std::string name; std::getline(list, name, ',');) {
      if (!name.empty()) options.keep_nodes.push_back(name);
    }
  }
  options.log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  // The decoders live in vision/: a model none of them reads is not a detector we can serve.
  options.check_output = [model = args.model](const runtime::Shape& shape,
                                              const runtime::ModelMetadata& metadata) {
    try {
      vision::choose_decoder(shape, vision::DecoderKind::kAuto, metadata.end2end);
    } catch (const vision::DecodeError& e) {
      throw runtime::QuantizeError(model + ": not a detection model we can decode (" + e.what() +
                                   ")");
    }
  };
  return options;
}

int run_quantize(const QuantizeArgs& args) {
  runtime::QuantizeOptions options = parse_options(args);
  // Checked first so a bad path or model costs no calibration time.
  runtime::check_writable(args.out, "--out");
  if (!args.report.empty()) runtime::check_writable(args.report, "--report");
  // Refuses a QOperator, static INT8 or non-detection file before the source opens; what the
  // file is quantized from is logged by quantize_model once.
  runtime::quantize_source(runtime::OnnxModel::load(args.model));

  vision::SourceSpec spec;
  spec.uri = args.calib;
  auto source = vision::open_source(spec);
  std::fprintf(stderr, "calibrating on %s\n", source->describe().c_str());
  std::unique_ptr<vision::Letterboxer> letterboxer;
  vision::Frame frame;
  // imgsz auto calibrates at the aspect of the source's first frame, which is calibrated on too.
  bool first_pending = false;
  if (options.imgsz.mode == runtime::InputSize::Mode::kAuto && source->read(frame)) {
    options.imgsz = runtime::InputSize::automatic(frame.bgr.rows, frame.bgr.cols);
    first_pending = true;
  }
  auto provider = [&](runtime::InputLayout layout, int width, int height, std::span<float> dst) {
    if (!std::exchange(first_pending, false) && !source->read(frame)) return false;
    const auto wanted = layout == runtime::InputLayout::kNchwFloat
                            ? vision::TensorLayout::kNchwFloat
                            : vision::TensorLayout::kNhwcFloat;
    if (!letterboxer || letterboxer->layout() != wanted ||
        letterboxer->input() != cv::Size(width, height)) {
      letterboxer = std::make_unique<vision::Letterboxer>(cv::Size(width, height), wanted);
    }
    letterboxer->run(frame.bgr, dst);
    return true;
  };

  const runtime::QuantizeResult result =
      runtime::quantize_model(args.model, args.out, options, provider);
  std::fprintf(stderr,
               "wrote %s: %.2f MB -> %.2f MB (%.3f x), %d frame(s), %zu node(s) kept FP32\n",
               args.out.c_str(), static_cast<double>(result.fp32_bytes) / 1e6,
               static_cast<double>(result.int8_bytes) / 1e6,
               static_cast<double>(result.int8_bytes) / static_cast<double>(result.fp32_bytes),
               result.frames, result.kept_fp32.size());
  if (!args.report.empty()) {
    std::ofstream file(args.report, std::ios::trunc);
    file << result.report.dump(2) << "\n";
    if (!file.flush()) {
      throw std::runtime_error("--report " + args.report + ": cannot write the report");
    }
  }
  return kOk;
}

}  // namespace

void register_quantize(CLI::App& app) {
  auto args = std::make_shared<QuantizeArgs>();
  auto* sub = app.add_subcommand(
      "quantize",
      "Static INT8 (QDQ ONNX) from an FP32, FP16 or dynamic-INT8 model, calibrated on frames "
      "from a source");
  sub->add_option("--model,-m", args->model,
                  "The model to start from: FP32, an FP16 export, or dynamic INT8 (from the FP32 "
                  "graph its ConvInteger chains fold into)")
      ->required();
  sub->add_option("--calib", args->calib,
                  "Calibration frames: a folder of images, a video file, a stream or a camera")
      ->required();
  sub->add_option("--frames", args->frames, "Calibrate on at most this many frames")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  sub->add_option("--method", args->method, "Activation ranges: minmax, percentile, entropy or mse")
      ->check(CLI::IsMember({"minmax", "percentile", "entropy", "mse"}))
      ->capture_default_str();
  sub->add_option("--keep-fp32", args->keep,
                  "Layers kept in FP32: auto (detection tail + sensitive final convs), none, or "
                  "NODE,NODE,...")
      ->capture_default_str();
  add_imgsz_option(*sub, args->imgsz);
  sub->add_option("--out,-o", args->out, "Where to write the INT8 QDQ model")->required();
  sub->add_option("--report", args->report,
                  "Write a JSON report: per-layer ranges, kept layers and why, sizes, times");
  add_command(app, sub, [args] { return run_quantize(*args); });
}

}  // namespace yolo::cli
