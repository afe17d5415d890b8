// SPDX-License-Identifier: Apache-2.0
#include "runtime/model/model_info.h"

#include <limits>
#include <optional>
#include <set>
#include <system_error>

#include "runtime/engine/precision.h"
#include "runtime/int8/qoperator.h"

namespace yolo::runtime {

namespace {

using onnx::TensorProto;

// Garbage that parses as protobuf can hold thousands of broken references; past this many the
// rest only repeats the point.
constexpr std::size_t kMaxProblems = 100;

class ProblemList {
 public:
  explicit ProblemList(std::vector<std::string>& out) : out_(out) {}

  // Appends the count of problems left out; call once, after the last add().
  void finish() {
    if (dropped_ > 0) {
      out_.push_back("... and " + std::to_string(dropped_) + " more problems of the kinds above");
    }
  }

  void add(std::string problem) {
    if (out_.size() < kMaxProblems) {
      out_.push_back(std::move(problem));
    } else {
      ++dropped_;
    }
  }

 private:
  std::vector<std::string>& out_;
  std::size_t dropped_ = 0;
};

std::string type_name(int type) {
  switch (type) {
    case TensorProto::FLOAT:
      return "float32";
    case TensorProto::UINT8:
      return "uint8";
    case TensorProto::INT8:
      return "int8";
    case TensorProto::UINT16:
      return "uint16";
    case TensorProto::INT16:
      return "int16";
    case TensorProto::INT32:
      return "int32";
    case TensorProto::INT64:
      return "int64";
    case TensorProto::STRING:
      return "string";
    case TensorProto::BOOL:
      return "bool";
    case TensorProto::FLOAT16:
      return "float16";
    case TensorProto::DOUBLE:
      return "float64";
    case TensorProto::UINT32:
      return "uint32";
    case TensorProto::UINT64:
      return "uint64";
    case TensorProto::COMPLEX64:
      return "complex64";
    case TensorProto::COMPLEX128:
      return "complex128";
    case TensorProto::BFLOAT16:
      return "bfloat16";
    default:
      return "type " + std::to_string(type);
  }
}

// Bytes per element in raw_data; 0 for types without a fixed size (string, unknown).
std::size_t element_size(int type) {
  switch (type) {
    case TensorProto::UINT8:
    case TensorProto::INT8:
    case TensorProto::BOOL:
      return 1;
    case TensorProto::UINT16:
    case TensorProto::INT16:
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16:
      return 2;
    case TensorProto::FLOAT:
    case TensorProto::INT32:
    case TensorProto::UINT32:
      return 4;
    case TensorProto::INT64:
    case TensorProto::DOUBLE:
    case TensorProto::UINT64:
    case TensorProto::COMPLEX64:
      return 8;
    case TensorProto::COMPLEX128:
      return 16;
    default:
      return 0;
  }
}

// Values stored in the typed repeated field for `type` (ONNX packs the small types in int32_data).
std::int64_t typed_data_count(const TensorProto& t) {
  switch (t.data_type()) {
    case TensorProto::FLOAT:
      return t.float_data_size();
    case TensorProto::COMPLEX64:
      return t.float_data_size() / 2;
    case TensorProto::INT32:
    case TensorProto::INT16:
    case TensorProto::INT8:
    case TensorProto::UINT16:
    case TensorProto::UINT8:
    case TensorProto::BOOL:
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16:
      return t.int32_data_size();
    case TensorProto::INT64:
      return t.int64_data_size();
    case TensorProto::DOUBLE:
      return t.double_data_size();
    case TensorProto::COMPLEX128:
      return t.double_data_size() / 2;
    case TensorProto::UINT32:
    case TensorProto::UINT64:
      return t.uint64_data_size();
    case TensorProto::STRING:
      return t.string_data_size();
    default:
      return -1;
  }
}

// Element count of a tensor, checking that its dims are valid and its data matches them.
// Returns nothing when the dims themselves are unusable.
std::optional<std::int64_t> checked_elements(const TensorProto& t, const std::string& what,
                                             const std::filesystem::path& model_dir,
                                             ProblemList& problems) {
  const std::string where =
      what + " " + type_name(t.data_type()) + " " + shape_text(t.dims(), ", ");
  std::int64_t n = 1;
  for (std::int64_t d : t.dims()) {
    if (d < 0) {
      problems.add(where + ": negative dimension " + std::to_string(d));
      return std::nullopt;
    }
    if (d != 0 && n > std::numeric_limits<std::int64_t>::max() / d) {
      problems.add(where + ": element count overflows 64 bits");
      return std::nullopt;
    }
    n *= d;
  }
  if (t.data_location() == TensorProto::EXTERNAL) {
    for (const auto& entry : t.external_data()) {
      if (entry.key() != "location") continue;
      std::error_code ec;
      if (!std::filesystem::exists(model_dir / entry.value(), ec)) {
        problems.add(where + ": its data is in the external file '" + entry.value() +
                     "', which is not beside the model; copy it there");
      }
    }
    return n;
  }
  if (t.has_raw_data()) {
    const std::size_t size = element_size(t.data_type());
    if (size == 0) {
      problems.add(where + ": raw_data is not allowed for this element type");
    } else if (static_cast<std::uint64_t>(n) > std::numeric_limits<std::uint64_t>::max() / size ||
               t.raw_data().size() != static_cast<std::uint64_t>(n) * size) {
      problems.add(where + ": raw_data holds " + std::to_string(t.raw_data().size()) +
                   " bytes where the dims need " + std::to_string(n) + " x " +
                   std::to_string(size));
    }
    return n;
  }
  const std::int64_t stored = typed_data_count(t);
  if (stored < 0) {
    problems.add(where + ": unknown element type");
  } else if (stored != n) {
    problems.add(where + ": holds " + std::to_string(stored) + " values where the dims need " +
                 std::to_string(n));
  }
  return n;
}

ValueInfo describe_value(const onnx::ValueInfoProto& value, const std::string& role,
                         ProblemList& problems) {
  ValueInfo info{.name = value.name(), .element_type = std::string(1, '?'), .dims = {}};
  if (!value.type().has_tensor_type()) return info;
  const auto& tensor = value.type().tensor_type();
  if (tensor.elem_type() != TensorProto::UNDEFINED)
    info.element_type = type_name(tensor.elem_type());
  if (!tensor.has_shape()) return info;
  info.has_shape = true;
  for (int i = 0; i < tensor.shape().dim_size(); ++i) {
    const auto& dim = tensor.shape().dim(i);
    if (dim.has_dim_value()) {
      if (dim.dim_value() < 0) {
        problems.add(role + " '" + value.name() + "': dimension " + std::to_string(i) + " is " +
                     std::to_string(dim.dim_value()) + "; sizes cannot be negative");
      }
      info.dims.push_back(std::to_string(dim.dim_value()));
    } else if (dim.has_dim_param() && !dim.dim_param().empty()) {
      info.dims.push_back(dim.dim_param());
    } else {
      info.dims.emplace_back("?");
    }
  }
  return info;
}

// Garbage dims can claim up to 2^63 elements per tensor; their sum must not overflow.
std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  return a > std::numeric_limits<std::int64_t>::max() - b ? std::numeric_limits<std::int64_t>::max()
                                                          : a + b;
}

std::string node_label(const onnx::NodeProto& node, int index) {
  const std::string op = node.op_type().empty() ? "no op_type" : node.op_type();
  if (node.name().empty()) return "node #" + std::to_string(index) + " (" + op + ")";
  return "node '" + node.name() + "' (" + op + ")";
}

bool is_default_domain(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx";
}

// Parameters a Constant node carries in its attributes.
std::int64_t constant_elements(const onnx::NodeProto& node, const std::string& label,
                               const std::filesystem::path& model_dir, ProblemList& problems) {
  std::int64_t n = 0;
  for (const auto& attr : node.attribute()) {
    if (attr.name() == "value" && attr.has_t()) {
      n = saturating_add(
          n, checked_elements(attr.t(), label + " value", model_dir, problems).value_or(0));
    } else if (attr.name() == "value_float" || attr.name() == "value_int") {
      n = saturating_add(n, 1);
    } else if (attr.name() == "value_floats") {
      n = saturating_add(n, attr.floats_size());
    } else if (attr.name() == "value_ints") {
      n = saturating_add(n, attr.ints_size());
    }
  }
  return n;
}

QuantizationKind classify(const ModelInfo& info) {
  if (info.qoperator_count > 0) return QuantizationKind::kQOperator;
  if (info.integer_op_count > 0) {
    // Integer ops fed by fixed quantization parameters rather than per-run ones are QOperator.
    return info.dynamic_quantize_count > 0 ? QuantizationKind::kDynamic
                                           : QuantizationKind::kQOperator;
  }
  if (info.qdq_count > 0) return QuantizationKind::kStaticQdq;
  return QuantizationKind::kNone;
}

}  // namespace

