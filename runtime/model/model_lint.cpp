// SPDX-License-Identifier: Apache-2.0
#include "runtime/model/model_lint.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "runtime/engine/engine.h"
#include "runtime/engine/graph.h"
#include "runtime/int8/qoperator.h"
#include "runtime/kernels/quantize.h"
#include "runtime/model/fp32_rewrite.h"
#include "runtime/model/model_error.h"
#include "runtime/model/onnx_model.h"

namespace yolo::runtime {

namespace {

using onnx::NodeProto;
using onnx::TensorProto;

// Ops that move or select score values without computing new ones: a Q/DQ pair behind them still
// rounds the scores the model outputs.
const std::set<std::string>& score_carriers() {
  static const std::set<std::string> ops = {
      "Concat",    "Reshape",        "Transpose",      "Split",           "Slice",    "Gather",
      "GatherND",  "Squeeze",        "Unsqueeze",      "Flatten",         "Identity", "TopK",
      "ReduceMax", "GatherElements", "QuantizeLinear", "DequantizeLinear"};
  return ops;
}

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

bool is_op(const NodeProto& node, const char* type) {
  return (node.domain().empty() || node.domain() == "ai.onnx") && node.op_type() == type;
}

std::string node_name(const NodeProto& node) {
  if (!node.name().empty()) return node.name();
  return node.output_size() > 0 ? node.output(0) : node.op_type();
}

std::string quote(const NodeProto& node) {
  return node.op_type() + " '" + node_name(node) + "'";
}

// The model's graph indexed by tensor name.
class GraphIndex {
 public:
  explicit GraphIndex(const onnx::GraphProto& graph) : graph_(graph) {
    for (const auto& t : graph.initializer()) constants_[t.name()] = &t;
    for (int i = 0; i < graph.node_size(); ++i) {
      const NodeProto& node = graph.node(i);
      for (const auto& out : node.output()) producer_[out] = &node;
      for (const auto& in : node.input()) consumers_[in].push_back(&node);
      if (node.op_type() == "Constant" && node.output_size() == 1) {
        for (const auto& a : node.attribute()) {
          if (a.name() == "value" && a.has_t()) constants_[node.output(0)] = &a.t();
        }
      }
    }
    for (const auto& out : graph.output()) outputs_.insert(out.name());
  }

  const TensorProto* constant(const std::string& name) const {
    const auto it = constants_.find(name);
    return it == constants_.end() ? nullptr : it->second;
  }
  const NodeProto* producer(const std::string& name) const {
    const auto it = producer_.find(name);
    return it == producer_.end() ? nullptr : it->second;
  }
  const std::vector<const NodeProto*>& consumers(const std::string& name) const {
    static const std::vector<const NodeProto*> none;
    const auto it = consumers_.find(name);
    return it == consumers_.end() ? none : it->second;
  }
  bool is_output(const std::string& name) const { return outputs_.count(name) > 0; }
  const onnx::GraphProto& graph() const { return graph_; }

  // The float values of a constant, or none when it is not a readable float constant.
  std::optional<std::vector<float>> floats(const std::string& name) const {
    const TensorProto* t = constant(name);
    if (!t || t->data_type() != TensorProto::FLOAT) return std::nullopt;
    try {
      const Tensor tensor = tensor_from_proto(*t, name);
      const auto v = tensor.values<float>();
      return std::vector<float>(v.begin(), v.end());
    } catch (const ModelError&) {
      return std::nullopt;
    }
  }

