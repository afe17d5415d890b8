// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the quantizer knows about a float ONNX graph: who produces and reads each tensor, which
// tensors are float activations, and which nodes get Q/DQ.

#include <onnx/onnx_pb.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace yolo::runtime {

// Who produces and who reads each tensor, which tensors are constants, and which carry floats.
struct GraphIndex {
  std::map<std::string, int> producer;
  std::map<std::string, std::vector<int>> consumers;
  std::map<std::string, const onnx::TensorProto*> initializers;
  std::set<std::string> constants;
  std::set<std::string> non_float;
  // The image input.
  std::string input;
  std::set<std::string> outputs;

  bool is_activation(const std::string& t) const {
    return !t.empty() && !constants.count(t) && !non_float.count(t);
  }
};
GraphIndex index_graph(const onnx::GraphProto& graph);

// The node writing `tensor`, or null for inputs and initializers.
const onnx::NodeProto* producer_of(const onnx::GraphProto& graph, const GraphIndex& index,
                                   const std::string& tensor);

// A Conv with a float weight initializer of rank >= 3.
bool has_float_weights(const onnx::NodeProto& node, const GraphIndex& index);

// The node computing the values of `tensor` past the ops that only move them (Reshape, Transpose,
// Split, Squeeze, Unsqueeze, Flatten, Identity), or null for inputs and initializers.
const onnx::NodeProto* source_past_layout(const onnx::GraphProto& graph, const GraphIndex& index,
                                          const std::string& tensor);

// The DFL: a Conv reading (through reshapes and transposes) a Softmax.
bool is_dfl_conv(const onnx::GraphProto& graph, const GraphIndex& index,
                 const onnx::NodeProto& node);

// A real conv: float weights, not the DFL.
bool is_real_conv(const onnx::GraphProto& graph, const GraphIndex& index,
                  const onnx::NodeProto& node);

// The Mul of a SiLU: Mul(x, Sigmoid(x)) in either order.
bool is_silu_mul(const onnx::GraphProto& graph, const GraphIndex& index,
                 const onnx::NodeProto& node);

// The float activation inputs and outputs of a node the int8 engine can run, as
// runtime/int8/int8_operators.h says which; of the convs only the real ones, of the Muls only a
// SiLU's.
struct QuantIo {
  std::vector<std::string> inputs, outputs;
  // Concat, MaxPool, Resize, Split: one scale for all of them.
  bool shares_scale = false;
};
// None when the node stays float whatever the keep list says.
std::optional<QuantIo> quant_io(const onnx::GraphProto& graph, const GraphIndex& index,
                                const onnx::NodeProto& node);

// The float activation tensors a QDQ rewrite with this keep set quantizes (model input included).
std::vector<std::string> quantized_tensors(const onnx::GraphProto& graph,
                                           const std::set<std::string>& keep_fp32);

// Gives every unnamed node a name ("Op_<index>"): keep lists and reports name nodes.
void name_unnamed_nodes(onnx::GraphProto& graph);

}  // namespace yolo::runtime
