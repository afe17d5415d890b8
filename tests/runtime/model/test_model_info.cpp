// SPDX-License-Identifier: Apache-2.0
#include "runtime/model/model_info.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/model/onnx_model.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_folder.h"

namespace yolo::runtime {
namespace {

namespace fs = std::filesystem;
using onnx::TensorProto;
using test::TempFolder;

void add_value(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list,
               const std::string& name, const std::vector<std::string>& dims) {
  auto* value = list->Add();
  value->set_name(name);
  auto* tensor = value->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(TensorProto::FLOAT);
  auto* shape = tensor->mutable_shape();
  for (const auto& d : dims) {
    auto* dim = shape->add_dim();
    if (std::all_of(d.begin(), d.end(),
                    [](char c) { return c == '-' || (c >= '0' && c <= '9'); })) {
      dim->set_dim_value(std::stoll(d));
    } else {
      dim->set_dim_param(d);
    }
  }
}

onnx::NodeProto* add_node(onnx::GraphProto* graph, const std::string& op,
                          const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs) {
  auto* node = graph->add_node();
  node->set_op_type(op);
  node->set_name(outputs.empty() ? op : op + "_" + outputs.front());
  for (const auto& in : inputs) node->add_input(in);
  for (const auto& out : outputs) node->add_output(out);
  return node;
}

TensorProto* add_float_initializer(onnx::GraphProto* graph, const std::string& name,
                                   const std::vector<std::int64_t>& dims) {
  auto* init = graph->add_initializer();
  init->set_name(name);
  init->set_data_type(TensorProto::FLOAT);
  std::int64_t n = 1;
  for (auto d : dims) {
    init->add_dims(d);
    n *= d;
  }
  init->set_raw_data(std::string(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)) * 4, '\0'));
  return init;
}

// x [batch, 3, 4, 4] + w [3, 1, 1] -> y, a well-formed model to break in one place per test.
onnx::ModelProto small_model() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("test");
  model.add_opset_import()->set_version(17);
  auto* graph = model.mutable_graph();
  add_value(graph->mutable_input(), "x", {"batch", "3", "4", "4"});
  add_value(graph->mutable_output(), "y", {"batch", "3", "4", "4"});
  add_float_initializer(graph, "w", {3, 1, 1});
  add_node(graph, "Add", {"x", "w"}, {"y"});
  return model;
}

// What inspect_model says of `proto`, written to a file of its own (external data would be read
// from beside it).
ModelInfo inspect_proto(const onnx::ModelProto& proto) {
  const TempFolder dir;
  const fs::path file = dir.path() / "model.onnx";
  {
    std::ofstream out(file, std::ios::binary);
    if (!proto.SerializeToOstream(&out)) throw std::runtime_error("cannot write " + file.string());
  }
  return inspect_model(OnnxModel::load(file));
}

// "v" + 3 -> "v3"; appending avoids a GCC 12 -Wrestrict false positive on literal + string.
std::string indexed(std::string prefix, std::size_t i) {
  prefix += std::to_string(i);
  return prefix;
}

// True when some problem mentions every one of `words`.
bool has_problem(const ModelInfo& info, const std::vector<std::string>& words) {
  return std::any_of(info.problems.begin(), info.problems.end(), [&](const std::string& p) {
    return std::all_of(words.begin(), words.end(),
                       [&](const std::string& w) { return p.find(w) != std::string::npos; });
  });
}

std::string problems_of(const ModelInfo& info) {
  std::string text;
  for (const auto& p : info.problems) text += p + "\n";
  return text;
}

TEST(InspectModel, WellFormedModel) {
  const auto info = inspect_proto(small_model());
  EXPECT_TRUE(info.problems.empty()) << problems_of(info);
  EXPECT_EQ(info.ir_version, 8);
  EXPECT_EQ(info.metadata.opset, 17);
  ASSERT_EQ(info.inputs.size(), 1u);
  EXPECT_EQ(info.inputs[0].name, "x");
  EXPECT_EQ(info.inputs[0].element_type, "float32");
  EXPECT_EQ(info.inputs[0].dims, (std::vector<std::string>{"batch", "3", "4", "4"}));
  ASSERT_EQ(info.outputs.size(), 1u);
  EXPECT_EQ(info.outputs[0].name, "y");
  EXPECT_EQ(info.node_count, 1u);
  EXPECT_EQ(info.count("Add"), 1u);
  EXPECT_EQ(info.initializer_count, 1u);
  EXPECT_EQ(info.parameter_count, 3);
  EXPECT_EQ(info.quantization, QuantizationKind::kNone);
  EXPECT_GT(info.file_size, 0u);
}