 private:
  const onnx::GraphProto& graph_;
  std::unordered_map<std::string, const TensorProto*> constants_;
  std::unordered_map<std::string, const NodeProto*> producer_;
  std::unordered_map<std::string, std::vector<const NodeProto*>> consumers_;
  std::set<std::string> outputs_;
};

// A QuantizeLinear's per-tensor parameters with its integer range.
struct QParams {
  float scale = 1.0F;
  int zero_point = 0;
  int qmin = 0, qmax = 255;
};

std::optional<QParams> per_tensor_params(const GraphIndex& index, const NodeProto& q) {
  if (q.input_size() < 2) return std::nullopt;
  const auto scale = index.floats(q.input(1));
  if (!scale || scale->size() != 1) return std::nullopt;
  QParams p;
  p.scale = (*scale)[0];
  if (q.input_size() > 2 && !q.input(2).empty()) {
    const TensorProto* zero = index.constant(q.input(2));
    if (!zero) return std::nullopt;
    try {
      const Tensor t = tensor_from_proto(*zero, q.input(2));
      if (t.size() != 1) return std::nullopt;
      if (t.dtype() == DType::kInt8) {
        p.zero_point = t.data_as<std::int8_t>()[0];
        p.qmin = -128;
        p.qmax = 127;
      } else if (t.dtype() == DType::kUInt8) {
        p.zero_point = t.data_as<std::uint8_t>()[0];
      } else {
        return std::nullopt;
      }
    } catch (const ModelError&) {
      return std::nullopt;
    }
  }
  return p;
}

// What QuantizeLinear makes of x.
int quantize(float x, const QParams& p) {
  const float level = kernels::round_half_even(x / p.scale) + static_cast<float>(p.zero_point);
  return static_cast<int>(
      std::clamp(level, static_cast<float>(p.qmin), static_cast<float>(p.qmax)));
}

class Linter {
 public:
  Linter(const onnx::ModelProto& model, std::filesystem::path file)
      : model_(model), file_(std::move(file)), index_(model.graph()) {}

  std::vector<LintFinding> run() {
    score_levels();
    scales_and_zero_points();
    channel_scale_ratio();
    dynamic_quantization();
    qoperator();
    input_quantization();
    return std::move(findings_);
  }

 private:
  const onnx::GraphProto& graph() const { return model_.graph(); }

  void add(std::string check, const NodeProto* node, std::string message, std::string fix,
           nlohmann::json details = nlohmann::json::object()) {
    findings_.push_back({std::move(check), node ? node_name(*node) : std::string(),
                         std::move(message), std::move(fix), std::move(details)});
  }

  // The QuantizeLinear nodes whose rounding reaches a graph output through score-carrying ops
  // from `tensor`; `reaches` memoizes per tensor.
  bool collect_rounding(const std::string& tensor, std::map<std::string, bool>& reaches,
                        std::vector<const NodeProto*>& rounding) {
    if (const auto it = reaches.find(tensor); it != reaches.end()) return it->second;
    reaches[tensor] = false;
    bool any = index_.is_output(tensor);
    for (const NodeProto* c : index_.consumers(tensor)) {
      if (!score_carriers().count(c->op_type())) continue;
      // Only the data input of a Q/DQ carries values (scale and zero point are parameters).
      if ((is_op(*c, "QuantizeLinear") || is_op(*c, "DequantizeLinear")) && c->input(0) != tensor) {
        continue;
      }
      bool through = false;
      for (const auto& out : c->output()) {
        if (!out.empty()) through = collect_rounding(out, reaches, rounding) || through;
      }
      if (through && is_op(*c, "QuantizeLinear")) rounding.push_back(c);
      any = any || through;
    }
    reaches[tensor] = any;
    return any;
  }

