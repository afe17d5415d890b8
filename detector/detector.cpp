// SPDX-License-Identifier: Apache-2.0
#include "detector/detector.h"

#include <chrono>
#include <cstdint>
#include <span>

namespace yolo::detector {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::unique_ptr<runtime::Engine> load_engine(const DetectorOptions& options) {
  runtime::EngineOptions engine_options;
  engine_options.precision = options.precision;
  engine_options.threads = options.threads;
  engine_options.imgsz = options.imgsz;
  engine_options.log = options.log;
  engine_options.profile = options.profile;
  engine_options.pools = options.pools;
  return runtime::Engine::load(options.model, engine_options);
}

}  // namespace

vision::TensorLayout tensor_layout(runtime::InputLayout layout) {
  switch (layout) {
    case runtime::InputLayout::kNchwFloat:
      return vision::TensorLayout::kNchwFloat;
    case runtime::InputLayout::kNhwcFloat:
      return vision::TensorLayout::kNhwcFloat;
    case runtime::InputLayout::kNhwcUint8:
      return vision::TensorLayout::kNhwcUint8;
  }
  return vision::TensorLayout::kNchwFloat;
}

Detector::Detector(const DetectorOptions& options)
    : options_(options),
      engine_(load_engine(options)),
      names_(vision::ClassNames::resolve(engine_->metadata().names, options.labels)),
      letterboxer_(cv::Size(engine_->input_width(), engine_->input_height()),
                   tensor_layout(engine_->input_layout())),
      decoder_(vision::choose_decoder(engine_->output(0).shape(), options.decode.kind,
                                      engine_->metadata().end2end)) {
  options_.decode.kind = decoder_;
}

void Detector::set_decode(const vision::DecodeOptions& decode) {
  const bool end2end = options_.decode.end2end;
  options_.decode = decode;
  options_.decode.kind = decoder_;
  options_.decode.end2end = end2end;
}

vision::Detections Detector::detect(const cv::Mat& bgr, DetectTimings* timings) {
  auto start = Clock::now();
  const std::size_t n = letterboxer_.element_count();
  const vision::LetterboxTransform transform =
      letterboxer_.layout() == vision::TensorLayout::kNhwcUint8
          ? letterboxer_.run(bgr, std::span(static_cast<std::uint8_t*>(engine_->input_data()), n))
          : letterboxer_.run(bgr, std::span(static_cast<float*>(engine_->input_data()), n));
  const double preprocess = ms_since(start);

  start = Clock::now();
  engine_->run();
  const double inference = ms_since(start);

  start = Clock::now();
  const runtime::Tensor& output = engine_->output(0);
  vision::Detections detections =
      vision::postprocess(output.values<float>(), output.shape(), options_.decode, transform);
  if (timings) *timings = {preprocess, inference, ms_since(start)};
  return detections;
}

}  // namespace yolo::detector
