// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal: how the op families add their specs to the registry, and helpers they share.

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "runtime/kernels/slice.h"
#include "runtime/kernels/window2d.h"
#include "runtime/ops/op.h"

namespace yolo::runtime::ops {

using Registry = std::map<std::pair<std::string, std::string>, std::unique_ptr<OpSpec>>;

template <typename Spec, typename... Args>
Spec& add(Registry& registry, const std::string& op_type, Args&&... args) {
  auto spec = std::make_unique<Spec>(std::forward<Args>(args)...);
  Spec& added = *spec;
  registry[{"", op_type}] = std::move(spec);
  return added;
}

// An element-wise op the quantizer leaves float; the int8 lowering makes it part of a table where
// another tool's file quantizes around it.
inline constexpr Int8Support kInt8Table{};

// Reshape, Flatten, Squeeze, Unsqueeze, Identity: outputs may share the input's memory.
bool is_alias_op(const Node& node);

// The Slice of a node resolved against its input's shape (attributes before opset 10, constant
// inputs after).
kernels::SliceRange slice_range(const Graph& graph, const Node& node);

// The 2-D window of a Conv, ConvInteger, pool or int8 conv/pool node over NCHW input `in`, from
// kernel_shape (else kh x kw), strides, dilations, pads/auto_pad and ceil_mode (which become
// pads with static shapes), and the output size; fails naming the node.
struct ResolvedWindow {
  kernels::Window2d window;
  std::int64_t out_h = 0;
  std::int64_t out_w = 0;
};
ResolvedWindow resolve_window(const Graph& graph, const Node& node, const Shape& in,
                              std::int64_t kh, std::int64_t kw);

// Conv's (and ConvInteger's) output shape for input x and OIHW weights w, from the node's
// kernel_shape, strides, dilations, pads/auto_pad and group; fails naming the node.
Shape conv_output_shape(const Graph& graph, const Node& node, const Shape& x, const Shape& w);

// One function per family file.
void register_elementwise_ops(Registry& registry);
void register_shape_ops(Registry& registry);
void register_data_ops(Registry& registry);
void register_reduce_ops(Registry& registry);
void register_nn_ops(Registry& registry);
void register_misc_ops(Registry& registry);
void register_internal_ops(Registry& registry);
void register_int8_ops(Registry& registry);

// The value of a node's i-th input (which must be given).
const Value& input_value(const Graph& graph, const Node& node, std::size_t i);
Value& output_value(Graph& graph, const Node& node, std::size_t i);
void set_output(Graph& graph, const Node& node, std::size_t i, DType dtype, Shape shape);
// Whether input i is given.
bool has_input(const Node& node, std::size_t i);
// The int64/int32 values of a constant input; fails naming the node and `what` when the input is
// not constant (the runtime plans with static shapes).
std::vector<std::int64_t> constant_ints(const Graph& graph, const Node& node, std::size_t i,
                                        const char* what);
std::vector<float> constant_floats(const Graph& graph, const Node& node, std::size_t i,
                                   const char* what);
// Fails unless the node has between min and max inputs and exactly `outputs` outputs (-1: any).
void check_arity(const Graph& graph, const Node& node, int min_inputs, int max_inputs, int outputs);
// Fails unless input i has one of the dtypes.
void check_input_dtype(const Graph& graph, const Node& node, std::size_t i,
                       std::initializer_list<DType> allowed);
// Fails naming any attribute of the node not in `known`.
void check_attributes(const Graph& graph, const Node& node,
                      std::initializer_list<const char*> known);

}  // namespace yolo::runtime::ops