  void score_levels() {
    // What each QuantizeLinear rounds, and whether that is the output (boxes and scores).
    struct Checked {
      const NodeProto* q;
      std::string what;
      bool output;
    };
    std::vector<Checked> checked;
    std::set<const NodeProto*> seen;
    auto check_all = [&](const std::string& from, const std::string& what, bool output) {
      std::map<std::string, bool> reaches;
      std::vector<const NodeProto*> rounding;
      collect_rounding(from, reaches, rounding);
      for (const NodeProto* q : rounding) {
        if (seen.insert(q).second) checked.push_back({q, what, output});
      }
    };
    // A pair right on an output (behind reshapes) rounds what the model outputs, scores included.
    for (const auto& out : graph().output()) {
      std::string t = out.name();
      while (const NodeProto* p = index_.producer(t)) {
        const bool single = p->input_size() >= 1 && score_carriers().count(p->op_type()) &&
                            p->op_type() != "Concat" && p->op_type() != "TopK";
        if (!single) break;
        t = p->input(0);
      }
      check_all(t, "the detection output '" + out.name() + "'", true);
    }
    for (const auto& node : graph().node()) {
      if (is_op(node, "Sigmoid") && node.output_size() == 1) {
        check_all(node.output(0), "the class scores of Sigmoid '" + node_name(node) + "'", false);
      }
    }
    for (const auto& [q, what, output] : checked) {
      const auto p = per_tensor_params(index_, *q);
      if (!p || !(p->scale > 0.0F) || !std::isfinite(p->scale)) continue;
      const int zero = quantize(0.0F, *p);
      const int one = quantize(1.0F, *p);
      const int levels = one - zero + 1;
      if (levels >= kMinScoreLevels) continue;
      const double best = static_cast<double>(one - p->zero_point) * p->scale;
      std::string message =
          quote(*q) + " rounds " + what + " with scale " + number(p->scale) + " and zero point " +
          std::to_string(p->zero_point) + ": scores from 0 to 1 get " + std::to_string(levels) +
          " level" + (levels == 1 ? "" : "s") + " (fewer than " + std::to_string(kMinScoreLevels) +
          ") and the best possible score is " + number(best);
      if (best < 0.25) {
        message += ", below the default threshold 0.25: the model never detects anything";
      }
      message += output ? ". One scale shared by box coordinates in pixels and class scores is the "
                          "usual cause"
                        : ". A scale made for a range far wider than [0, 1] is the usual cause";
      add("score-levels", q, message,
          "re-export with the detection output kept FP32: leave this Q/DQ pair out (ONNX "
          "Runtime quantize_static: nodes_to_exclude with the nodes that write the output and "
          "the scores), or quantize the FP32 model with `yolo-edge quantize`, which keeps the "
          "detection tail FP32",
          {{"tensor", q->input(0)},
           {"rounds", what},
           {"scale", p->scale},
           {"zero_point", p->zero_point},
           {"levels", levels},
           {"best_score", best}});
    }
  }

  // Once per scale or zero-point tensor (a Q/DQ pair shares its own), naming its first reader.
  void scales_and_zero_points() {
    std::set<std::string> scales, zeros;
    for (const auto& node : graph().node()) {
      const bool q = is_op(node, "QuantizeLinear");
      if (!q && !is_op(node, "DequantizeLinear")) continue;
      if (node.input_size() > 1 && scales.insert(node.input(1)).second) bad_scales(node);
      if (node.input_size() > 2 && !node.input(2).empty() && zeros.insert(node.input(2)).second) {
        zero_point_range(node, q);
      }
    }
  }

  void bad_scales(const NodeProto& node) {
    const auto scales = index_.floats(node.input(1));
    if (!scales) return;
    std::map<std::string, int> kinds;
    std::string first;
    for (std::size_t i = 0; i < scales->size(); ++i) {
      const float s = (*scales)[i];
      std::string kind;
      if (std::isnan(s)) {
        kind = "NaN";
      } else if (std::isinf(s)) {
        kind = "infinite";
      } else if (s == 0.0F) {
        kind = "zero";
      } else if (s < 0.0F) {
        kind = "negative";
      } else if (std::fpclassify(s) == FP_SUBNORMAL) {
        kind = "denormal";
      } else {
        continue;
      }
      if (kinds.empty()) {
        first = (scales->size() > 1 ? "channel " + std::to_string(i) + ": " : std::string()) +
                number(s);
      }
      ++kinds[kind];
    }
    if (kinds.empty()) return;
    std::string what;
    for (const auto& [kind, n] : kinds) {
      what += (what.empty() ? "" : ", ") + std::to_string(n) + " " + kind;
    }
    add("bad-scale", &node,
        quote(node) + " has scale '" + node.input(1) + "' with " + what + " value(s) of " +
            std::to_string(scales->size()) + " (first " + first + "): every value it " +
            (is_op(node, "QuantizeLinear") ? "quantizes" : "dequantizes") +
            " becomes 0, infinite or NaN",
        "re-quantize the model from its FP32 original; a zero or denormal scale comes from a "
        "tensor that was constant 0 during calibration (calibrate on real frames)",
        {{"scale", node.input(1)}, {"bad_values", kinds}, {"values", scales->size()}});
  }

