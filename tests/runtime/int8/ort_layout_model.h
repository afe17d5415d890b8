// SPDX-License-Identifier: Apache-2.0
#pragma once

// Small networks in the layout ONNX Runtime's quantize_static (QuantFormat.QDQ, MinMax) writes:
// uint8 activations with asymmetric per-tensor parameters from calibration, one
// QuantizeLinear -> DequantizeLinear pair per activation that every reader shares (ONNX Runtime's
// names: T_QuantizeLinear, T_DequantizeLinear_Output, T_scale, T_zero_point), the input quantized
// too, and every op output quantized, the Sigmoid inside a SiLU included; int8 weights symmetric
// per output channel with explicit zero points and DequantizeLinear(axis 0); int32 biases at
// scale input scale x weight scale behind their own DequantizeLinear.
//
// A network is described once, as a function of an OrtLayoutModel, and built twice: in float
// with every activation also a graph output, which the engine's FP32 path runs on the test image
// to calibrate (min/max, the range widened to include 0), then as the QDQ file.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "runtime/kernels/quantize.h"
#include "tests/runtime/int8/int8_runs.h"
#include "tests/runtime/test_model_builder.h"

namespace yolo::runtime {

class OrtLayoutModel {
 public:
  struct Params {
    float scale = 1.0F;
    int zero_point = 0;  // uint8
  };
  // Calibrated ranges by float tensor name; null for the float pass.
  explicit OrtLayoutModel(const std::map<std::string, std::pair<float, float>>* ranges)
      : ranges_(ranges) {}

  test::ModelBuilder b{17};

  bool quantized() const { return ranges_ != nullptr; }

  // The model input, quantized from [0, 1] as calibration on images finds it.
  std::string input(const std::string& name, std::vector<std::int64_t> dims) {
    b.input(name, dims);
    if (!quantized()) return name;
    return pair(name, {1.0F / 255.0F, 0});
  }

  // Float tensor `t` as its readers see it: in the QDQ file the output of its DequantizeLinear
  // (with `same_as`'s parameters when given: ops that only move values, like Split and MaxPool);
  // in the float pass `t` itself, also a graph output for calibration.
  std::string activation(const std::string& t, const std::string& same_as = "") {
    if (!quantized()) {
      b.output(t);
      return t;
    }
    return pair(t, same_as.empty() ? calibrated(t) : params_.at(same_as));
  }

  // The last activation: the graph output "output" (a Q/DQ pair on it, as ONNX Runtime leaves a
  // quantized op's output).
  void output(const std::string& t) {
    if (!quantized()) {
      b.output(t);
      return;
    }
    pair(t, calibrated(t), "output");
    b.output("output");
  }

  // A node of `op` whose float output is an activation; returns it as readers see it.
  std::string op(const std::string& type, std::vector<std::string> inputs, const std::string& out) {
    b.node(type, std::move(inputs), {out}, out);
    return activation(out);
  }

  // x * Sigmoid(x), both outputs quantized; with `last`, the Mul writes the graph output.
  std::string silu(const std::string& x, const std::string& name, bool last = false) {
    const std::string sig = op("Sigmoid", {x}, name + "_sigmoid");
    if (!last) return op("Mul", {x, sig}, name + "_silu");
    b.node("Mul", {x, sig}, {name + "_silu"}, name + "_silu");
    output(name + "_silu");
    return "output";
  }

  // A positive scalar constant input of a quantized op: int8 behind a DequantizeLinear in the QDQ
  // file (ONNX Runtime quantizes such initializers symmetrically), plain float in the float pass.
  std::string constant(const std::string& name, float value) {
    if (!quantized()) {
      b.floats(name, {}, {value});
      return name;
    }
    b.raw<std::int8_t>(name + "_quantized", onnx::TensorProto::INT8, {}, {127});
    b.floats(name + "_scale", {}, {std::abs(value) / 127.0F});
    b.raw<std::int8_t>(name + "_zero_point", onnx::TensorProto::INT8, {}, {0});
    b.node("DequantizeLinear", {name + "_quantized", name + "_scale", name + "_zero_point"},
           {name + "_DequantizeLinear_Output"}, name + "_DequantizeLinear");
    return name + "_DequantizeLinear_Output";
  }

