// SPDX-License-Identifier: Apache-2.0
#include "runtime/int8/qdq_nodes.h"

#include <cmath>

namespace yolo::runtime {

namespace qdq {

bool is_op(const Node& node, const char* type) {
  return node.domain.empty() && node.op_type == type;
}

onnx::AttributeProto attr_int(const std::string& name, std::int64_t v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INT);
  a.set_i(v);
  return a;
}
onnx::AttributeProto attr_float(const std::string& name, float v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::FLOAT);
  a.set_f(v);
  return a;
}
onnx::AttributeProto attr_string(const std::string& name, const std::string& v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::STRING);
  a.set_s(v);
  return a;
}
onnx::AttributeProto attr_table(const std::string& name, const Int8Table& table) {
  return attr_string(name, std::string(reinterpret_cast<const char*>(table.data()), table.size()));
}
onnx::AttributeProto attr_ints(const std::string& name, const std::vector<std::int64_t>& v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INTS);
  for (auto x : v) a.add_ints(x);
  return a;
}

void add_quant(Node& node, const std::string& prefix, TensorQuant q) {
  node.attributes.push_back(attr_float(prefix + "scale", q.scale));
  node.attributes.push_back(attr_int(prefix + "zero_point", q.zero_point));
}

const Tensor* constant_of(const Graph& graph, int id) {
  return id < 0 ? nullptr : graph.value(id).constant.get();
}

int zero_point_at(const Tensor& t, std::int64_t i) {
  const std::int64_t k = t.size() == 1 ? 0 : i;
  if (t.dtype() == DType::kUInt8) return t.data_as<std::uint8_t>()[k] - 128;
  return t.data_as<std::int8_t>()[k];
}

std::optional<TensorQuant> tensor_quant(const Graph& graph, const Node& node) {
  const bool dq = is_op(node, "DequantizeLinear");
  if (!dq && !is_op(node, "QuantizeLinear")) return std::nullopt;
  if (constant_of(graph, node.input(0))) return std::nullopt;
  const Tensor* scale = constant_of(graph, node.input(1));
  if (!scale || scale->size() != 1 || scale->dtype() != DType::kFloat32) return std::nullopt;
  const int q_value = dq ? node.input(0) : node.outputs[0];
  const DType type = graph.value(q_value).dtype;
  if (type != DType::kInt8 && type != DType::kUInt8) return std::nullopt;
  TensorQuant q{scale->data_as<float>()[0], type == DType::kUInt8 ? -128 : 0};
  if (node.input(2) >= 0) {
    const Tensor* zero = constant_of(graph, node.input(2));
    if (!zero || zero->size() != 1) return std::nullopt;
    q.zero_point = zero_point_at(*zero, 0);
  }
  if (!(q.scale > 0) || !std::isfinite(q.scale)) return std::nullopt;
  return q;
}

std::shared_ptr<const Tensor> constant_ptr(const Graph& graph, int id) {
  return id < 0 ? nullptr : graph.value(id).constant;
}

int add_constant(Graph& graph, const std::string& name, Tensor t) {
  Value v;
  v.name = name;
  v.dtype = t.dtype();
  v.shape = t.shape();
  v.has_shape = true;
  v.constant = std::make_shared<const Tensor>(std::move(t));
  return graph.add_value(std::move(v));
}

std::vector<std::int64_t> ints_or(const Node& node, const char* key,
                                  std::vector<std::int64_t> fallback) {
  auto v = node.attr_ints(key);
  return v.empty() ? fallback : v;
}

bool explicit_padding(const Node& node) {
  const auto pad = node.attr_string("auto_pad", "NOTSET");
  return pad == "NOTSET";
}