  void zero_point_range(const NodeProto& node, bool quantize_node) {
    const TensorProto* zero = index_.constant(node.input(2));
    if (!zero) return;
    const int type = zero->data_type();
    const bool int8 = type == TensorProto::INT8, uint8 = type == TensorProto::UINT8;
    const bool int32 = type == TensorProto::INT32;
    if (!int8 && !uint8 && !(int32 && !quantize_node)) {
      add("zero-point-range", &node,
          quote(node) + " has zero point '" + node.input(2) + "' of ONNX element type " +
              std::to_string(type) + ", which " +
              (quantize_node ? "QuantizeLinear" : "DequantizeLinear") +
              " does not take here (int8 or uint8" +
              (quantize_node ? "" : ", or int32 for a bias") + ")",
          "re-export with int8 or uint8 quantization",
          {{"zero_point", node.input(2)}, {"element_type", type}});
      return;
    }
    if (zero->has_raw_data() || int32) return;  // raw bytes hold only values of the type
    const int lo = int8 ? -128 : 0, hi = int8 ? 127 : 255;
    for (int i = 0; i < zero->int32_data_size(); ++i) {
      const int v = zero->int32_data(i);
      if (v >= lo && v <= hi) continue;
      add("zero-point-range", &node,
          quote(node) + " has zero point " + std::to_string(v) + " in '" + node.input(2) +
              "', outside " + (int8 ? "int8" : "uint8") + " [" + std::to_string(lo) + ", " +
              std::to_string(hi) + "]: readers wrap it to another value",
          "re-export the model; the tool that wrote it stored the zero point unchecked",
          {{"zero_point", node.input(2)}, {"value", v}, {"min", lo}, {"max", hi}});
      return;
    }
  }