  // Conv (pads k / 2) with seeded weights and bias; returns the quantized conv output.
  std::string conv(const std::string& x, int cin, int cout, int k, int stride, std::uint32_t seed,
                   const std::string& name) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0F, 1.0F);
    const int per = cin * k * k;
    std::vector<float> w(static_cast<std::size_t>(cout * per));
    const float spread = 2.0F / std::sqrt(static_cast<float>(per));
    for (auto& v : w) v = dist(rng) * spread;
    std::vector<float> bias(static_cast<std::size_t>(cout));
    for (auto& v : bias) v = dist(rng) * 0.2F;
    std::string weights = name + "_w", biases = name + "_b";
    if (!quantized()) {
      b.floats(weights, {cout, cin, k, k}, w);
      b.floats(biases, {cout}, bias);
    } else {
      std::vector<float> scales(static_cast<std::size_t>(cout), 0.0F);
      std::vector<std::int8_t> q(w.size());
      std::vector<std::int32_t> qb(bias.size());
      for (int o = 0; o < cout; ++o) {
        auto& s = scales[static_cast<std::size_t>(o)];
        for (int i = 0; i < per; ++i) s = std::max(s, std::abs(w[std::size_t(o * per + i)]));
        s /= 127.0F;
        for (int i = 0; i < per; ++i) {
          const auto at = static_cast<std::size_t>(o * per + i);
          q[at] = static_cast<std::int8_t>(std::lround(w[at] / s));
        }
      }
      std::vector<float> bias_scales(scales.size());
      for (std::size_t o = 0; o < scales.size(); ++o) {
        bias_scales[o] = params_.at(x).scale * scales[o];
        qb[o] = static_cast<std::int32_t>(std::lround(bias[o] / bias_scales[o]));
      }
      b.raw(weights + "_quantized", onnx::TensorProto::INT8, {cout, cin, k, k}, q);
      b.floats(weights + "_scale", {cout}, scales);
      b.raw(weights + "_zero_point", onnx::TensorProto::INT8, {cout},
            std::vector<std::int8_t>(scales.size(), 0));
      auto& wdq = b.node("DequantizeLinear",
                         {weights + "_quantized", weights + "_scale", weights + "_zero_point"},
                         {weights + "_DequantizeLinear_Output"}, weights + "_DequantizeLinear");
      test::ModelBuilder::attr(wdq, "axis", std::int64_t{0});
      b.raw(biases + "_quantized", onnx::TensorProto::INT32, {cout}, qb);
      b.floats(biases + "_quantized_scale", {cout}, bias_scales);
      b.raw(biases + "_quantized_zero_point", onnx::TensorProto::INT32, {cout},
            std::vector<std::int32_t>(qb.size(), 0));
      auto& bdq = b.node(
          "DequantizeLinear",
          {biases + "_quantized", biases + "_quantized_scale", biases + "_quantized_zero_point"},
          {biases + "_DequantizeLinear_Output"}, biases + "_DequantizeLinear");
      test::ModelBuilder::attr(bdq, "axis", std::int64_t{0});
      weights += "_DequantizeLinear_Output";
      biases += "_DequantizeLinear_Output";
    }
    auto& c = b.node("Conv", {x, weights, biases}, {name}, name);
    test::ModelBuilder::attr(c, "kernel_shape", std::vector<std::int64_t>{k, k});
    test::ModelBuilder::attr(c, "pads", std::vector<std::int64_t>{k / 2, k / 2, k / 2, k / 2});
    test::ModelBuilder::attr(c, "strides", std::vector<std::int64_t>{stride, stride});
    return activation(name);
  }

  // Conv + SiLU, the block every Ultralytics backbone is made of.
  std::string conv_silu(const std::string& x, int cin, int cout, int k, int stride,
                        std::uint32_t seed, const std::string& name) {
    return silu(conv(x, cin, cout, k, stride, seed, name), name);
  }

  // Channel split into equal parts; the outputs keep the input's parameters.
  std::vector<std::string> split(const std::string& x, int parts, int channels,
                                 const std::string& name) {
    b.ints(name + "_sizes", {parts},
           std::vector<std::int64_t>(static_cast<std::size_t>(parts), channels / parts));
    std::vector<std::string> outs;
    for (int i = 0; i < parts; ++i) outs.push_back(name + "_" + std::to_string(i));
    auto& s = b.node("Split", {x, name + "_sizes"}, outs, name);
    test::ModelBuilder::attr(s, "axis", std::int64_t{1});
    for (auto& o : outs) o = activation(o, x);
    return outs;
  }

  std::string concat(std::vector<std::string> inputs, const std::string& name) {
    auto& c = b.node("Concat", std::move(inputs), {name}, name);
    test::ModelBuilder::attr(c, "axis", std::int64_t{1});
    return activation(name);
  }

 private:
  // MinMax calibration as ONNX Runtime computes uint8 parameters: the range widened to include
  // 0, scale = range / 255, zero point = round(-min / scale).
  Params calibrated(const std::string& t) const {
    auto [lo, hi] = ranges_->at(t);
    lo = std::min(lo, 0.0F);
    hi = std::max(hi, 0.0F);
    if (hi == lo) return {1.0F, 0};
    const float scale = (hi - lo) / 255.0F;
    const float zero = std::clamp(kernels::round_half_even(-lo / scale), 0.0F, 255.0F);
    return {scale, static_cast<int>(zero)};
  }

  // The Q/DQ pair on `t`; returns what its readers read.
  std::string pair(const std::string& t, Params p, std::string dq_output = "") {
    if (dq_output.empty()) dq_output = t + "_DequantizeLinear_Output";
    b.floats(t + "_scale", {}, {p.scale});
    b.raw<std::uint8_t>(t + "_zero_point", onnx::TensorProto::UINT8, {},
                        {static_cast<std::uint8_t>(p.zero_point)});
    b.node("QuantizeLinear", {t, t + "_scale", t + "_zero_point"}, {t + "_QuantizeLinear_Output"},
           t + "_QuantizeLinear");
    b.node("DequantizeLinear", {t + "_QuantizeLinear_Output", t + "_scale", t + "_zero_point"},
           {dq_output}, t + "_DequantizeLinear");
    params_[dq_output] = p;
    return dq_output;
  }

  const std::map<std::string, std::pair<float, float>>* ranges_;
  std::map<std::string, Params> params_;
};

// The network `net` describes, calibrated on the test image and written as a QDQ file named
// `file` under the temp folder; returns its path and the output's parameters.
struct OrtLayoutFile {
  std::filesystem::path path;
  float output_scale = 1.0F;
};
inline OrtLayoutFile build_ort_layout(const std::string& file,
                                      const std::function<void(OrtLayoutModel&)>& net) {
  OrtLayoutModel plain(nullptr);
  net(plain);
  const Result calibration = run_model(plain.b.save("float_" + file), Precision::kFp32);
  std::map<std::string, std::pair<float, float>> ranges;
  std::string last;
  for (std::size_t i = 0; i < calibration.outputs.size(); ++i) {
    const auto& v = calibration.outputs[i];
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    ranges[calibration.names[i]] = {*lo, *hi};
    last = calibration.names[i];
  }
  OrtLayoutModel qdq(&ranges);
  net(qdq);
  auto [lo, hi] = ranges.at(last);
  return {qdq.b.save(file), (std::max(hi, 0.0F) - std::min(lo, 0.0F)) / 255.0F};
}

}  // namespace yolo::runtime
