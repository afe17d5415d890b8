// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/onnx_proto.h"

#include <algorithm>
#include <cstring>

#include "runtime/quantize/error.h"

namespace yolo::runtime {

const onnx::AttributeProto* find_attr(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

bool is_float_type(int type) {
  return type == onnx::TensorProto::FLOAT;
}

int default_opset(const onnx::ModelProto& model) {
  for (const auto& op : model.opset_import()) {
    if (op.domain().empty() || op.domain() == "ai.onnx") return static_cast<int>(op.version());
  }
  return 0;
}

std::vector<float> read_floats(const onnx::TensorProto& t) {
  std::int64_t n = 1;
  for (auto d : t.dims()) n *= d;
  std::vector<float> values(static_cast<std::size_t>(n));
  if (t.has_raw_data()) {
    if (t.raw_data().size() != values.size() * sizeof(float)) {
      throw QuantizeError("initializer " + t.name() + ": raw data size does not match its dims");
    }
    std::memcpy(values.data(), t.raw_data().data(), t.raw_data().size());
  } else if (t.float_data_size() == n) {
    std::copy(t.float_data().begin(), t.float_data().end(), values.begin());
  } else {
    throw QuantizeError("initializer " + t.name() +
                        ": no inline float data (external data is not supported); re-export the "
                        "model with its weights inside the .onnx file");
  }
  return values;
}

onnx::NodeProto make_node(const std::string& op, std::vector<std::string> inputs,
                          std::string output, std::optional<std::int64_t> axis) {
  onnx::NodeProto n;
  n.set_op_type(op);
  for (auto& i : inputs) n.add_input(i);
  n.add_output(std::move(output));
  if (axis) {
    auto* a = n.add_attribute();
    a->set_name("axis");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(*axis);
  }
  return n;
}

}  // namespace yolo::runtime