TEST(InspectModel, InitializersListedAsInputsAreNotInputs) {
  auto model = small_model();
  add_value(model.mutable_graph()->mutable_input(), "w", {"3", "1", "1"});
  const auto info = inspect_proto(model);
  ASSERT_EQ(info.inputs.size(), 1u);
  EXPECT_EQ(info.inputs[0].name, "x");
}

TEST(InspectModel, ParametersIncludeConstantNodes) {
  auto model = small_model();
  auto* graph = model.mutable_graph();
  auto* tensor_const = add_node(graph, "Constant", {}, {"c1"});
  auto* attr = tensor_const->add_attribute();
  attr->set_name("value");
  attr->set_type(onnx::AttributeProto::TENSOR);
  attr->mutable_t()->set_data_type(TensorProto::INT64);
  attr->mutable_t()->add_dims(4);
  for (int i = 0; i < 4; ++i) attr->mutable_t()->add_int64_data(i);
  auto* list_const = add_node(graph, "Constant", {}, {"c2"});
  auto* floats = list_const->add_attribute();
  floats->set_name("value_floats");
  floats->set_type(onnx::AttributeProto::FLOATS);
  for (int i = 0; i < 5; ++i) floats->add_floats(0.5f);
  const auto info = inspect_proto(model);
  EXPECT_TRUE(info.problems.empty()) << problems_of(info);
  EXPECT_EQ(info.parameter_count, 3 + 4 + 5);
  EXPECT_EQ(info.count("Constant"), 2u);
}

TEST(InspectModel, NodeReadingAValueNoOneProduces) {
  auto model = small_model();
  model.mutable_graph()->mutable_node(0)->set_input(1, "ghost");
  const auto info = inspect_proto(model);
  EXPECT_TRUE(has_problem(info, {"Add_y", "ghost", "no node"})) << problems_of(info);
}

TEST(InspectModel, NodesOutOfTopologicalOrder) {
  auto model = small_model();
  auto* graph = model.mutable_graph();
  graph->mutable_node(0)->set_output(0, "t");
  add_node(graph, "Relu", {"t"}, {"y"});
  graph->mutable_node()->SwapElements(0, 1);
  const auto info = inspect_proto(model);
  EXPECT_TRUE(has_problem(info, {"Relu_y", "'t'", "topological"})) << problems_of(info);
}

TEST(InspectModel, ValueProducedTwiceAndOutputProducedByNoNode) {
  auto model = small_model();
  auto* graph = model.mutable_graph();
  add_node(graph, "Relu", {"x"}, {"y"});
  add_value(graph->mutable_output(), "z", {"1"});
  const auto info = inspect_proto(model);
  EXPECT_TRUE(has_problem(info, {"Relu_y", "'y'", "already produced"})) << problems_of(info);
  EXPECT_TRUE(has_problem(info, {"output 'z'", "no node"})) << problems_of(info);
}

TEST(InspectModel, InitializerRawDataOfTheWrongSize) {
  auto model = small_model();
  model.mutable_graph()->mutable_initializer(0)->set_raw_data(std::string(10, '\0'));
  const auto info = inspect_proto(model);
  EXPECT_TRUE(has_problem(info, {"initializer 'w'", "[3, 1, 1]", "10 bytes", "3 x 4"}))
      << problems_of(info);
}

TEST(InspectModel, InitializerTypedDataOfTheWrongCount) {
  auto model = small_model();
  auto* init = model.mutable_graph()->mutable_initializer(0);
  init->clear_raw_data();
  init->add_float_data(1.0f);
  const auto info = inspect_proto(model);
  EXPECT_TRUE(has_problem(info, {"initializer 'w'", "holds 1 values", "need 3"}))
      << problems_of(info);
}