const char* to_string(QuantizationKind kind) {
  switch (kind) {
    case QuantizationKind::kNone:
      return "none";
    case QuantizationKind::kDynamic:
      return "dynamic";
    case QuantizationKind::kStaticQdq:
      return "static QDQ";
    case QuantizationKind::kQOperator:
      return "QOperator";
  }
  return "unknown";
}

const char* ModelInfo::file_precision() const {
  return precision_name(quantization == QuantizationKind::kStaticQdq ? Precision::kInt8
                                                                     : Precision::kFp32);
}

std::size_t ModelInfo::count(const std::string& op) const {
  const auto it = op_counts.find(op);
  return it == op_counts.end() ? 0 : it->second;
}

std::string op_name(const onnx::NodeProto& node) {
  return is_default_domain(node.domain()) ? node.op_type() : node.domain() + "." + node.op_type();
}

ModelInfo inspect_model(const OnnxModel& model) {
  const onnx::ModelProto& proto = model.proto();
  const onnx::GraphProto& graph = proto.graph();
  const std::filesystem::path model_dir = model.path().parent_path();

  ModelInfo info;
  info.path = model.path();
  info.file_size = model.file_size();
  info.ir_version = proto.ir_version();
  ProblemList problems(info.problems);
  {
    std::vector<std::string> metadata_problems;
    info.metadata = read_metadata(proto, metadata_problems);
    for (auto& p : metadata_problems) problems.add(std::move(p));
  }
  for (const auto& opset : proto.opset_import()) {
    info.opsets[is_default_domain(opset.domain()) ? "" : opset.domain()] = opset.version();
  }
  if (!info.opsets.contains("")) {
    problems.add("the model imports no opset of the default ONNX domain (opset_import)");
  }
  if (proto.unknown_fields().field_count() > 0 || graph.unknown_fields().field_count() > 0) {
    problems.add("the file holds fields this ONNX version does not define (" +
                 std::to_string(proto.unknown_fields().field_count() +
                                graph.unknown_fields().field_count()) +
                 " unknown): written by a much newer exporter, or corrupt");
  }

  // Values available so far, walking the nodes in file order (ONNX requires topological order).
  std::set<std::string> available;
  for (const auto& init : graph.initializer()) {
    ++info.initializer_count;
    info.parameter_count = saturating_add(
        info.parameter_count,
        checked_elements(init, "initializer '" + init.name() + "'", model_dir, problems)
            .value_or(0));
    if (init.name().empty()) problems.add("an initializer has no name");
    if (init.data_type() == onnx::TensorProto::FLOAT16) ++info.float16_initializers;
    available.insert(init.name());
  }
  const std::set<std::string> initializer_names = available;
  for (const auto& input : graph.input()) {
    available.insert(input.name());
    if (initializer_names.contains(input.name())) continue;
    info.inputs.push_back(describe_value(input, "input", problems));
    info.float16_input = info.float16_input || info.inputs.back().element_type == "float16";
  }
  for (const auto& output : graph.output()) {
    info.outputs.push_back(describe_value(output, "output", problems));
    info.float16_output = info.float16_output || info.outputs.back().element_type == "float16";
  }

  std::set<std::string> produced_by_nodes;
  for (const auto& node : graph.node()) {
    for (const auto& out : node.output()) produced_by_nodes.insert(out);
  }
  info.node_count = static_cast<std::size_t>(graph.node_size());
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& node = graph.node(i);
    const std::string label = node_label(node, i);
    if (node.op_type().empty()) problems.add(label + ": has no op_type");
    ++info.op_counts[op_name(node)];

    const std::string& op = node.op_type();
    if (op == "DynamicQuantizeLinear") ++info.dynamic_quantize_count;
    if (op == "ConvInteger" || op == "MatMulInteger") ++info.integer_op_count;
    if (op == "QuantizeLinear" || op == "DequantizeLinear") ++info.qdq_count;
    if (is_qoperator(node.domain(), op)) ++info.qoperator_count;
    for (const auto& a : node.attribute()) {
      if (op == "Cast" && a.name() == "to" && a.i() == onnx::TensorProto::FLOAT16) {
        ++info.float16_casts;
      }
      if (op == "Constant" && a.has_t() && a.t().data_type() == onnx::TensorProto::FLOAT16) {
        ++info.float16_initializers;
      }
    }
    if (op == "Constant") {
      info.parameter_count =
          saturating_add(info.parameter_count, constant_elements(node, label, model_dir, problems));
    }

    for (const auto& in : node.input()) {
      if (in.empty() || available.contains(in)) continue;  // "" marks an omitted optional input
      if (produced_by_nodes.contains(in)) {
        problems.add(label + ": reads '" + in +
                     "' before the node producing it (the nodes are not in topological order)");
      } else {
        problems.add(label + ": reads '" + in +
                     "', which no node, graph input or initializer produces");
      }
    }
    for (const auto& out : node.output()) {
      if (out.empty()) continue;
      if (!available.insert(out).second) {
        problems.add(label + ": writes '" + out + "', which is already produced elsewhere");
      }
    }
  }
  for (const auto& output : graph.output()) {
    if (!available.contains(output.name())) {
      problems.add("output '" + output.name() + "' is produced by no node");
    }
  }
  info.quantization = classify(info);
  problems.finish();
  return info;
}

}  // namespace yolo::runtime