  void channel_scale_ratio() {
    for (const auto& node : graph().node()) {
      if (!is_op(node, "DequantizeLinear") || node.input_size() < 2) continue;
      const TensorProto* weights = index_.constant(node.input(0));
      if (!weights) continue;
      const auto scales = index_.floats(node.input(1));
      if (!scales || scales->size() < 2) continue;
      Tensor w;
      try {
        w = tensor_from_proto(*weights, node.input(0));
      } catch (const ModelError&) {
        continue;
      }
      if (w.dtype() != DType::kInt8 && w.dtype() != DType::kUInt8) continue;
      if (w.shape().empty() || w.shape()[0] != static_cast<std::int64_t>(scales->size())) continue;
      // A channel whose weights are all zero (after the zero point) computes 0 whatever its
      // scale: only live channels count.
      const std::int64_t per = w.size() / w.shape()[0];
      std::optional<std::vector<float>> zeros;
      if (node.input_size() > 2 && !node.input(2).empty()) {
        const TensorProto* z = index_.constant(node.input(2));
        if (z) {
          try {
            const Tensor zt = tensor_from_proto(*z, node.input(2));
            zeros.emplace();
            for (std::int64_t i = 0; i < zt.size(); ++i) {
              zeros->push_back(zt.dtype() == DType::kUInt8 ? zt.data_as<std::uint8_t>()[i]
                                                           : zt.data_as<std::int8_t>()[i]);
            }
          } catch (const ModelError&) {
            zeros.reset();
          }
        }
      }
      int lo = -1, hi = -1;
      for (std::size_t o = 0; o < scales->size(); ++o) {
        const float s = (*scales)[o];
        if (!(s > 0.0F) || !std::isfinite(s)) continue;
        const float z = zeros && zeros->size() == scales->size() ? (*zeros)[o] : 0.0F;
        bool live = false;
        for (std::int64_t i = 0; i < per && !live; ++i) {
          const std::int64_t k = static_cast<std::int64_t>(o) * per + i;
          const float v = w.dtype() == DType::kUInt8 ? w.data_as<std::uint8_t>()[k]
                                                     : w.data_as<std::int8_t>()[k];
          live = v != z;
        }
        if (!live) continue;
        if (lo < 0 || s < (*scales)[static_cast<std::size_t>(lo)]) lo = static_cast<int>(o);
        if (hi < 0 || s > (*scales)[static_cast<std::size_t>(hi)]) hi = static_cast<int>(o);
      }
      if (lo < 0) continue;
      const double smallest = (*scales)[static_cast<std::size_t>(lo)];
      const double largest = (*scales)[static_cast<std::size_t>(hi)];
      const double ratio = largest / smallest;
      if (ratio <= kMaxChannelScaleRatio) continue;
      const NodeProto* reader =
          index_.consumers(node.output(0)).empty() ? nullptr : index_.consumers(node.output(0))[0];
      add("channel-scale-ratio", &node,
          quote(node) + " (weights '" + node.input(0) + "'" +
              (reader ? " of " + quote(*reader) : std::string()) +
              ") has per-channel scales from " + number(smallest) + " (channel " +
              std::to_string(lo) + ") to " + number(largest) + " (channel " + std::to_string(hi) +
              "), a ratio of " + number(ratio) + " (over " + number(kMaxChannelScaleRatio) +
              "): the small channels are dead or the large ones exploding",
          "check the FP32 model's weights (a channel that trained to nearly 0, or a fused batch "
          "norm with a tiny variance); prune or re-train it, or keep that layer FP32 when "
          "quantizing (`yolo-edge quantize --keep-fp32 NODE`)",
          {{"weights", node.input(0)},
           {"min_scale", smallest},
           {"min_channel", lo},
           {"max_scale", largest},
           {"max_channel", hi},
           {"ratio", ratio}});
    }
  }

  void dynamic_quantization() {
    const NodeProto* first = nullptr;
    std::size_t dynamic = 0, integer = 0;
    for (const auto& node : graph().node()) {
      if (is_op(node, "DynamicQuantizeLinear")) {
        if (!first) first = &node;
        ++dynamic;
      }
      integer += is_op(node, "ConvInteger") || is_op(node, "MatMulInteger");
    }
    if (!first) return;
    const std::filesystem::path model = file_.empty() ? "MODEL.onnx" : file_;
    const std::filesystem::path out = int8_sibling(model);
    add("dynamic-quantization", first, dynamic_int8_cost(dynamic),
        "make a static INT8 model from this file: `yolo-edge quantize --model " + model.string() +
            " --calib SRC --out " + out.string() +
            "` (it starts from the FP32 graph the file folds into, calibrates on your frames "
            "and runs int8 end to end)",
        {{"dynamic_quantize_linear", dynamic}, {"integer_ops", integer}});
  }

  void qoperator() {
    const NodeProto* first = nullptr;
    std::size_t count = 0;
    for (const auto& node : graph().node()) {
      if (!is_qoperator(node.domain(), node.op_type())) continue;
      if (!first) first = &node;
      ++count;
    }
    if (!first) return;
    add("qoperator", first,
        std::to_string(count) + " QOperator INT8 node(s), the first " + quote(*first) +
            ": yolo-edge does not run them, so this model does not load",
        qoperator_advice(), {{"qoperator_nodes", count}});
  }

