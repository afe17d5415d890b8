// SPDX-License-Identifier: Apache-2.0
#pragma once

// Reading and building the ONNX protobuf pieces the quantizer rewrites.

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace yolo::runtime {

// The node's attribute `name`, or null.
const onnx::AttributeProto* find_attr(const onnx::NodeProto& node, const std::string& name);

bool is_float_type(int type);

// The default-domain opset the model imports (0 when none).
int default_opset(const onnx::ModelProto& model);

// An initializer's float values (raw or float_data); throws QuantizeError for external data.
std::vector<float> read_floats(const onnx::TensorProto& t);

// An initializer holding `values` as raw data.
template <typename T>
onnx::TensorProto make_tensor(const std::string& name, int type, std::vector<std::int64_t> dims,
                              const std::vector<T>& values) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(type);
  for (auto d : dims) t.add_dims(d);
  t.set_raw_data(
      std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T)));
  return t;
}

// An unnamed node with one output. Q/DQ nodes are left unnamed: their output names say what they
// are, and names repeated on ~300 pairs would cost 3% of the file.
onnx::NodeProto make_node(const std::string& op, std::vector<std::string> inputs,
                          std::string output, std::optional<std::int64_t> axis = std::nullopt);

}  // namespace yolo::runtime
