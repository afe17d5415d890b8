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
#include "cli/common/model_options.h"
#include "runtime/model/model_error.h"
#include "runtime/model/onnx_model.h"
#include "runtime/quantize/model_file.h"
#include "runtime/quantize/quantizer.h"
#include "vision/capture.h"
#include "vision/decode.h"
#include "vision/letterbox.h"
#include "vision/metrics.h"
#include "vision/spread_source.h"

namespace yolo::cli {

namespace {

struct QuantizeArgs {
  std::string model;
  std::string calib;
  int frames = 256;
  long from_first = 0;
  std::string method = "mse";
  std::string rounding = "nearest";
  std::string bias_correction = "on";
  std::string keep = "auto";
  runtime::InputSize imgsz;
  std::string out;
  std::string report;
};

// The quantizer's judge of detections (runtime/ knows no boxes): on the held frames, the
// candidate's boxes against FP32's as compare takes them (FP32 above 0.25 as the truth, the
// candidate's down to 0.001 and multi-label), as AP50 weighted by FP32's boxes.
class BoxApJudge : public runtime::OutputJudge {
 public:
  explicit BoxApJudge(bool end2end) : end2end_(end2end) {}

  void set_truth(std::size_t frame, const runtime::Tensor& output) override {
    if (truth_.size() <= frame) truth_.resize(frame + 1);
    truth_[frame] = decode(output, 0.25f, false);
  }
  void add(std::size_t frame, const runtime::Tensor& output) override {
    agreement_.add(truth_.at(frame), decode(output, vision::kPredictionConf, true));
  }
  std::optional<double> finish() override {
    const std::optional<double> ap = agreement_.result().box_ap50;
    agreement_ = vision::AgreementAccumulator();
    return ap;
  }
  std::string what() const override { return "box AP50"; }

 private:
  vision::Detections decode(const runtime::Tensor& output, float conf, bool multi_label) const {
    vision::DecodeOptions options;
    options.end2end = end2end_;
    options.conf = conf;
    options.multi_label = multi_label;
    // Boxes stay in network-input pixels (scale 1, no padding, a frame too large to clip
    // anything): both sides are judged in the same ones.
    vision::LetterboxTransform identity;
    identity.frame = cv::Size(1 << 16, 1 << 16);
    return vision::postprocess(output.values<float>(), output.shape(), options, identity);
  }

  bool end2end_;
  std::vector<vision::Detections> truth_;
  vision::AgreementAccumulator agreement_;
};

runtime::QuantizeOptions parse_options(const QuantizeArgs& args) {
  runtime::QuantizeOptions options;
  options.method = runtime::parse_calibration_method(args.method);
  options.frames = args.frames;
  options.rounding = runtime::parse_weight_rounding(args.rounding);
  options.bias_correction = args.bias_correction == "on";
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
  auto end2end = std::make_shared<bool>(false);
  options.judge = [end2end] { return std::make_unique<BoxApJudge>(*end2end); };
  options.check_output = [model = args.model, end2end](const runtime::Shape& shape,
                                                       const runtime::ModelMetadata& metadata) {
    *end2end = metadata.end2end;
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
  const auto source = std::make_unique<vision::SpreadSource>(
      vision::open_source(spec), args.frames, args.from_first,
      [spec] { return vision::open_source(spec); });
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
  if (!source->note().empty()) std::fprintf(stderr, "calibration: %s\n", source->note().c_str());
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
  sub->add_option("--frames", args->frames,
                  "Calibrate on at most this many frames, spread evenly over the source where "
                  "its length is known (a video file, a folder), else its first ones")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  sub->add_option("--from-first", args->from_first,
                  "Draw the calibration frames from the first N frames of --calib only (0: all "
                  "of it); compare --skip N then judges on frames the calibration never saw")
      ->check(CLI::Range(0L, 1000000000L))
      ->capture_default_str();
  sub->add_option("--method", args->method,
                  "Activation ranges: mse (per tensor, the range of least expected int8 error, "
                  "min/max included), minmax, percentile or entropy")
      ->check(CLI::IsMember({"minmax", "percentile", "entropy", "mse"}))
      ->capture_default_str();
  sub->add_option("--rounding", args->rounding,
                  "Weight rounding: nearest, or adaptive (per layer, each weight up or down as "
                  "minimises the layer's output error on the calibration frames)")
      ->check(CLI::IsMember({"nearest", "adaptive"}))
      ->capture_default_str();
  sub->add_option("--bias-correction", args->bias_correction,
                  "Correct each conv's bias for the mean output shift its int8 weights cause on "
                  "the calibration frames: on or off")
      ->check(CLI::IsMember({"on", "off"}))
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
