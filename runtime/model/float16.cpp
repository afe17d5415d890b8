// SPDX-License-Identifier: Apache-2.0
// FP16 exports made float32 at load (runtime/model/fp32_rewrite.h).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "runtime/model/fp32_rewrite.h"
#include "runtime/model/model_error.h"
#include "runtime/ops/op.h"

namespace yolo::runtime {

namespace {

using onnx::AttributeProto;
using onnx::TensorProto;

constexpr int kFloat16 = TensorProto::FLOAT16;
constexpr int kFloat = TensorProto::FLOAT;

// Ops whose outputs are not floats of their inputs' type, so they end a float16 region.
bool ends_float16(const onnx::NodeProto& node) {
  static const std::set<std::string> ops = {"Shape",
                                            "Size",
                                            "Equal",
                                            "Less",
                                            "LessOrEqual",
                                            "Greater",
                                            "GreaterOrEqual",
                                            "IsNaN",
                                            "IsInf",
                                            "ArgMax",
                                            "ArgMin",
                                            "NonZero",
                                            "Not",
                                            "And",
                                            "Or",
                                            "Xor",
                                            "QuantizeLinear",
                                            "DynamicQuantizeLinear"};
  if (!node.domain().empty() && node.domain() != "ai.onnx") return false;
  if (node.op_type() == "Cast") {
    for (const auto& a : node.attribute()) {
      if (a.name() == "to") return a.i() != kFloat16;
    }
  }
  return ops.contains(node.op_type());
}

// The float16 elements of `t` (raw_data, or int32_data holding one value's bits per entry, as
// ONNX stores float16).
std::vector<std::uint16_t> half_bits(const TensorProto& t, const std::string& what) {
  std::int64_t n = 1;
  for (auto d : t.dims()) {
    if (d < 0) throw ModelError(what + ": negative dimension");
    n *= d;
  }
  std::vector<std::uint16_t> bits(static_cast<std::size_t>(n));
  if (t.has_raw_data()) {
    if (t.raw_data().size() != bits.size() * 2) {
      throw ModelError(what + ": holds " + std::to_string(t.raw_data().size()) +
                       " bytes of float16 data but its dims need " + std::to_string(n * 2) +
                       "; the file is corrupt, re-export it");
    }
    std::memcpy(bits.data(), t.raw_data().data(), t.raw_data().size());
  } else {
    if (t.int32_data_size() != n) {
      throw ModelError(what + ": holds " + std::to_string(t.int32_data_size()) +
                       " float16 values but its dims need " + std::to_string(n) +
                       "; the file is corrupt, re-export it");
    }
    for (int i = 0; i < t.int32_data_size(); ++i) {
      bits[static_cast<std::size_t>(i)] = static_cast<std::uint16_t>(t.int32_data(i));
    }
  }
  return bits;
}

// Rewrites a float16 tensor in place as float32 raw data.
void tensor_to_float(TensorProto& t, const std::string& what) {
  if (t.data_location() == TensorProto::EXTERNAL || t.external_data_size() > 0) {
    throw ModelError(what +
                     ": stores its data in an external file, which is not supported; export the "
                     "model with its weights inline");
  }
  const std::vector<std::uint16_t> bits = half_bits(t, what);
  std::vector<float> values(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) values[i] = half_to_float(bits[i]);
  t.clear_int32_data();
  t.set_data_type(kFloat);
  t.set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * 4));
}

// Retypes a declared value (graph input, output, value_info) from float16 to float; true when it
// was float16.
bool retype(onnx::ValueInfoProto& value) {
  if (!value.type().has_tensor_type()) return false;
  auto* tensor = value.mutable_type()->mutable_tensor_type();
  if (tensor->elem_type() != kFloat16) return false;
  tensor->set_elem_type(kFloat);
  return true;
}

class Converter {
 public:
  Converter(onnx::ModelProto& model, std::string where) : model_(model), where_(std::move(where)) {
    for (const auto& op : model.opset_import()) {
      if (op.domain().empty() || op.domain() == "ai.onnx") opset_ = static_cast<int>(op.version());
    }
  }

  Float16Conversion run() {
    auto& graph = *model_.mutable_graph();
    for (auto& init : *graph.mutable_initializer()) {
      if (init.data_type() != kFloat16) continue;
      float16_.insert(init.name());
      tensor_to_float(init, where_ + ": initializer '" + init.name() + "'");
      ++result_.initializers;
    }
    for (auto& in : *graph.mutable_input()) {
      if (!retype(in)) continue;
      float16_.insert(in.name());
      // An initializer listed as an input (IR < 4) is a constant, not the image.
      if (!is_initializer(in.name())) ++result_.inputs;
    }
    for (auto& out : *graph.mutable_output()) {
      if (retype(out)) ++result_.outputs;
    }
    for (auto& info : *graph.mutable_value_info()) {
      if (retype(info)) float16_.insert(info.name());
    }
    for (auto& node : *graph.mutable_node()) convert_node(node);
    return result_;
  }