  void input_quantization() {
    std::set<std::string> initializers;
    for (const auto& t : graph().initializer()) initializers.insert(t.name());
    for (const auto& in : graph().input()) {
      if (initializers.count(in.name())) continue;
      for (const NodeProto* q : index_.consumers(in.name())) {
        if (!is_op(*q, "QuantizeLinear") || q->input(0) != in.name()) continue;
        const auto p = per_tensor_params(index_, *q);
        if (!p) continue;
        const int image_zero = p->qmin == 0 ? 0 : -128;
        if (std::abs(p->scale * 255.0F - 1.0F) <= 1e-5F && p->zero_point == image_zero) continue;
        std::int64_t pixels = 0;
        const auto& shape = in.type().tensor_type().shape();
        if (shape.dim_size() == 4 && shape.dim(2).dim_value() > 0 && shape.dim(3).dim_value() > 0) {
          pixels = shape.dim(2).dim_value() * shape.dim(3).dim_value();
        }
        std::string cost =
            "the INT8 plan then letterboxes each frame into a float image and quantizes it (one "
            "extra pass over 3 x H x W values";
        if (pixels > 0) {
          cost += ", a " + number(static_cast<double>(pixels) * 3 * 4 / (1024.0 * 1024.0)) +
                  " MiB float image at this input size";
        }
        cost += ") where a matching input takes the uint8 frame as it is";
        add("input-quantization", q,
            "input '" + in.name() + "' is quantized by " + quote(*q) + " with scale " +
                number(p->scale) + " and zero point " + std::to_string(p->zero_point) +
                ", not as a uint8 image (scale 1/255 = " + number(1.0 / 255.0) + ", zero point " +
                std::to_string(image_zero) +
                "), so the int8 input cannot be fed straight from the frame: " + cost,
            "quantize with the input's range fixed to [0, 1] (ONNX Runtime quantize_static: "
            "extra_options TensorQuantOverrides for the input with scale 1/255 and zero point " +
                std::to_string(image_zero) + "), or use `yolo-edge quantize`, which does",
            {{"input", in.name()},
             {"scale", p->scale},
             {"zero_point", p->zero_point},
             {"float_image_bytes", pixels * 3 * 4}});
      }
    }
  }

  const onnx::ModelProto& model_;
  std::filesystem::path file_;
  GraphIndex index_;
  std::vector<LintFinding> findings_;
};

}  // namespace

std::string dynamic_int8_cost(std::size_t dynamic_quantize_count) {
  return "Dynamic INT8 models run slower than FP32 on most CPUs: this one quantizes its "
         "activations again on every run (" +
         std::to_string(dynamic_quantize_count) +
         " DynamicQuantizeLinear ops) and turns every integer result back into float (ONNX "
         "Runtime, 1 thread on an x86 machine: yolo26n 270 ms dynamic INT8 vs 68 ms FP32). "
         "yolo-edge runs it by folding each ConvInteger chain back into an FP32 Conv, so expect "
         "FP32 speed";
}

std::vector<LintFinding> lint_model(const onnx::ModelProto& model,
                                    const std::filesystem::path& file) {
  return Linter(model, file).run();
}

std::vector<LintFinding> lint_model_file(const std::filesystem::path& path,
                                         const InputSize& imgsz) {
  std::vector<LintFinding> findings;
  {
    OnnxModel model = OnnxModel::load(path);
    findings = lint_model(model.proto(), path);
    // A malformed graph is no finding: the file cannot load at all (ModelError).
    convert_float16(model.proto(), path.string());
    Graph::from_onnx(model.proto(), path.string());
  }
  // The engine refuses QOperator nodes, which the qoperator finding says already.
  const bool qoperator = std::any_of(findings.begin(), findings.end(),
                                     [](const LintFinding& f) { return f.check == "qoperator"; });
  if (qoperator) return findings;
  if (auto refusal = load_refusal(path, imgsz)) {
    findings.push_back(
        {.check = "unsupported",
         .node = {},
         .message = std::move(*refusal),
         .fix = "yolo-edge detect, bench and the daemon refuse this file at load: do what the "
                "message says (for an op or attribute: re-export the model with one the message "
                "lists as supported)",
         .details = nlohmann::json::object()});
  }
  return findings;
}

nlohmann::json to_json(const LintFinding& finding) {
  return {{"check", finding.check},
          {"node", finding.node},
          {"message", finding.message},
          {"fix", finding.fix},
          {"details", finding.details}};
}

std::string to_string(const LintFinding& finding) {
  return finding.check + ": " + finding.message + "; " + finding.fix;
}

}  // namespace yolo::runtime
