// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/noise_meter.h"

#include <algorithm>
#include <cmath>

#include "runtime/quantize/qdq_rewrite.h"

namespace yolo::runtime {

namespace {

double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

// The same image in the other float layout (NCHW <-> NHWC), 3 channels.
void copy_input(std::span<const float> src, InputLayout from, std::span<float> dst, InputLayout to,
                int width, int height) {
  if (from == to) {
    std::copy(src.begin(), src.end(), dst.begin());
    return;
  }
  const std::size_t pixels = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  for (std::size_t p = 0; p < pixels; ++p) {
    for (std::size_t c = 0; c < 3; ++c) {
      if (from == InputLayout::kNchwFloat) {
        dst[p * 3 + c] = src[c * pixels + p];
      } else {
        dst[c * pixels + p] = src[p * 3 + c];
      }
    }
  }
}

}  // namespace

NoiseMeter::NoiseMeter(const onnx::ModelProto& raised,
                       const std::map<std::string, ActivationRange>& ranges,
                       const std::vector<std::string>& final_convs, ObservingEngine& fp32,
                       const Calibration& calib, const std::filesystem::path& beside,
                       const EngineOptions& engine_options)
    : raised_(raised),
      ranges_(ranges),
      calib_(calib),
      beside_(beside),
      engine_options_(engine_options),
      final_conv_count_(final_convs.size()) {
  Engine& engine = fp32.engine();
  fp32_layout_ = engine.input_layout();
  width_ = engine.input_width();
  height_ = engine.input_height();
  for (const auto& name : final_convs) {
    for (const auto& n : raised.graph().node()) {
      if (n.name() == name) outputs_.push_back(n.output(0));
    }
  }
  const std::size_t classes = engine.metadata().names.size();
  for (const auto& t : outputs_) {
    const Shape& shape = calib.shapes.at(t);
    scores_.push_back(classes > 0 && shape.size() == 4 &&
                      static_cast<std::size_t>(shape[1]) == classes);
  }
  const std::span<float> input = fp32.input();
  reference_.resize(calib.held_frames.size());
  for (std::size_t f = 0; f < calib.held_frames.size(); ++f) {
    std::copy(calib.held_frames[f].begin(), calib.held_frames[f].end(), input.begin());
    engine.run();
    for (const auto& t : outputs_) {
      auto v = fp32.value(t).values<float>();
      reference_[f].emplace_back(v.begin(), v.end());
    }
  }
}

std::vector<double> NoiseMeter::sqnr_db(const std::set<std::string>& keep) const {
  const onnx::ModelProto q = build_qdq_model(raised_, ranges_, keep);
  // A quantized conv output's name is that of its DequantizeLinear: what consumers see.
  ObservingEngine e(q, outputs_, beside_, engine_options_);
  std::vector<double> signal(outputs_.size()), noise(outputs_.size());
  for (std::size_t f = 0; f < calib_.held_frames.size(); ++f) {
    copy_input(calib_.held_frames[f], fp32_layout_, e.input(), e.engine().input_layout(), width_,
               height_);
    e.engine().run();
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      auto v = e.value(outputs_[k]).values<float>();
      const auto& r = reference_[f][k];
      for (std::size_t i = 0; i < r.size(); ++i) {
        const double a = scores_[k] ? sigmoid(r[i]) : r[i];
        const double b = scores_[k] ? sigmoid(v[i]) : v[i];
        signal[k] += a * a;
        noise[k] += (a - b) * (a - b);
      }
    }
  }
  std::vector<double> db(outputs_.size());
  for (std::size_t k = 0; k < outputs_.size(); ++k) {
    db[k] = noise[k] <= 0 ? 200.0 : 10.0 * std::log10(std::max(signal[k], 1e-30) / noise[k]);
  }
  return db;
}

double NoiseMeter::noise_ratio(const std::set<std::string>& keep) const {
  double sum = 0;
  for (const double db : sqnr_db(keep)) sum += std::pow(10.0, -db / 10.0);
  return sum / static_cast<double>(final_conv_count_);
}

}  // namespace yolo::runtime
