// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/engine/tensor.h"

namespace yolo::runtime {

// Largest tensor the runtime will create (at load or as an activation). Corrupt files can claim
// absurd dims; this turns them into a clear ModelError instead of std::bad_alloc.
inline constexpr std::int64_t kMaxTensorBytes = std::int64_t{1} << 30;

// Throws ModelError if `shape` has a negative dim or its bytes exceed kMaxTensorBytes.
void check_tensor_size(const Shape& shape, DType type, const std::string& what);

// One tensor of the graph: a graph input, an initializer, or a node output.
struct Value {
  std::string name;
  DType dtype = DType::kFloat32;
  // The logical (ONNX) shape; valid once has_shape is set by shape inference.
  Shape shape;
  bool has_shape = false;
  // Set for initializers and for everything constant folding computed at load.
  std::shared_ptr<const Tensor> constant;
  // Index of the node producing it, -1 for graph inputs and constants.
  int producer = -1;
  bool graph_input = false;
  bool graph_output = false;
};

struct Node {
  std::string name;
  std::string op_type;
  std::string domain;
  // Value indices; -1 marks an omitted optional input (an empty name in ONNX).
  std::vector<int> inputs;
  std::vector<int> outputs;
  std::vector<onnx::AttributeProto> attributes;

  const onnx::AttributeProto* find_attribute(const std::string& key) const;
  bool has_attribute(const std::string& key) const { return find_attribute(key) != nullptr; }
  std::int64_t attr_int(const std::string& key, std::int64_t fallback) const;
  float attr_float(const std::string& key, float fallback) const;
  std::string attr_string(const std::string& key, const std::string& fallback) const;
  std::vector<std::int64_t> attr_ints(const std::string& key) const;
  std::vector<float> attr_floats(const std::string& key) const;
  // Number of inputs actually given (trailing omitted ones do not count).
  int input_count() const;
  int input(std::size_t i) const { return i < inputs.size() ? inputs[i] : -1; }
};

// The model as the planner sees it: values and nodes by index, nodes in topological order.
class Graph {
 public:
  // Builds the graph from a parsed model, checking that every node input is defined, that the
  // nodes form no cycle, that initializers hold as many bytes as their dims say, and that every
  // dtype is one the runtime computes with. `where` (the file) starts every error message.
  static Graph from_onnx(const onnx::ModelProto& model, const std::string& where);

  std::vector<Value> values;
  std::vector<Node> nodes;
  std::vector<int> inputs;   // non-constant graph inputs
  std::vector<int> outputs;  // graph outputs, in model order
  int opset = 0;             // of the default domain
  std::string where;         // the model file, for messages

  // The value with index `id` (valid and non-negative).
  Value& value(int id) { return values[static_cast<std::size_t>(id)]; }
  const Value& value(int id) const { return values[static_cast<std::size_t>(id)]; }
  int add_value(Value value);
  int find_value(const std::string& name) const;
  // For every value, the indices of the nodes reading it (a node reading it twice appears twice).
  std::vector<std::vector<int>> consumers() const;
  // Reorders nodes topologically and refreshes Value::producer; throws ModelError naming a node
  // on a cycle.
  void topological_sort();
  // Drops nodes flagged in `dead` and then every node whose outputs nobody reads.
  void remove_nodes(const std::vector<bool>& dead);
  void remove_unused();
  // "node 'name' (Op)" for messages; uses the first output's name when the node has none.
  std::string describe(const Node& node) const;
  // Throws ModelError: "<file>: node 'x' (Op, opset N): <what>".
  [[noreturn]] void fail(const Node& node, const std::string& what) const;

 private:
  std::unordered_map<std::string, int> by_name_;
};

// Decodes an ONNX TensorProto (raw or typed storage) into a Tensor; throws ModelError mentioning
// `what` when the dtype is unsupported, data is external or the byte count does not match dims.
Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& what);
// Maps an ONNX element type to ours; throws ModelError for unsupported ones.
DType dtype_from_onnx(int onnx_type, const std::string& what);

}  // namespace yolo::runtime
