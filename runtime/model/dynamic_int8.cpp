// SPDX-License-Identifier: Apache-2.0
// Dynamic-INT8 chains rewritten into FP32 convolutions at load (runtime/model/fp32_rewrite.h).
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/engine/graph.h"
#include "runtime/engine/tensor.h"
#include "runtime/model/fp32_rewrite.h"

namespace yolo::runtime {

namespace {

bool is_op(const onnx::NodeProto& node, const char* op) {
  return (node.domain().empty() || node.domain() == "ai.onnx") && node.op_type() == op;
}

// Value i of a per-tensor (one element) or per-channel (n elements) quantization parameter.
float param_at(const Tensor& t, std::int64_t i) {
  const std::int64_t k = t.size() == 1 ? 0 : i;
  switch (t.dtype()) {
    case DType::kFloat32:
      return t.data_as<float>()[k];
    case DType::kInt8:
      return t.data_as<std::int8_t>()[k];
    case DType::kUInt8:
      return t.data_as<std::uint8_t>()[k];
    case DType::kInt32:
      return static_cast<float>(t.data_as<std::int32_t>()[k]);
    default:
      return static_cast<float>(t.data_as<std::int64_t>()[k]);
  }
}

onnx::TensorProto float_initializer(const std::string& name, const Shape& dims,
                                    const std::vector<float>& values) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  for (auto d : dims) t.add_dims(d);
  t.set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * 4));
  return t;
}

class Folder {
 public:
  Folder(onnx::ModelProto& model, DynamicInt8 mode) : graph_(*model.mutable_graph()), mode_(mode) {
    for (const auto& init : graph_.initializer()) {
      constants_.emplace(init.name(), &init);
      names_.insert(init.name());
    }
    for (int i = 0; i < graph_.node_size(); ++i) {
      const auto& node = graph_.node(i);
      for (const auto& out : node.output()) {
        producer_[out] = i;
        names_.insert(out);
      }
      for (const auto& in : node.input()) {
        if (!in.empty()) ++reads_[in];
        names_.insert(in);
      }
      if (is_op(node, "Constant") && node.attribute_size() == 1 &&
          node.attribute(0).name() == "value" && node.output_size() == 1) {
        constants_.emplace(node.output(0), &node.attribute(0).t());
      }
    }
    for (const auto& out : graph_.output()) ++reads_[out.name()];
  }

  Int8FoldStats run() {
    dead_.assign(static_cast<std::size_t>(graph_.node_size()), false);
    for (int i = 0; i < graph_.node_size(); ++i) fold(i);
    if (stats_.total() == 0) return stats_;
    rebuild_nodes();
    remove_unused();
    return stats_;
  }

