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

Detector::Detector(const DetectorOptions& options) : options_(options) {
  load();
}

void Detector::load() {
  // A reload (imgsz auto, new frame size) keeps the thread count set since.
  if (engine_) options_.engine.threads = engine_->threads();
  auto engine = runtime::Engine::load(options_.model, options_.engine);
  vision::ClassNames names = vision::ClassNames::resolve(engine->metadata().names, options_.labels);
  // A reload keeps the decoder chosen first; a first load picks it from the output.
  const vision::DecoderKind requested = engine_ ? decoder_ : options_.decode.kind;
  const vision::DecoderKind decoder =
      vision::choose_decoder(engine->output(0).shape(), requested, engine->metadata().end2end);
  letterboxer_.emplace(cv::Size(engine->input_width(), engine->input_height()),
                       tensor_layout(engine->input_layout()));
  letterboxer_->set_dither(options_.dither);
  engine_ = std::move(engine);
  names_ = std::move(names);
  decoder_ = decoder;
  options_.decode.kind = decoder_;
}

bool Detector::fits(cv::Size frame) const {
  if (options_.engine.imgsz.mode != runtime::InputSize::Mode::kAuto) return true;
  const runtime::InputSize wanted =
      engine_->input_for(runtime::InputSize::automatic(frame.height, frame.width));
  return wanted.height == engine_->input_height() && wanted.width == engine_->input_width();
}

bool Detector::adapt_to(cv::Size frame) {
  if (fits(frame)) return false;
  options_.engine.imgsz = runtime::InputSize::automatic(frame.height, frame.width);
  load();
  return true;
}

void Detector::set_decode(const vision::DecodeOptions& decode) {
  const bool end2end = options_.decode.end2end;
  options_.decode = decode;
  options_.decode.kind = decoder_;
  options_.decode.end2end = end2end;
}

vision::Detections Detector::detect(const cv::Mat& bgr, DetectTimings* timings) {
  auto start = Clock::now();
  vision::Letterboxer& letterboxer = *letterboxer_;
  const std::size_t n = letterboxer.element_count();
  const vision::LetterboxTransform transform =
      letterboxer.layout() == vision::TensorLayout::kNhwcUint8
          ? letterboxer.run(bgr, std::span(static_cast<std::uint8_t*>(engine_->input_data()), n))
          : letterboxer.run(bgr, std::span(static_cast<float*>(engine_->input_data()), n));
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
