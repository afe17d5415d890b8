// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/calibrate.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <set>

#include "runtime/quantize/error.h"
#include "runtime/quantize/graph_index.h"
#include "runtime/quantize/model_file.h"
#include "text/format.h"

namespace yolo::runtime {

namespace {

void add_float_output(onnx::GraphProto& graph, const std::string& name) {
  auto* v = graph.add_output();
  v->set_name(name);
  v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
}

// The largest x below SiLU's minimum (x = -1.278) with |SiLU(x)| <= step / 2: every input below
// it rounds to the same int8 output as it does (SiLU tends to 0 from below as x -> -inf).
float silu_floor(float step) {
  constexpr double kArgMin = -1.2785;
  auto silu = [](double x) { return x / (1.0 + std::exp(-x)); };
  if (std::abs(silu(kArgMin)) <= step / 2.0) return static_cast<float>(kArgMin);
  double inside = kArgMin;  // |silu| above step / 2
  double outside = -200.0;  // |silu| at most step / 2
  for (int i = 0; i < 60; ++i) {
    const double mid = (inside + outside) / 2;
    (std::abs(silu(mid)) > step / 2.0 ? inside : outside) = mid;
  }
  return static_cast<float>(outside);
}

}  // namespace

ObservingEngine::ObservingEngine(const onnx::ModelProto& model,
                                 const std::vector<std::string>& observe,
                                 const std::filesystem::path& beside,
                                 const EngineOptions& options) {
  onnx::ModelProto copy = model;
  std::set<std::string> existing;
  for (const auto& o : copy.graph().output()) existing.insert(o.name());
  for (const auto& t : observe) {
    if (existing.insert(t).second) add_float_output(*copy.mutable_graph(), t);
  }
  TempFile file(std::filesystem::temp_directory_path() /
                unique_sibling(beside, "observe").filename());
  save_model(copy, file.path());
  engine_ = Engine::load(file.path(), options);
  for (std::size_t i = 0; i < engine_->output_count(); ++i) {
    outputs_[engine_->output_name(i)] = i;
  }
}

std::span<float> ObservingEngine::input() {
  const auto size = static_cast<std::size_t>(3 * engine_->input_width() * engine_->input_height());
  return {static_cast<float*>(engine_->input_data()), size};
}

std::vector<std::string> observed_tensors(const onnx::GraphProto& graph) {
  std::vector<std::string> observe = quantized_tensors(graph, {});
  const GraphIndex index = index_graph(graph);
  observe.erase(std::remove(observe.begin(), observe.end(), index.input), observe.end());
  for (const auto& n : graph.node()) {
    if (n.op_type() == "Softmax" || n.op_type() == "LogSoftmax" || n.op_type() == "Hardmax") {
      if (std::find(observe.begin(), observe.end(), n.input(0)) == observe.end()) {
        observe.push_back(n.input(0));
      }
    }
  }
  return observe;
}

std::vector<ConvTap> conv_taps(const onnx::GraphProto& graph) {
  const GraphIndex index = index_graph(graph);
  std::vector<ConvTap> taps;
  for (const auto& node : graph.node()) {
    if (!is_real_conv(graph, index, node)) continue;
    const onnx::TensorProto& w = *index.initializers.at(node.input(1));
    if (w.dims_size() != 4) continue;
    taps.push_back({node.name(), node.input(0), node.input(1), conv_geometry(node, w),
                    node.input(0) == index.input});
  }
  return taps;
}

ConvInput tap_input(ObservingEngine& fp32, const ConvTap& tap, std::vector<float>& scratch) {
  Engine& engine = fp32.engine();
  if (!tap.reads_model_input) {
    const Tensor& t = fp32.value(tap.input);
    if (t.shape().size() != 4 || t.shape()[0] != 1) {
      throw QuantizeError("conv " + tap.conv + ": its input " + tap.input + " has shape " +
                          shape_text(t.shape()) + ", not [1, C, H, W]");
    }
    return {t.values<float>(), t.shape()[1], t.shape()[2], t.shape()[3]};
  }
  const std::int64_t h = engine.input_height(), w = engine.input_width();
  const std::span<float> in = fp32.input();
  if (engine.input_layout() == InputLayout::kNchwFloat) return {in, 3, h, w};
  scratch.resize(in.size());
  const auto pixels = static_cast<std::size_t>(h * w);
  for (std::size_t p = 0; p < pixels; ++p) {
    for (std::size_t c = 0; c < 3; ++c) scratch[c * pixels + p] = in[p * 3 + c];
  }
  return {scratch, 3, h, w};
}

Calibration calibrate(ObservingEngine& fp32, const std::vector<std::string>& observed,
                      const std::vector<ConvTap>& taps, int max_frames, const FrameProvider& frames,
                      const std::function<void(const std::string&)>& log) {
  Engine& engine = fp32.engine();
  const std::span<float> input = fp32.input();
  Calibration calib;
  for (const auto& tap : taps) calib.patch_means.emplace(tap.conv, PatchMeans(tap.geometry));
  std::vector<float> scratch;
  // Convs reading one tensor (a C2f split's halves, say): its channel peaks are taken at the
  // first of them only.
  std::vector<bool> takes_peaks(taps.size());
  std::set<std::string> tapped;
  for (std::size_t i = 0; i < taps.size(); ++i) {
    takes_peaks[i] = !taps[i].reads_model_input && tapped.insert(taps[i].input).second;
  }
  // Reservoir sampling with a fixed seed: the held frames spread over the whole source, the same
  // ones on every run.
  std::mt19937 sampler(7);
  int& count = calib.frames;
  while (count < max_frames &&
         frames(engine.input_layout(), engine.input_width(), engine.input_height(), input)) {
    engine.run();
    for (const auto& t : observed) {
      const Tensor& v = fp32.value(t);
      calib.stats[t].add(v.values<float>());
      calib.ranks[t] = v.shape().size();
      calib.shapes[t] = v.shape();
    }
    for (std::size_t i = 0; i < taps.size(); ++i) {
      const ConvInput in = tap_input(fp32, taps[i], scratch);
      calib.patch_means.at(taps[i].conv).add(in);
      if (takes_peaks[i]) calib.channel_peaks[taps[i].input].add(in);
    }
    auto& held = calib.held_frames;
    if (static_cast<int>(held.size()) < kSensitivityFrames) {
      held.emplace_back(input.begin(), input.end());
    } else if (const auto slot = std::uniform_int_distribution<int>(0, count)(sampler);
               slot < kSensitivityFrames) {
      held[static_cast<std::size_t>(slot)].assign(input.begin(), input.end());
    }
    ++count;
    if (count % 16 == 0 || count == max_frames) {
      log("calibrated " + std::to_string(count) + " frame(s)");
    }
  }
  if (count == 0) {
    throw QuantizeError(
        "the calibration source gave no frames; give --calib a folder of images, "
        "a video or a camera that delivers frames");
  }
  log("calibrated " + std::to_string(count) + " frame(s) in total");
  return calib;
}

namespace {

// The SiLU input x of a SiLU's Mul node, when x is read by that SiLU only.
std::optional<std::string> silu_only_input(const onnx::GraphProto& graph, const GraphIndex& index,
                                           const onnx::NodeProto& node) {
  if (!is_silu_mul(graph, index, node)) return std::nullopt;
  const onnx::NodeProto* s0 = producer_of(graph, index, node.input(0));
  const std::string& x = s0 && s0->op_type() == "Sigmoid" ? node.input(1) : node.input(0);
  const auto& readers = index.consumers.at(x);
  if (readers.size() != 2 || index.outputs.count(x)) return std::nullopt;
  return x;
}

}  // namespace

std::map<std::string, std::string> refine_ranges(const onnx::GraphProto& graph,
                                                 std::map<std::string, ActivationRange>& ranges) {
  const GraphIndex index = index_graph(graph);
  std::map<std::string, std::string> why;
  for (const auto& node : graph.node()) {
    if (node.op_type() == "Sigmoid" && ranges.count(node.output(0))) {
      ranges[node.output(0)] = {0.0F, 1.0F};
      why[node.output(0)] = "sigmoid output: [0, 1]";
    }
  }
  for (const auto& node : graph.node()) {
    const auto x = silu_only_input(graph, index, node);
    if (!x) continue;
    auto rx = ranges.find(*x);
    auto ry = ranges.find(node.output(0));
    if (rx == ranges.end() || ry == ranges.end()) continue;
    const float step = activation_quant(ry->second).scale;
    const float floor = silu_floor(step);
    if (rx->second.lo >= floor) continue;
    why[*x] = text::format(
        "read only by a SiLU: inputs below %.2f (calibrated min %.2f) give the same int8 output "
        "(step %.4f)",
        floor, rx->second.lo, step);
    rx->second.lo = floor;
  }
  return why;
}

}  // namespace yolo::runtime
