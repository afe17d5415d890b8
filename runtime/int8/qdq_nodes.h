// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to the QDQ lowering (runtime/int8/qdq_lowering.h) and its chains: reading the Q/DQ
// parameters and constants of the graph as the file gives them (also collect_quantized_weights),
// writing the attributes and constants of the int8 nodes made from them, and counting them.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/engine/graph.h"
#include "runtime/int8/qdq_chain.h"
#include "runtime/int8/qdq_lowering.h"

namespace yolo::runtime::qdq {

// A default-domain node of op type `type`.
bool is_op(const Node& node, const char* type);

onnx::AttributeProto attr_int(const std::string& name, std::int64_t v);
onnx::AttributeProto attr_float(const std::string& name, float v);
onnx::AttributeProto attr_string(const std::string& name, const std::string& v);
// A 256-entry int8 table as a string attribute of its bytes.
onnx::AttributeProto attr_table(const std::string& name, const Int8Table& table);
onnx::AttributeProto attr_ints(const std::string& name, const std::vector<std::int64_t>& v);
// The attributes PREFIXscale and PREFIXzero_point of an int8 node.
void add_quant(Node& node, const std::string& prefix, TensorQuant q);

// The constant behind value `id`, or null (also for an omitted input, id < 0).
const Tensor* constant_of(const Graph& graph, int id);
std::shared_ptr<const Tensor> constant_ptr(const Graph& graph, int id);
// Zero point i of a per-tensor or per-axis int8/uint8 zero point, in the int8 domain.
int zero_point_at(const Tensor& t, std::int64_t i);
// The per-tensor parameters of a Q or DQ node on an int8/uint8 activation, or none when they are
// per-axis, not constant, or the tensor is a constant.
std::optional<TensorQuant> tensor_quant(const Graph& graph, const Node& node);
// Adds constant `t` to the graph as a new value; returns its id.
int add_constant(Graph& graph, const std::string& name, Tensor t);

// Attribute `key` of the node, or `fallback` where it is absent or empty.
std::vector<std::int64_t> ints_or(const Node& node, const char* key,
                                  std::vector<std::int64_t> fallback);
// The node's pads are explicit (no auto_pad).
bool explicit_padding(const Node& node);
// The node's `axis` (`fallback` when absent) is the channel axis of a 4-D tensor.
bool channel_axis(const Node& node, std::int64_t fallback);

// The int8 steps of a lowered graph, by kind (the counts of QdqLoweringStats).
QdqLoweringStats count_int8_steps(const Graph& graph);

// QConv's constant inputs for a Conv with weights `w`, a bias input when `has_bias` (`bias` its
// constant, null when it is not one), input quantization x and output quantization y: symmetric
// int8 weights, one scale per output channel, the bias in int32 units of x.scale * w_scale. None
// when XNNPACK's int8 conv cannot run them; `why` then says why.
struct QConvConstants {
  Tensor weights;
  Tensor scales;
  std::optional<Tensor> bias;
};
std::optional<QConvConstants> qconv_constants(const QuantizedWeight& w, bool has_bias,
                                              const Tensor* bias, TensorQuant x, TensorQuant y,
                                              std::string& why);

}  // namespace yolo::runtime::qdq
