// SPDX-License-Identifier: Apache-2.0
#include "daemon/model/model_plan.h"

#include <cstdio>

namespace yolo::daemon {

namespace fs = std::filesystem;

namespace {

vision::DecoderKind decoder_kind(config::Decoder d) {
  switch (d) {
    case config::Decoder::kAuto:
      return vision::DecoderKind::kAuto;
    case config::Decoder::kYolov8:
      return vision::DecoderKind::kYolov8;
    case config::Decoder::kEnd2end:
      return vision::DecoderKind::kEnd2End;
    case config::Decoder::kYolov5:
      return vision::DecoderKind::kYolov5;
  }
  return vision::DecoderKind::kAuto;
}

}  // namespace

detector::DetectorOptions detector_options(const ModelTarget& target) {
  detector::DetectorOptions options;
  options.model = target.file;
  options.engine.precision = target.precision == config::Precision::kInt8
                                 ? runtime::Precision::kInt8
                                 : runtime::Precision::kFp32;
  options.engine.threads = 1;
  options.engine.imgsz = target.imgsz;
  options.engine.imgsz_key = "model.imgsz";
  options.labels = target.labels;
  options.decode.kind = decoder_kind(target.decoder);
  return options;
}

std::string describe(const ModelTarget& t) {
  std::string text = t.file.filename().string() + " (" + precision_name(t.precision);
  if (t.imgsz.mode == runtime::InputSize::Mode::kFixed) text += ", " + runtime::to_string(t.imgsz);
  return text + ")";
}

bool wants_int8(config::Precision p) {
  return p == config::Precision::kInt8 || p == config::Precision::kAuto;
}

runtime::InputSize input_size(const config::ModelConfig& model, cv::Size frame, ModelFiles& files) {
  runtime::InputSize request = model.imgsz;
  if (request.mode == runtime::InputSize::Mode::kAuto) {
    request = runtime::InputSize::automatic(frame.height, frame.width);
  }
  if (request.mode == runtime::InputSize::Mode::kModel) return request;
  return files.model_file(model.path).input_for(request, "model.imgsz");
}

fs::path made_int8_path(const config::ModelConfig& model, const runtime::InputSize& imgsz,
                        const fs::path& int8_dir, ModelFiles& files) {
  if (!model.int8_path.empty()) return model.int8_path;
  char tag[40];
  std::snprintf(tag, sizeof tag, "-%016llx",
                static_cast<unsigned long long>(files.content_hash(model.path)));
  std::string name = model.path.stem().string() + tag;
  if (imgsz.mode == runtime::InputSize::Mode::kFixed) {
    // Appended piece by piece: GCC 12 warns (-Wrestrict, falsely) on "-" + a temporary here.
    name += '-';
    name += imgsz.height == imgsz.width ? std::to_string(imgsz.height) : runtime::to_string(imgsz);
  }
  return int8_dir / (name + ".int8.onnx");
}

Plan plan_model(const config::ModelConfig& model, const PlanContext& context, ModelFiles& files) {
  Plan p;
  const runtime::InputSize imgsz = input_size(model, context.frame, files);
  p.fp32 = {model.path, config::Precision::kFp32, imgsz, model.labels, model.decoder};
  p.run = p.fp32;
  // A static INT8 model.path is its own INT8 model.
  const bool static_int8 = files.model_file(model.path).precision == runtime::Precision::kInt8;
  if (model.precision == config::Precision::kFile && static_int8) {
    p.run.precision = config::Precision::kInt8;
  }
  // The INT8 model of model.path, whatever runs: what the INT8 checks judge against FP32.
  ModelTarget int8 = p.fp32;
  int8.precision = config::Precision::kInt8;
  if (!model.int8_path.empty() && files.exists(model.int8_path)) {
    int8.file = model.int8_path;
  } else if (static_int8) {
    int8.file = model.path;
  } else {
    // The config check refuses int8 and auto without int8_path unless quantize is auto.
    const fs::path made = made_int8_path(model, imgsz, context.int8_dir, files);
    if (!files.exists(made)) {
      if (wants_int8(model.precision)) p.make = made;
      return p;
    }
    int8.file = made;
  }
  p.int8 = int8;
  if (!wants_int8(model.precision)) return p;
  if (model.precision == config::Precision::kInt8) {
    p.run = int8;
    return p;
  }
  p.candidate = int8;
  if (context.int8_chosen == ModelPair{p.fp32, int8}) p.run = int8;
  return p;
}

}  // namespace yolo::daemon