TEST(InspectModel, NegativeDimensions) {
  auto model = small_model();
  auto* graph = model.mutable_graph();
  graph->mutable_initializer(0)->set_dims(0, -3);
  graph->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(2)
      ->set_dim_value(-4);
  const auto info = inspect_proto(model);
  EXPECT_TRUE(has_problem(info, {"initializer 'w'", "negative dimension -3"})) << problems_of(info);
  EXPECT_TRUE(has_problem(info, {"input 'x'", "dimension 2 is -4"})) << problems_of(info);
  EXPECT_EQ(info.parameter_count, 0);
}

TEST(InspectModel, AbsurdDimsSaturateTheParameterCount) {
  auto model = small_model();
  auto* graph = model.mutable_graph();
  for (const char* name : {"huge1", "huge2", "huge3"}) {
    auto* init = graph->add_initializer();
    init->set_name(name);
    init->set_data_type(TensorProto::FLOAT);
    init->add_dims(std::int64_t{1} << 61);
    init->add_dims(2);
  }
  graph->add_initializer()->CopyFrom(graph->initializer(1));
  graph->mutable_initializer(4)->set_name("overflowing");
  graph->mutable_initializer(4)->add_dims(8);
  const auto info = inspect_proto(model);
  EXPECT_EQ(info.parameter_count, std::numeric_limits<std::int64_t>::max());
  EXPECT_TRUE(has_problem(info, {"initializer 'huge1'", "holds 0 values"})) << problems_of(info);
  EXPECT_TRUE(has_problem(info, {"initializer 'overflowing'", "overflows"})) << problems_of(info);
}

TEST(InspectModel, MissingExternalDataFile) {
  auto model = small_model();
  auto* init = model.mutable_graph()->mutable_initializer(0);
  init->clear_raw_data();
  init->set_data_location(TensorProto::EXTERNAL);
  auto* entry = init->add_external_data();
  entry->set_key("location");
  entry->set_value("weights.bin");
  const auto info = inspect_proto(model);
  EXPECT_TRUE(has_problem(info, {"initializer 'w'", "weights.bin"})) << problems_of(info);
  EXPECT_EQ(info.parameter_count, 3);
}

TEST(InspectModel, MalformedMetadataIsAProblemNotAnAbort) {
  auto model = small_model();
  for (const auto& [key, value] :
       {std::pair{"names", "{0: 'a', 1: "}, std::pair{"imgsz", "[640, 640]"}}) {
    auto* prop = model.add_metadata_props();
    prop->set_key(key);
    prop->set_value(value);
  }
  const auto info = inspect_proto(model);
  EXPECT_TRUE(has_problem(info, {"'names'", "malformed"})) << problems_of(info);
  EXPECT_TRUE(info.metadata.names.empty());
  EXPECT_EQ(info.metadata.imgsz, (std::vector<int>{640, 640}));
}

TEST(InspectModel, GarbageGivesBoundedProblemList) {
  auto model = small_model();
  for (int i = 0; i < 500; ++i)
    add_node(model.mutable_graph(), "Relu", {indexed("nothing", i)}, {indexed("o", i)});
  const auto info = inspect_proto(model);
  ASSERT_EQ(info.problems.size(), 101u);
  EXPECT_NE(info.problems.back().find("400 more"), std::string::npos) << info.problems.back();
}

struct QuantCase {
  std::vector<std::string> ops;
  QuantizationKind kind;
};

TEST(InspectModel, QuantizationKindFromOperators) {
  for (const QuantCase& c :
       {QuantCase{{"DynamicQuantizeLinear", "ConvInteger"}, QuantizationKind::kDynamic},
        QuantCase{{"DynamicQuantizeLinear", "MatMulInteger"}, QuantizationKind::kDynamic},
        QuantCase{{"QuantizeLinear", "DequantizeLinear", "Conv"}, QuantizationKind::kStaticQdq},
        QuantCase{{"QuantizeLinear", "QLinearConv", "DequantizeLinear"},
                  QuantizationKind::kQOperator},
        QuantCase{{"QuantizeLinear", "QLinearMatMul", "DequantizeLinear"},
                  QuantizationKind::kQOperator},
        QuantCase{{"Conv", "Relu"}, QuantizationKind::kNone}}) {
    auto model = small_model();
    auto* graph = model.mutable_graph();
    // A chain x -> op1 -> op2 ... -> y: only the op types matter to the classification.
    graph->clear_node();
    std::string prev = "x";
    for (std::size_t i = 0; i < c.ops.size(); ++i) {
      const std::string out = i + 1 == c.ops.size() ? "y" : indexed("v", i);
      add_node(graph, c.ops[i], {prev}, {out});
      prev = out;
    }
    const auto info = inspect_proto(model);
    EXPECT_EQ(info.quantization, c.kind) << c.ops.front() << " ... " << c.ops.back();
  }
}