 private:
  bool is_initializer(const std::string& name) const {
    for (const auto& init : model_.graph().initializer()) {
      if (init.name() == name) return true;
    }
    return false;
  }

  std::string describe(const onnx::NodeProto& node) const {
    const std::string name =
        node.name().empty() && node.output_size() > 0 ? node.output(0) : node.name();
    const std::string domain =
        node.domain().empty() || node.domain() == "ai.onnx" ? "" : node.domain() + ".";
    return where_ + ": node '" + name + "' (" + domain + node.op_type() + ", opset " +
           std::to_string(opset_) + ")";
  }

  // Converts the float16 tensors of one attribute; true when there were any.
  bool convert_attribute(const onnx::NodeProto& node, AttributeProto& a) {
    const std::string what = describe(node) + " attribute '" + a.name() + "'";
    bool any = false;
    if (a.type() == AttributeProto::TENSOR && a.t().data_type() == kFloat16) {
      tensor_to_float(*a.mutable_t(), what);
      ++result_.initializers;
      any = true;
    }
    for (auto& t : *a.mutable_tensors()) {
      if (t.data_type() != kFloat16) continue;
      tensor_to_float(t, what);
      ++result_.initializers;
      any = true;
    }
    if ((a.has_sparse_tensor() && a.sparse_tensor().values().data_type() == kFloat16) ||
        std::any_of(a.sparse_tensors().begin(), a.sparse_tensors().end(),
                    [](const auto& s) { return s.values().data_type() == kFloat16; })) {
      throw ModelError(what +
                       ": holds a float16 sparse tensor, which cannot be converted to float32 "
                       "here; re-export the model in FP32 (Ultralytics: without half=True)");
    }
    // Cast's `to`, and `dtype` of the ops that make tensors (EyeLike, RandomNormal, ...).
    if (a.type() == AttributeProto::INT && (a.name() == "to" || a.name() == "dtype") &&
        a.i() == kFloat16) {
      a.set_i(kFloat);
      if (node.op_type() == "Cast") ++result_.casts;
      any = true;
    }
    return any;
  }

  void convert_node(onnx::NodeProto& node) {
    bool float16 = false;
    for (const auto& in : node.input()) float16 = float16 || float16_.contains(in);
    for (auto& a : *node.mutable_attribute()) float16 = convert_attribute(node, a) || float16;
    for (const auto& out : node.output()) float16 = float16 || float16_.contains(out);
    // Constant nodes are read by the graph loader itself, which the tensors above now suit.
    if (!float16 || node.op_type() == "Constant") {
      if (float16) insert_outputs(node);
      return;
    }
    const std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
    if (!ops::find_op(domain, node.op_type())) {
      throw ModelError(describe(node) +
                       ": computes in float16, and the runtime has no operator for it in "
                       "float32 either (FP16 exports run converted to FP32 at load, so an FP32 "
                       "export of the same network fails the same way); export the model with "
                       "this op replaced by one the runtime supports: " +
                       ops::supported_ops());
    }
    if (!ends_float16(node)) insert_outputs(node);
  }

  void insert_outputs(const onnx::NodeProto& node) {
    for (const auto& out : node.output()) {
      if (!out.empty()) float16_.insert(out);
    }
  }

  onnx::ModelProto& model_;
  std::string where_;
  int opset_ = 0;
  // Values known to be float16 in the file: the region whose ops must have a float32 form.
  std::set<std::string> float16_;
  Float16Conversion result_;
};

}  // namespace

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000U) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1FU;
  std::uint32_t mantissa = h & 0x3FFU;
  std::uint32_t bits = 0;
  if (exponent == 0x1FU) {
    bits = sign | 0x7F800000U | (mantissa << 13);  // infinity or NaN
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112U) << 23) | (mantissa << 13);
  } else if (mantissa != 0) {
    // A subnormal half is a normal float: shift the mantissa up to its leading one.
    std::uint32_t e = 113;
    while ((mantissa & 0x400U) == 0) {
      mantissa <<= 1;
      --e;
    }
    bits = sign | (e << 23) | ((mantissa & 0x3FFU) << 13);
  } else {
    bits = sign;
  }
  float f = 0;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

Float16Conversion convert_float16(onnx::ModelProto& model, const std::string& where) {
  return Converter(model, where).run();
}

}  // namespace yolo::runtime
