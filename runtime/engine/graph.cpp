// SPDX-License-Identifier: Apache-2.0
#include "runtime/engine/graph.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <queue>

#include "runtime/model/model_error.h"

namespace yolo::runtime {

void check_tensor_size(const Shape& shape, DType type, const std::string& what) {
  std::int64_t bytes = static_cast<std::int64_t>(dtype_size(type));
  for (auto d : shape) {
    if (d < 0) throw ModelError(what + ": negative dimension in shape " + shape_text(shape));
    if (d != 0 && bytes > kMaxTensorBytes / d)
      bytes = kMaxTensorBytes + 1;
    else
      bytes *= d;
  }
  if (bytes > kMaxTensorBytes) {
    throw ModelError(what + ": tensor of shape " + shape_text(shape) + " (" + dtype_name(type) +
                     ") exceeds the runtime's limit of " + std::to_string(kMaxTensorBytes >> 20) +
                     " MiB per tensor; the model is corrupt or not a detection model");
  }
}

DType dtype_from_onnx(int onnx_type, const std::string& what) {
  switch (onnx_type) {
    case onnx::TensorProto::FLOAT:
      return DType::kFloat32;
    case onnx::TensorProto::INT64:
      return DType::kInt64;
    case onnx::TensorProto::INT32:
      return DType::kInt32;
    case onnx::TensorProto::INT8:
      return DType::kInt8;
    case onnx::TensorProto::UINT8:
      return DType::kUInt8;
    case onnx::TensorProto::BOOL:
      return DType::kBool;
    default:
      break;
  }
  std::string name = onnx::TensorProto::DataType_IsValid(onnx_type)
                         ? onnx::TensorProto::DataType_Name(onnx_type)
                         : "unknown type " + std::to_string(onnx_type);
  throw ModelError(what + ": element type " + name +
                   " is not supported (the runtime computes with float32, int64, int32, int8, "
                   "uint8 and bool); re-export the model in FP32");
}

Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& what) {
  if (proto.data_location() == onnx::TensorProto::EXTERNAL || proto.external_data_size() > 0) {
    throw ModelError(what +
                     ": stores its data in an external file, which is not supported; "
                     "export the model with its weights inline");
  }
  const DType type = dtype_from_onnx(proto.data_type(), what);
  Shape shape(proto.dims().begin(), proto.dims().end());
  check_tensor_size(shape, type, what);
  Tensor tensor(type, shape);
  const auto count = static_cast<std::size_t>(tensor.size());
  auto mismatch = [&](std::size_t have) {
    throw ModelError(what + ": holds " + std::to_string(have) + " elements/bytes of data but its " +
                     "dims " + shape_text(shape) + " need " + std::to_string(count) +
                     " elements (" + std::to_string(tensor.bytes()) +
                     " bytes); the file is corrupt, re-export it");
  };
  if (proto.has_raw_data()) {
    if (proto.raw_data().size() != tensor.bytes()) mismatch(proto.raw_data().size());
    if (count) std::memcpy(tensor.data(), proto.raw_data().data(), tensor.bytes());
    return tensor;
  }
  switch (type) {
    case DType::kFloat32:
      if (static_cast<std::size_t>(proto.float_data_size()) != count) {
        mismatch(proto.float_data_size());
      }
      std::copy(proto.float_data().begin(), proto.float_data().end(), tensor.data_as<float>());
      break;
    case DType::kInt64:
      if (static_cast<std::size_t>(proto.int64_data_size()) != count) {
        mismatch(proto.int64_data_size());
      }
      std::copy(proto.int64_data().begin(), proto.int64_data().end(),
                tensor.data_as<std::int64_t>());
      break;
    case DType::kInt32:
    case DType::kInt8:
    case DType::kUInt8:
    case DType::kBool: {
      // ONNX keeps these in int32_data, one element per entry.
      if (static_cast<std::size_t>(proto.int32_data_size()) != count) {
        mismatch(proto.int32_data_size());
      }
      for (std::size_t i = 0; i < count; ++i) {
        const std::int32_t v = proto.int32_data(static_cast<int>(i));
        if (type == DType::kInt32)
          tensor.data_as<std::int32_t>()[i] = v;
        else if (type == DType::kInt8)
          tensor.data_as<std::int8_t>()[i] = static_cast<std::int8_t>(v);
        else
          tensor.data_as<std::uint8_t>()[i] = static_cast<std::uint8_t>(v);
      }
      break;
    }
  }
  return tensor;
}

const onnx::AttributeProto* Node::find_attribute(const std::string& key) const {
  for (const auto& a : attributes) {
    if (a.name() == key) return &a;
  }
  return nullptr;
}

std::int64_t Node::attr_int(const std::string& key, std::int64_t fallback) const {
  const auto* a = find_attribute(key);
  return a ? a->i() : fallback;
}

float Node::attr_float(const std::string& key, float fallback) const {
  const auto* a = find_attribute(key);
  return a ? a->f() : fallback;
}

std::string Node::attr_string(const std::string& key, const std::string& fallback) const {
  const auto* a = find_attribute(key);
  return a ? a->s() : fallback;
}

