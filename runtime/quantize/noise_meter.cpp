// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/noise_meter.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>

#include "runtime/quantize/model_file.h"
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

// The held frame (floats in `from`) as `engine` takes it, uint8 included (x * 255 is a whole
// pixel value again: held frames are letterboxed uint8 images / 255).
void write_input(std::span<const float> src, InputLayout from, Engine& engine) {
  const int width = engine.input_width(), height = engine.input_height();
  const auto size = static_cast<std::size_t>(3 * width * height);
  if (engine.input_layout() != InputLayout::kNhwcUint8) {
    copy_input(src, from, {static_cast<float*>(engine.input_data()), size}, engine.input_layout(),
               width, height);
    return;
  }
  std::vector<float> nhwc(size);
  copy_input(src, from, nhwc, InputLayout::kNhwcFloat, width, height);
  auto* dst = static_cast<std::uint8_t*>(engine.input_data());
  for (std::size_t i = 0; i < size; ++i) {
    dst[i] = static_cast<std::uint8_t>(std::clamp(std::nearbyint(nhwc[i] * 255.0F), 0.0F, 255.0F));
  }
}

// CPU time of the calling thread, ms: one-thread runs execute on it, and unlike wall time it does
// not count the time other processes of a shared machine hold the core.
double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

}  // namespace

std::vector<float> anchor_confidence(std::span<const float> logits, std::size_t classes) {
  const std::size_t positions = classes == 0 ? 0 : logits.size() / classes;
  std::vector<float> best(positions, -std::numeric_limits<float>::infinity());
  for (std::size_t c = 0; c < classes; ++c) {
    for (std::size_t p = 0; p < positions; ++p) {
      best[p] = std::max(best[p], logits[c * positions + p]);
    }
  }
  // The sigmoid is monotonic: the best logit gives the best score.
  for (float& b : best) b = static_cast<float>(sigmoid(b));
  return best;
}

void add_noise(std::span<const float> reference, std::span<const float> candidate, bool scores,
               std::span<const float> weights, NoiseSums& sums) {
  for (std::size_t i = 0; i < reference.size(); ++i) {
    const double a = scores ? sigmoid(reference[i]) : reference[i];
    const double b = scores ? sigmoid(candidate[i]) : candidate[i];
    const double weight = weights.empty() ? 1.0 : weights[i % weights.size()];
    sums.signal += weight * a * a;
    sums.noise += weight * (a - b) * (a - b);
  }
}

double Measurement::noise_db() const {
  return -10.0 * std::log10(std::max(noise, 1e-30));
}

NoiseMeter::NoiseMeter(const onnx::ModelProto& raised,
                       const std::map<std::string, ActivationRange>& ranges, const WeightPlan& plan,
                       const std::vector<std::string>& final_convs, ObservingEngine& fp32,
                       const Calibration& calib, const std::filesystem::path& beside,
                       const EngineOptions& engine_options, OutputJudge* judge)
    : raised_(raised),
      ranges_(ranges),
      plan_(plan),
      calib_(calib),
      beside_(beside),
      engine_options_(engine_options),
      judge_(judge),
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
  // A box output is weighed by the class output of the same grid (same height and width); none
  // for class outputs and for a box output with no such grid.
  std::vector<std::optional<std::size_t>> weighed_by(outputs_.size());
  for (std::size_t k = 0; k < outputs_.size(); ++k) {
    const Shape& shape = calib.shapes.at(outputs_[k]);
    if (scores_[k] || shape.size() != 4) continue;
    for (std::size_t j = 0; j < outputs_.size(); ++j) {
      const Shape& other = calib.shapes.at(outputs_[j]);
      if (scores_[j] && other[2] == shape[2] && other[3] == shape[3]) weighed_by[k] = j;
    }
  }
  const std::span<float> input = fp32.input();
  reference_.resize(calib.held_frames.size());
  weights_.resize(calib.held_frames.size());
  for (std::size_t f = 0; f < calib.held_frames.size(); ++f) {
    std::copy(calib.held_frames[f].begin(), calib.held_frames[f].end(), input.begin());
    engine.run();
    if (judge_) judge_->set_truth(f, engine.output(0));
    for (const auto& t : outputs_) {
      auto v = fp32.value(t).values<float>();
      reference_[f].emplace_back(v.begin(), v.end());
    }
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      weights_[f].push_back(weighed_by[k]
                                ? anchor_confidence(reference_[f][*weighed_by[k]], classes)
                                : std::vector<float>());
    }
  }
}