TEST(InspectModel, FixtureModels) {
  YOLO_REQUIRE_FIXTURES();
  struct Case {
    const char* file;
    QuantizationKind kind;
    int size;
    std::vector<std::string> output;
  };
  for (const Case& c :
       {Case{"yolov8n_640_int8dyn.onnx", QuantizationKind::kDynamic, 640, {"1", "84", "8400"}},
        Case{"yolov8n_640_fp32.onnx", QuantizationKind::kNone, 640, {"1", "84", "8400"}},
        Case{"yolo11n_320_int8dyn.onnx", QuantizationKind::kDynamic, 320, {"1", "84", "2100"}},
        Case{"yolo11n_320_fp32.onnx", QuantizationKind::kNone, 320, {"1", "84", "2100"}},
        Case{"yolo26n_640_int8dyn.onnx", QuantizationKind::kDynamic, 640, {"1", "300", "6"}},
        Case{"yolo26n_640_fp32.onnx", QuantizationKind::kNone, 640, {"1", "300", "6"}}}) {
    SCOPED_TRACE(c.file);
    const auto info = inspect_model(OnnxModel::load(test::fixtures_dir() / "models" / c.file));
    EXPECT_TRUE(info.problems.empty()) << problems_of(info);
    EXPECT_EQ(info.quantization, c.kind);
    ASSERT_EQ(info.inputs.size(), 1u);
    EXPECT_EQ(info.inputs[0].name, "images");
    EXPECT_EQ(info.inputs[0].element_type, "float32");
    const std::string s = std::to_string(c.size);
    EXPECT_EQ(info.inputs[0].dims, (std::vector<std::string>{"1", "3", s, s}));
    ASSERT_EQ(info.outputs.size(), 1u);
    EXPECT_EQ(info.outputs[0].name, "output0");
    EXPECT_EQ(info.outputs[0].dims, c.output);
    EXPECT_EQ(info.metadata.names.size(), 80u);
    // Between 2 and 4 million parameters: the nano models.
    EXPECT_GT(info.parameter_count, 2'000'000);
    EXPECT_LT(info.parameter_count, 4'000'000);
    EXPECT_EQ(info.file_size, fs::file_size(test::fixtures_dir() / "models" / c.file));
    if (c.kind == QuantizationKind::kNone) {
      EXPECT_EQ(info.dynamic_quantize_count, 0u);
      EXPECT_EQ(info.count("ConvInteger"), 0u);
      EXPECT_GT(info.count("Conv"), 0u);
    } else {
      EXPECT_GT(info.dynamic_quantize_count, 0u);
      EXPECT_EQ(info.count("Conv"), 0u);
    }
  }
}

TEST(InspectModel, Yolov8nDynamicCountsMatchTheFixturesReadme) {
  YOLO_REQUIRE_FIXTURES();
  const auto dyn =
      inspect_model(OnnxModel::load(test::fixtures_dir() / "models" / "yolov8n_640_int8dyn.onnx"));
  EXPECT_EQ(dyn.count("DynamicQuantizeLinear"), 59u);
  EXPECT_EQ(dyn.dynamic_quantize_count, 59u);
  EXPECT_EQ(dyn.count("ConvInteger"), 64u);
  EXPECT_EQ(dyn.integer_op_count, 64u);
  EXPECT_EQ(dyn.metadata.opset, 20);
  // The FP32 rebuild folds every ConvInteger chain into one Conv.
  const auto fp32 =
      inspect_model(OnnxModel::load(test::fixtures_dir() / "models" / "yolov8n_640_fp32.onnx"));
  EXPECT_EQ(fp32.count("Conv"), 64u);
  EXPECT_EQ(fp32.node_count, 233u);
}

}  // namespace
}  // namespace yolo::runtime