std::vector<std::int64_t> Node::attr_ints(const std::string& key) const {
  const auto* a = find_attribute(key);
  if (!a) return {};
  return {a->ints().begin(), a->ints().end()};
}

std::vector<float> Node::attr_floats(const std::string& key) const {
  const auto* a = find_attribute(key);
  if (!a) return {};
  return {a->floats().begin(), a->floats().end()};
}

int Node::input_count() const {
  int n = static_cast<int>(inputs.size());
  while (n > 0 && inputs[static_cast<std::size_t>(n - 1)] < 0) --n;
  return n;
}

namespace {

Value named_value(const std::string& name) {
  Value v;
  v.name = name;
  return v;
}

// A Constant node's payload as a tensor (value, value_float(s), value_int(s)).
Tensor constant_attribute(const Graph& graph, const Node& node) {
  if (node.attributes.size() != 1) graph.fail(node, "a Constant needs exactly one value attribute");
  const auto& a = node.attributes.front();
  const std::string what = graph.where + ": Constant '" + node.name + "'";
  if (a.name() == "value") return tensor_from_proto(a.t(), what);
  if (a.name() == "value_float") {
    Tensor t(DType::kFloat32, {});
    *t.data_as<float>() = a.f();
    return t;
  }
  if (a.name() == "value_int") {
    Tensor t(DType::kInt64, {});
    *t.data_as<std::int64_t>() = a.i();
    return t;
  }
  if (a.name() == "value_floats") {
    Tensor t(DType::kFloat32, {a.floats_size()});
    std::copy(a.floats().begin(), a.floats().end(), t.data_as<float>());
    return t;
  }
  if (a.name() == "value_ints") {
    Tensor t(DType::kInt64, {a.ints_size()});
    std::copy(a.ints().begin(), a.ints().end(), t.data_as<std::int64_t>());
    return t;
  }
  graph.fail(node, "Constant attribute '" + a.name() +
                       "' is not supported (only value, value_float(s), value_int(s))");
}

}  // namespace

Graph Graph::from_onnx(const onnx::ModelProto& model, const std::string& where) {
  Graph g;
  g.where = where;
  for (const auto& op : model.opset_import()) {
    if (op.domain().empty() || op.domain() == "ai.onnx") g.opset = static_cast<int>(op.version());
  }
  const auto& graph = model.graph();
  for (const auto& init : graph.initializer()) {
    if (g.find_value(init.name()) >= 0) {
      throw ModelError(where + ": initializer '" + init.name() + "' is defined twice");
    }
    Value v;
    v.name = init.name();
    auto tensor = std::make_shared<Tensor>(
        tensor_from_proto(init, where + ": initializer '" + init.name() + "'"));
    v.dtype = tensor->dtype();
    v.shape = tensor->shape();
    v.has_shape = true;
    v.constant = std::move(tensor);
    g.add_value(std::move(v));
  }
  for (const auto& in : graph.input()) {
    if (g.find_value(in.name()) >= 0) continue;  // an initializer with a default: a constant
    const std::string what = where + ": graph input '" + in.name() + "'";
    if (!in.type().has_tensor_type()) throw ModelError(what + " is not a tensor");
    Value v;
    v.name = in.name();
    v.dtype = dtype_from_onnx(in.type().tensor_type().elem_type(), what);
    v.graph_input = true;
    v.has_shape = in.type().tensor_type().has_shape();
    for (const auto& d : in.type().tensor_type().shape().dim()) {
      // Symbolic dims stay -1 until the engine fixes them from imgsz.
      if (!d.has_dim_value() || d.dim_value() <= 0) v.has_shape = false;
      v.shape.push_back(d.has_dim_value() && d.dim_value() > 0 ? d.dim_value() : -1);
    }
    g.inputs.push_back(g.add_value(std::move(v)));
  }
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& proto = graph.node(i);
    Node node;
    node.name = proto.name();
    node.op_type = proto.op_type();
    node.domain = proto.domain() == "ai.onnx" ? "" : proto.domain();
    node.attributes.assign(proto.attribute().begin(), proto.attribute().end());
    for (const auto& name : proto.input()) {
      if (name.empty()) {
        node.inputs.push_back(-1);
        continue;
      }
      // Inputs produced by later nodes get their Value when that node is read; remember names.
      int id = g.find_value(name);
      if (id < 0) {
        Value v = named_value(name);
        v.producer = -2;  // referenced, producer not seen yet
        id = g.add_value(std::move(v));
      }
      node.inputs.push_back(id);
    }
    if (node.name.empty() && proto.output_size() > 0) node.name = proto.output(0);
    if (node.op_type == "Constant" && node.domain.empty()) {
      if (proto.output_size() != 1) g.fail(node, "a Constant must have exactly one output");
      auto tensor = std::make_shared<Tensor>(constant_attribute(g, node));
      int id = g.find_value(proto.output(0));
      if (id >= 0 && g.value(id).producer != -2) {
        g.fail(node, "output '" + proto.output(0) + "' is produced twice");
      }
      if (id < 0) id = g.add_value(named_value(proto.output(0)));
      auto& v = g.value(id);
      v.dtype = tensor->dtype();
      v.shape = tensor->shape();
      v.has_shape = true;
      v.constant = std::move(tensor);
      v.producer = -1;
      continue;
    }
    const int node_index = static_cast<int>(g.nodes.size());
    for (const auto& name : proto.output()) {
      if (name.empty()) {
        node.outputs.push_back(-1);
        continue;
      }
      int id = g.find_value(name);
      if (id >= 0 && g.value(id).producer != -2) {
        g.fail(node, "output '" + name +
                         "' is already produced by another node or is an "
                         "initializer/input");
      }
      if (id < 0) id = g.add_value(named_value(name));
      g.value(id).producer = node_index;
      node.outputs.push_back(id);
    }
    g.nodes.push_back(std::move(node));
  }
  for (const auto& node : g.nodes) {
    for (int id : node.inputs) {
      if (id >= 0 && g.value(id).producer == -2) {
        g.fail(node, "input '" + g.value(id).name +
                         "' is neither produced by a node nor an initializer or graph input "
                         "(a missing initializer?); the file is incomplete, re-export it");
      }
    }
  }
  for (const auto& out : graph.output()) {
    const int id = g.find_value(out.name());
    if (id < 0 || g.value(id).producer == -2) {
      throw ModelError(where + ": graph output '" + out.name() + "' is never produced");
    }
    g.value(id).graph_output = true;
    g.outputs.push_back(id);
  }
  g.topological_sort();
  return g;
}