Measurement NoiseMeter::measure(const std::set<std::string>& keep) const {
  const onnx::ModelProto q = build_qdq_model(raised_, ranges_, keep, plan_);
  // The noise: the file's arithmetic in float (fake quantization), with the final convs' outputs
  // observed; a quantized conv output's name is that of its DequantizeLinear: what consumers see.
  ObservingEngine e(q, outputs_, beside_, engine_options_);
  std::vector<NoiseSums> sums(outputs_.size());
  Measurement m;
  for (std::size_t f = 0; f < calib_.held_frames.size(); ++f) {
    copy_input(calib_.held_frames[f], fp32_layout_, e.input(), e.engine().input_layout(), width_,
               height_);
    e.engine().run();
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      auto v = e.value(outputs_[k]).values<float>();
      add_noise(reference_[f][k], v, scores_[k], weights_[f][k], sums[k]);
    }
  }
  // The speed and the detections: the engine as it will run the file, int8 (a choice that keeps
  // every conv FP32 leaves no Q/DQ, and runs FP32; the quantizer refuses it afterwards).
  const TempFile file(std::filesystem::temp_directory_path() /
                      unique_sibling(beside_, "candidate").filename());
  save_model(q, file.path());
  EngineOptions options = engine_options_;
  options.precision = Precision::kFile;
  options.profile = true;
  const auto int8 = Engine::load(file.path(), options);
  m.frame_ms = std::numeric_limits<double>::infinity();
  std::vector<OpProfile> before;
  for (std::size_t f = 0; f < calib_.held_frames.size(); ++f) {
    write_input(calib_.held_frames[f], fp32_layout_, *int8);
    const double start = thread_cpu_ms();
    int8->run();
    m.frame_ms = std::min(m.frame_ms, thread_cpu_ms() - start);
    // The profile accumulates over runs: this run's time of each step is the difference. Per
    // node, the fastest of the frames.
    std::vector<OpProfile> after = int8->profile();
    std::map<std::string, double> run_ms;
    for (std::size_t i = 0; i < after.size(); ++i) {
      run_ms[after[i].node] += after[i].total_ms - (i < before.size() ? before[i].total_ms : 0.0);
    }
    for (const auto& [node, ms] : run_ms) {
      auto [it, first] = m.node_ms.emplace(node, ms);
      if (!first) it->second = std::min(it->second, ms);
    }
    before = std::move(after);
    if (judge_) judge_->add(f, int8->output(0));
  }
  if (judge_) m.agreement = judge_->finish();
  for (std::size_t k = 0; k < outputs_.size(); ++k) {
    m.sqnr_db.push_back(sums[k].noise <= 0
                            ? 200.0
                            : 10.0 * std::log10(std::max(sums[k].signal, 1e-30) / sums[k].noise));
    m.noise += std::pow(10.0, -m.sqnr_db.back() / 10.0);
  }
  m.noise /= static_cast<double>(std::max<std::size_t>(final_conv_count_, 1));
  return m;
}

std::vector<double> NoiseMeter::sqnr_db(const std::set<std::string>& keep) const {
  return measure(keep).sqnr_db;
}

double NoiseMeter::noise_ratio(const std::set<std::string>& keep) const {
  return measure(keep).noise;
}

}  // namespace yolo::runtime