std::optional<QConvConstants> qconv_constants(const QuantizedWeight& w, bool has_bias,
                                              const Tensor* bias, TensorQuant x, TensorQuant y,
                                              std::string& why) {
  const Shape& ws = w.values->shape();
  if (ws.size() != 4) {
    why = "its weights are not 4-D";
    return std::nullopt;
  }
  const std::int64_t outs = ws[0];
  const std::int64_t per = w.values->size() / outs;
  const std::int64_t scales = w.scale->size();
  if (scales != 1 && (scales != outs || (w.axis != 0 && w.axis != -4))) {
    why = "its weight scales are neither per tensor nor per output channel (axis 0)";
    return std::nullopt;
  }
  if (has_bias && (!bias || bias->dtype() != DType::kFloat32 || bias->size() != outs)) {
    why = "its bias is not a float constant with one value per output channel";
    return std::nullopt;
  }
  QConvConstants c{Tensor(DType::kInt8, ws), Tensor(DType::kFloat32, {outs}), std::nullopt};
  const bool u8 = w.values->dtype() == DType::kUInt8;
  for (std::int64_t o = 0; o < outs; ++o) {
    const int zero = w.zero_point ? zero_point_at(*w.zero_point, o) : (u8 ? -128 : 0);
    // XNNPACK's QC8 weights are symmetric.
    if (zero != 0) {
      why = "weight zero point " + std::to_string(zero) + " (channel " + std::to_string(o) +
            "); XNNPACK int8 convs need symmetric weights";
      return std::nullopt;
    }
    const float s = w.scale->data_as<float>()[scales == 1 ? 0 : o];
    const double ratio = static_cast<double>(x.scale) * s / y.scale;
    if (!(ratio >= std::ldexp(1.0, -32) && ratio < 256.0)) {
      why = "requantization scale of channel " + std::to_string(o) +
            " is outside XNNPACK's range [2^-32, 256)";
      return std::nullopt;
    }
    c.scales.data_as<float>()[o] = s;
    for (std::int64_t i = 0; i < per; ++i) {
      const std::int64_t k = o * per + i;
      c.weights.data_as<std::int8_t>()[k] =
          u8 ? static_cast<std::int8_t>(w.values->data_as<std::uint8_t>()[k] - 128)
             : w.values->data_as<std::int8_t>()[k];
    }
  }
  if (bias) {
    c.bias.emplace(DType::kInt32, Shape{outs});
    for (std::int64_t o = 0; o < outs; ++o) {
      const double unit = static_cast<double>(x.scale) * c.scales.data_as<float>()[o];
      c.bias->data_as<std::int32_t>()[o] =
          static_cast<std::int32_t>(std::lround(bias->data_as<float>()[o] / unit));
    }
  }
  return c;
}

bool channel_axis(const Node& node, std::int64_t fallback) {
  const auto axis = node.attr_int("axis", fallback);
  return axis == 1 || axis == -3;
}

QdqLoweringStats count_int8_steps(const Graph& graph) {
  QdqLoweringStats stats;
  for (const auto& node : graph.nodes) {
    if (node.domain == "yolo") {
      if (node.op_type == "QConv") {
        ++stats.conv;
        if (node.has_attribute("act")) ++stats.conv_act;
      }
      stats.tables += node.op_type == "QLut";
      stats.binary += node.op_type == "QBinary";
      stats.maxpool += node.op_type == "QMaxPool";
      stats.upsample += node.op_type == "QUpsample";
      stats.quantize += node.op_type == "Quantize";
      stats.dequantize += node.op_type == "Dequantize";
    } else if ((node.op_type == "Concat" || node.op_type == "Split") && node.input(0) >= 0 &&
               graph.value(node.inputs[0]).dtype == DType::kInt8) {
      ++stats.channel_ops;
    }
  }
  return stats;
}

}  // namespace qdq

QuantizedWeights collect_quantized_weights(const Graph& graph) {
  QuantizedWeights weights;
  for (const auto& node : graph.nodes) {
    if (!qdq::is_op(node, "DequantizeLinear") || !qdq::constant_of(graph, node.input(0))) continue;
    const auto values = qdq::constant_ptr(graph, node.input(0));
    const auto scale = qdq::constant_ptr(graph, node.input(1));
    if (!scale || scale->dtype() != DType::kFloat32) continue;
    if (values->dtype() != DType::kInt8 && values->dtype() != DType::kUInt8) continue;
    weights[node.outputs[0]] = {values, scale, qdq::constant_ptr(graph, node.input(2)),
                                node.attr_int("axis", 1)};
  }
  return weights;
}

}  // namespace yolo::runtime