int Graph::add_value(Value value) {
  const int id = static_cast<int>(values.size());
  by_name_[value.name] = id;
  values.push_back(std::move(value));
  return id;
}

int Graph::find_value(const std::string& name) const {
  const auto it = by_name_.find(name);
  return it == by_name_.end() ? -1 : it->second;
}

std::vector<std::vector<int>> Graph::consumers() const {
  std::vector<std::vector<int>> result(values.size());
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    for (int id : nodes[n].inputs) {
      if (id >= 0) result[static_cast<std::size_t>(id)].push_back(static_cast<int>(n));
    }
  }
  return result;
}

namespace {

// Takes `kept` as the graph's nodes (some of them, in any order) and refreshes Value::producer.
void replace_nodes(Graph& graph, std::vector<Node> kept) {
  graph.nodes = std::move(kept);
  for (auto& v : graph.values) {
    if (v.producer >= 0) v.producer = -1;
  }
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    for (int out : graph.nodes[i].outputs) {
      if (out >= 0) graph.value(out).producer = static_cast<int>(i);
    }
  }
}

}  // namespace

void Graph::topological_sort() {
  const std::size_t n = nodes.size();
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> users(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (int id : nodes[i].inputs) {
      if (id < 0) continue;
      const int p = value(id).producer;
      if (p >= 0) {
        ++pending[i];
        users[static_cast<std::size_t>(p)].push_back(static_cast<int>(i));
      }
    }
  }
  // Keep the file's order among ready nodes (a min-heap on the original index).
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (std::size_t i = 0; i < n; ++i) {
    if (pending[i] == 0) ready.push(static_cast<int>(i));
  }
  std::vector<int> order;
  order.reserve(n);
  while (!ready.empty()) {
    const int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int u : users[static_cast<std::size_t>(i)]) {
      if (--pending[static_cast<std::size_t>(u)] == 0) ready.push(u);
    }
  }
  if (order.size() != n) {
    for (std::size_t i = 0; i < n; ++i) {
      if (pending[i] > 0) {
        fail(nodes[i],
             "is part of a cycle (its inputs depend on its own outputs); the graph "
             "must be acyclic, the file is corrupt");
      }
    }
  }
  std::vector<Node> sorted;
  sorted.reserve(n);
  for (int i : order) sorted.push_back(std::move(nodes[static_cast<std::size_t>(i)]));
  replace_nodes(*this, std::move(sorted));
}

void Graph::remove_nodes(const std::vector<bool>& dead) {
  std::vector<Node> kept;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (i >= dead.size() || !dead[i]) kept.push_back(std::move(nodes[i]));
  }
  replace_nodes(*this, std::move(kept));
}

void Graph::remove_unused() {
  for (;;) {
    std::vector<int> reads(values.size(), 0);
    for (const auto& node : nodes) {
      for (int id : node.inputs) {
        if (id >= 0) ++reads[static_cast<std::size_t>(id)];
      }
    }
    std::vector<bool> dead(nodes.size(), false);
    bool any = false;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      bool used = false;
      for (int out : nodes[i].outputs) {
        if (out >= 0 && (reads[static_cast<std::size_t>(out)] > 0 || value(out).graph_output)) {
          used = true;
        }
      }
      if (!used) dead[i] = any = true;
    }
    if (!any) return;
    remove_nodes(dead);
  }
}

std::string Graph::describe(const Node& node) const {
  return "node '" + node.name + "' (" + (node.domain.empty() ? "" : node.domain + ".") +
         node.op_type + ", opset " + std::to_string(opset) + ")";
}

void Graph::fail(const Node& node, const std::string& what) const {
  throw ModelError(where + ": " + describe(node) + ": " + what);
}

}  // namespace yolo::runtime