 private:
  // The constant `name` holds: an initializer, a Constant node's value, or either through a
  // Reshape or Identity (ONNX Runtime's quantizer reshapes each bias to [1, C, 1, 1]); none for
  // anything else.
  std::optional<Tensor> constant(const std::string& name) const {
    if (name.empty()) return std::nullopt;
    if (const auto it = constants_.find(name); it != constants_.end()) {
      try {
        return tensor_from_proto(*it->second, name);
      } catch (const std::exception&) {
        return std::nullopt;  // left to the engine, which says what is wrong with it
      }
    }
    const int p = producer(name);
    if (p < 0) return std::nullopt;
    const onnx::NodeProto& node = graph_.node(p);
    if (is_op(node, "Identity") && node.input_size() == 1) return constant(node.input(0));
    if (!is_op(node, "Reshape") || node.input_size() != 2) return std::nullopt;
    std::optional<Tensor> data = constant(node.input(0));
    const std::optional<Tensor> dims = constant(node.input(1));
    if (!data || !dims || dims->dtype() != DType::kInt64) return std::nullopt;
    Shape shape(dims->values<std::int64_t>().begin(), dims->values<std::int64_t>().end());
    std::int64_t known = 1;
    int unknown = -1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] == 0 && i < data->shape().size()) shape[i] = data->shape()[i];
      if (shape[i] == -1 && unknown < 0) {
        unknown = static_cast<int>(i);
      } else if (shape[i] <= 0) {
        return std::nullopt;
      } else {
        known *= shape[i];
      }
    }
    if (unknown >= 0) shape[static_cast<std::size_t>(unknown)] = data->size() / known;
    if (element_count(shape) != data->size()) return std::nullopt;
    data->reshape(std::move(shape));
    return data;
  }

  // The node reading `name`, when exactly one does and it is not a graph output.
  int sole_reader(const std::string& name) const {
    const auto it = reads_.find(name);
    if (it == reads_.end() || it->second != 1) return -1;
    for (int i = 0; i < graph_.node_size(); ++i) {
      for (const auto& in : graph_.node(i).input()) {
        if (in == name) return i;
      }
    }
    return -1;
  }

  int producer(const std::string& name) const {
    const auto it = producer_.find(name);
    return it == producer_.end() ? -1 : it->second;
  }

  std::string unique_name(const std::string& base) {
    std::string name = base;
    for (int n = 2; names_.contains(name); ++n) name = base + "_" + std::to_string(n);
    names_.insert(name);
    return name;
  }

  void fold(int index) {
    onnx::NodeProto& node = *graph_.mutable_node(index);
    const bool conv = is_op(node, "ConvInteger");
    if (!conv && !is_op(node, "MatMulInteger")) return;
    if (node.input_size() < 3 || node.output_size() != 1) return;
    const int dql_index = producer(node.input(0));
    if (dql_index < 0 || !is_op(graph_.node(dql_index), "DynamicQuantizeLinear")) return;
    const onnx::NodeProto& dql = graph_.node(dql_index);
    if (dql.output_size() < 3 || node.input(2) != dql.output(2)) return;
    const std::optional<Tensor> wq = constant(node.input(1));
    const std::optional<Tensor> wzp =
        node.input_size() > 3 ? constant(node.input(3)) : std::optional<Tensor>();
    if (!wq || (node.input_size() > 3 && !node.input(3).empty() && !wzp)) return;
    if (wq->dtype() != DType::kInt8 && wq->dtype() != DType::kUInt8) return;
    // Cast(to float) -> Mul(., x_scale * w_scale)
    const int cast_index = sole_reader(node.output(0));
    if (cast_index < 0 || !is_op(graph_.node(cast_index), "Cast")) return;
    const onnx::NodeProto& cast = graph_.node(cast_index);
    const bool to_float = std::any_of(
        cast.attribute().begin(), cast.attribute().end(),
        [](const auto& a) { return a.name() == "to" && a.i() == onnx::TensorProto::FLOAT; });
    if (!to_float) return;
    const int mul_index = sole_reader(cast.output(0));
    if (mul_index < 0 || !is_op(graph_.node(mul_index), "Mul")) return;
    const onnx::NodeProto& mul = graph_.node(mul_index);
    if (mul.input_size() != 2) return;
    const std::string& scale = mul.input(0) == cast.output(0) ? mul.input(1) : mul.input(0);
    const int scale_index = producer(scale);
    if (scale_index < 0 || !is_op(graph_.node(scale_index), "Mul")) return;
    const onnx::NodeProto& scale_mul = graph_.node(scale_index);
    if (scale_mul.input_size() != 2) return;
    const std::string other = scale_mul.input(0) == dql.output(1)   ? scale_mul.input(1)
                              : scale_mul.input(1) == dql.output(1) ? scale_mul.input(0)
                                                                    : std::string();
    const std::optional<Tensor> wscale = constant(other);
    if (!wscale || wscale->dtype() != DType::kFloat32) return;

    const Shape& ws = wq->shape();
    if (ws.empty()) return;
    // Output channels: dim 0 of OIHW conv weights, the last dim of [K, N] matmul weights.
    const std::int64_t channels = conv ? ws.front() : ws.back();
    if (channels <= 0 || (wscale->size() != 1 && wscale->size() != channels) ||
        (wzp && wzp->size() != 1 && wzp->size() != channels)) {
      return;
    }
    const std::int64_t count = wq->size();
    const std::int64_t per_channel = conv ? count / channels : 1;
    std::vector<float> weights(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int64_t c = conv ? i / per_channel : i % channels;
      const float q = wq->dtype() == DType::kInt8 ? wq->data_as<std::int8_t>()[i]
                                                  : wq->data_as<std::uint8_t>()[i];
      const float zp = wzp ? param_at(*wzp, c) : 0.0F;
      weights[static_cast<std::size_t>(i)] = (q - zp) * param_at(*wscale, c);
    }
    const std::string base = node.name().empty() ? node.output(0) : node.name();
    const std::string weight_name = unique_name(base + "/dequantized_weights");
    *graph_.add_initializer() = float_initializer(weight_name, ws, weights);

    std::string result = mul.output(0);
    std::string bias;
    dead_[static_cast<std::size_t>(cast_index)] = dead_[static_cast<std::size_t>(mul_index)] = true;
    // A following Add of a per-channel constant is the conv's bias.
    const int add_index = conv ? sole_reader(result) : -1;
    if (add_index >= 0 && is_op(graph_.node(add_index), "Add") &&
        graph_.node(add_index).input_size() == 2) {
      const onnx::NodeProto& add = graph_.node(add_index);
      const std::optional<Tensor> b =
          constant(add.input(0) == result ? add.input(1) : add.input(0));
      const Shape bs = b ? b->shape() : Shape{};
      const bool per_channel_bias =
          b && b->dtype() == DType::kFloat32 && b->size() == channels &&
          (bs == Shape{channels} || bs == Shape{1, channels, 1, 1} || bs == Shape{channels, 1, 1});
      if (per_channel_bias) {
        bias = unique_name(base + "/bias");
        const float* v = b->data_as<float>();
        *graph_.add_initializer() = float_initializer(bias, {channels}, {v, v + channels});
        result = add.output(0);
        dead_[static_cast<std::size_t>(add_index)] = true;
      }
    }
    std::string input = dql.input(0);
    if (mode_ == DynamicInt8::kAsWritten) input = dequantized(dql_index);
    node.set_op_type(conv ? "Conv" : "MatMul");
    node.set_domain("");
    node.clear_input();
    node.add_input(input);
    node.add_input(weight_name);
    if (!bias.empty()) node.add_input(bias);
    node.set_output(0, result);
    if (!conv) node.clear_attribute();
    ++(conv ? stats_.conv : stats_.matmul);
  }

  // The DequantizeLinear of a DynamicQuantizeLinear's outputs, one per DynamicQuantizeLinear:
  // the input as the file rounds it.
  std::string dequantized(int dql_index) {
    const auto it = dequantized_.find(dql_index);
    if (it != dequantized_.end()) return it->second.output(0);
    const onnx::NodeProto& dql = graph_.node(dql_index);
    onnx::NodeProto dq;
    dq.set_op_type("DequantizeLinear");
    dq.set_name(unique_name(dql.name().empty() ? dql.output(0) + "/dequantize"
                                               : dql.name() + "/dequantize"));
    for (int k = 0; k < 3; ++k) dq.add_input(dql.output(k));
    dq.add_output(unique_name(dql.output(0) + "/dequantized"));
    return dequantized_.emplace(dql_index, std::move(dq)).first->second.output(0);
  }

  // Drops the chains' Cast, Mul and Add nodes and puts each new DequantizeLinear right after
  // its DynamicQuantizeLinear, keeping the file's order.
  void rebuild_nodes() {
    google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
    for (int i = 0; i < graph_.node_size(); ++i) {
      if (dead_[static_cast<std::size_t>(i)]) continue;
      *kept.Add() = std::move(*graph_.mutable_node(i));
      if (const auto it = dequantized_.find(i); it != dequantized_.end()) {
        *kept.Add() = std::move(it->second);
      }
    }
    graph_.mutable_node()->Swap(&kept);
  }

  // Drops nodes whose outputs nothing reads (the DynamicQuantizeLinear of a folded chain, the
  // scale products) and the initializers no node reads (the int8 weights).
  void remove_unused() {
    std::set<std::string> outputs;
    for (const auto& out : graph_.output()) outputs.insert(out.name());
    for (bool changed = true; changed;) {
      changed = false;
      std::map<std::string, int> reads;
      for (const auto& node : graph_.node()) {
        for (const auto& in : node.input()) ++reads[in];
      }
      google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
      for (auto& node : *graph_.mutable_node()) {
        const bool used = std::any_of(node.output().begin(), node.output().end(), [&](auto& o) {
          return reads.contains(o) || outputs.contains(o);
        });
        if (used) {
          *kept.Add() = std::move(node);
        } else {
          changed = true;
        }
      }
      graph_.mutable_node()->Swap(&kept);
    }
    std::set<std::string> read;
    for (const auto& node : graph_.node()) read.insert(node.input().begin(), node.input().end());
    read.insert(outputs.begin(), outputs.end());
    auto unused = [&](const std::string& name) { return !read.contains(name); };
    auto* inits = graph_.mutable_initializer();
    inits->erase(std::remove_if(inits->begin(), inits->end(),
                                [&](const auto& t) { return unused(t.name()); }),
                 inits->end());
    // Initializers listed as inputs too (IR < 4).
    auto* inputs = graph_.mutable_input();
    std::set<std::string> init_names;
    for (const auto& t : *inits) init_names.insert(t.name());
    inputs->erase(std::remove_if(inputs->begin(), inputs->end(),
                                 [&](const auto& v) {
                                   return constants_.contains(v.name()) &&
                                          !init_names.contains(v.name()) && unused(v.name());
                                 }),
                  inputs->end());
  }

  onnx::GraphProto& graph_;
  DynamicInt8 mode_;
  // Initializers and Constant node values by name: pointers into the model, which stay valid
  // while initializers are appended (a RepeatedPtrField never moves its elements).
  std::map<std::string, const onnx::TensorProto*> constants_;
  std::map<std::string, int> producer_;
  std::map<std::string, int> reads_;
  std::set<std::string> names_;
  std::vector<bool> dead_;
  std::map<int, onnx::NodeProto> dequantized_;
  Int8FoldStats stats_;
};

}  // namespace

Int8FoldStats fold_dynamic_int8(onnx::ModelProto& model, DynamicInt8 mode) {
  return Folder(model, mode).run();
}

}  // namespace yolo::runtime
