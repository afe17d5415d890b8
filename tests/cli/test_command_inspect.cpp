// SPDX-License-Identifier: Apache-2.0
// yolo-edge inspect on the fixture models and on broken copies of them (cli/inspect/command_inspect.cpp).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "tests/cli/run_cli.h"
#include "tests/runtime/model/lint_models.h"
#include "tests/runtime/test_model_builder.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_folder.h"

namespace yolo::test {
namespace {

namespace fs = std::filesystem;
using ModelBuilder = yolo::test::ModelBuilder;

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

struct Fixture {
  std::string file;
  std::string quantization;  // as --json reports it
  int imgsz;
  std::vector<int> output;
};

const std::vector<Fixture>& fixtures() {
  static const std::vector<Fixture> all = {
      {"yolov8n_640_int8dyn.onnx", "dynamic", 640, {1, 84, 8400}},
      {"yolov8n_640_fp32.onnx", "none", 640, {1, 84, 8400}},
      {"yolo11n_320_int8dyn.onnx", "dynamic", 320, {1, 84, 2100}},
      {"yolo11n_320_fp32.onnx", "none", 320, {1, 84, 2100}},
      {"yolo26n_640_int8dyn.onnx", "dynamic", 640, {1, 300, 6}},
      {"yolo26n_640_fp32.onnx", "none", 640, {1, 300, 6}},
  };
  return all;
}

class InspectFixture : public ::testing::TestWithParam<Fixture> {
 protected:
  fs::path model() const { return fixtures_dir() / "models" / GetParam().file; }
};

TEST_P(InspectFixture, TextReport) {
  YOLO_REQUIRE_FIXTURES();
  const auto r = run_cli({"inspect", model().string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  const std::string s = std::to_string(GetParam().imgsz);
  EXPECT_TRUE(contains(r.out, "images  float32  [1, 3, " + s + ", " + s + "]")) << r.out;
  EXPECT_TRUE(contains(r.out, "output0  float32  [")) << r.out;
  EXPECT_TRUE(contains(r.out, "imgsz            " + s + " x " + s)) << r.out;
  EXPECT_TRUE(contains(r.out, "80: person, bicycle, car")) << r.out;
  EXPECT_TRUE(contains(r.out, "task             detect")) << r.out;
  EXPECT_TRUE(contains(r.out, "quantization     " + GetParam().quantization)) << r.out;
  EXPECT_TRUE(contains(r.out, "Operators (")) << r.out;
  EXPECT_TRUE(contains(r.out, "INT8 plan (what --precision int8 runs)")) << r.out;
  if (GetParam().quantization == "dynamic") {
    EXPECT_TRUE(contains(r.out, "slower than FP32")) << r.out;
    EXPECT_TRUE(contains(r.out, "DynamicQuantizeLinear ops")) << r.out;
    EXPECT_TRUE(contains(r.out, "yolo-edge quantize")) << r.out;
    EXPECT_TRUE(contains(r.out, "none: dynamic INT8: runs as FP32")) << r.out;
  } else {
    EXPECT_FALSE(contains(r.out, "slower than FP32")) << r.out;
    EXPECT_TRUE(contains(r.out, "none: float model")) << r.out;
  }
}

TEST_P(InspectFixture, JsonReport) {
  YOLO_REQUIRE_FIXTURES();
  const auto r = run_cli({"inspect", "--json", model().string()});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("file_size").get<std::uintmax_t>(), fs::file_size(model()));
  EXPECT_EQ(j.at("inputs").size(), 1u);
  EXPECT_EQ(j.at("inputs")[0].at("name"), "images");
  const int s = GetParam().imgsz;
  EXPECT_EQ(j.at("inputs")[0].at("shape"), (std::vector<int>{1, 3, s, s}));
  EXPECT_EQ(j.at("outputs")[0].at("shape"), GetParam().output);
  EXPECT_GE(j.at("opset").get<int>(), 12);
  EXPECT_FALSE(j.at("producer").get<std::string>().empty());
  EXPECT_GT(j.at("parameter_count").get<long long>(), 2'000'000);
  EXPECT_GT(j.at("node_count").get<int>(), 100);
  const auto& meta = j.at("metadata");
  EXPECT_EQ(meta.at("task"), "detect");
  EXPECT_EQ(meta.at("imgsz"), (std::vector<int>{s, s}));
  EXPECT_EQ(meta.at("class_count"), 80);
  EXPECT_EQ(meta.at("names")[0], "person");
  EXPECT_EQ(meta.at("end2end").get<bool>(), GetParam().output.back() == 6);
  const auto& q = j.at("quantization");
  EXPECT_EQ(q.at("kind"), GetParam().quantization);
  EXPECT_TRUE(q.at("int8_plan").at("layers").is_null());
  EXPECT_FALSE(q.at("int8_plan").at("none").get<std::string>().empty());
  const auto& ops = j.at("op_counts");
  if (GetParam().quantization == "dynamic") {
    EXPECT_GT(q.at("dynamic_quantize_linear").get<int>(), 0);
    EXPECT_EQ(ops.at("DynamicQuantizeLinear"), q.at("dynamic_quantize_linear"));
    EXPECT_FALSE(q.at("note").get<std::string>().empty());
    EXPECT_FALSE(ops.contains("Conv"));
  } else {
    EXPECT_EQ(q.at("dynamic_quantize_linear"), 0);
    EXPECT_FALSE(ops.contains("ConvInteger"));
    EXPECT_GT(ops.at("Conv").get<int>(), 0);
  }
  EXPECT_TRUE(j.at("problems").empty());
}

// Cut copies: every cut inside the file must be refused with status 2 and the file named.
TEST_P(InspectFixture, CutCopiesAreRefused) {
  YOLO_REQUIRE_FIXTURES();
  TempFolder dir;
  const std::string bytes = read_bytes(model());
  const std::size_t n = bytes.size();
  for (std::size_t cut : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{64},
                          std::size_t{4096}, n / 4, n / 2, 3 * n / 4, n - 64, n - 1}) {
    const fs::path copy = dir.path() / ("cut_" + std::to_string(cut) + ".onnx");
    write_bytes(copy, bytes.substr(0, cut));
    const auto r = run_cli({"inspect", copy.string()});
    EXPECT_EQ(r.signal, 0) << "crashed on " << copy;
    EXPECT_EQ(r.status, 2) << copy << "\n" << r.out << r.err;
    EXPECT_TRUE(contains(r.err, copy.string())) << r.err;
  }
}

// Cut exactly after the graph, the protobuf still parses; the missing opset gives it away.
TEST_P(InspectFixture, CopyEndingAfterTheGraphIsRefused) {
  YOLO_REQUIRE_FIXTURES();
  TempFolder dir;
  onnx::ModelProto proto;
  ASSERT_TRUE(proto.ParseFromString(read_bytes(model())));
  proto.clear_opset_import();
  proto.clear_metadata_props();
  const fs::path copy = dir.path() / "graph_only.onnx";
  write_bytes(copy, proto.SerializeAsString());
  const auto r = run_cli({"inspect", copy.string()});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "opset")) << r.err;
}

// Corrupted bytes: where they break the structure the file is refused (2) or its problems
// listed (1); inside weights no reader can tell. Never a crash, never silence on failure.
TEST_P(InspectFixture, CorruptedCopiesNeverCrash) {
  YOLO_REQUIRE_FIXTURES();
  TempFolder dir;
  const std::string bytes = read_bytes(model());
  std::mt19937 rng(20261121);
  std::vector<std::size_t> offsets{0};
  // The nodes come first in the graph and the value infos and metadata last: corrupt there
  // most, where the structure is.
  for (std::size_t k = 1; k <= 6; ++k) offsets.push_back(k * 7919 % 60000);
  for (std::size_t k = 1; k <= 6; ++k) offsets.push_back(bytes.size() - 1 - k * 331 % 3000);
  for (std::size_t k = 1; k <= 3; ++k) offsets.push_back(bytes.size() * k / 4);
  int refused = 0;
  for (std::size_t offset : offsets) {
    std::string corrupt = bytes;
    for (std::size_t i = offset; i < std::min(offset + 8, corrupt.size()); ++i) {
      corrupt[i] = static_cast<char>(rng() & 0xff);
    }
    if (offset == 0) corrupt.replace(0, 8, 8, '\xff');
    const fs::path copy = dir.path() / ("corrupt_" + std::to_string(offset) + ".onnx");
    write_bytes(copy, corrupt);
    const auto r = run_cli({"inspect", copy.string()});
    ASSERT_EQ(r.signal, 0) << "crashed on " << copy;
    ASSERT_TRUE(r.status == 0 || r.status == 1 || r.status == 2) << r.status;
    if (offset == 0) {
      EXPECT_EQ(r.status, 2) << r.out << r.err;
    }
    if (r.status == 1) {
      EXPECT_TRUE(contains(r.out, "Problems (")) << r.out;
      EXPECT_TRUE(contains(r.err, "problem")) << r.err;
    }
    if (r.status != 0) {
      EXPECT_TRUE(contains(r.err, copy.string())) << r.err;
      ++refused;
    }
  }
  // Most of these offsets hit structure, not weights.
  EXPECT_GE(refused, 5);
}

// Well-formed protobuf, broken graph: inspect still reports the model, lists what is wrong
// (naming the node or initializer) and exits 1.
TEST_P(InspectFixture, BrokenGraphIsReportedNotAborted) {
  YOLO_REQUIRE_FIXTURES();
  TempFolder dir;
  onnx::ModelProto proto;
  ASSERT_TRUE(proto.ParseFromString(read_bytes(model())));
  auto* graph = proto.mutable_graph();
  auto* node = graph->mutable_node(5);
  const std::string node_name = node->name();
  node->set_input(0, "value_nobody_makes");
  auto* init = graph->mutable_initializer(0);
  const std::string init_name = init->name();
  init->set_raw_data(std::string(3, '\0'));
  init->clear_float_data();
  init->clear_int32_data();
  init->clear_int64_data();
  graph->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(2)
      ->set_dim_value(-640);
  const fs::path copy = dir.path() / "broken_graph.onnx";
  write_bytes(copy, proto.SerializeAsString());

  const auto r = run_cli({"inspect", copy.string()});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(contains(r.out, "Operators (")) << r.out;
  EXPECT_TRUE(contains(r.out, node_name)) << r.out;
  EXPECT_TRUE(contains(r.out, "value_nobody_makes")) << r.out;
  EXPECT_TRUE(contains(r.out, "initializer '" + init_name + "'")) << r.out;
  EXPECT_TRUE(contains(r.out, "-640")) << r.out;
  EXPECT_TRUE(contains(r.err, copy.string())) << r.err;

  const auto j = run_cli({"inspect", "--json", copy.string()});
  EXPECT_EQ(j.status, 1);
  EXPECT_GE(nlohmann::json::parse(j.out).at("problems").size(), 3u);
}

INSTANTIATE_TEST_SUITE_P(Models, InspectFixture, ::testing::ValuesIn(fixtures()),
                         [](const ::testing::TestParamInfo<Fixture>& info) {
                           std::string name = info.param.file.substr(0, info.param.file.find('.'));
                           return name;
                         });

TEST(Inspect, Yolov8nDynamicCounts) {
  YOLO_REQUIRE_FIXTURES();
  const auto r = run_cli({"inspect", "--json", fixture_model("yolov8n_640_int8dyn")});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("op_counts").at("DynamicQuantizeLinear"), 59);
  EXPECT_EQ(j.at("op_counts").at("ConvInteger"), 64);
  EXPECT_EQ(j.at("quantization").at("dynamic_quantize_linear"), 59);
  EXPECT_EQ(j.at("opset"), 20);
  EXPECT_TRUE(
      contains(j.at("quantization").at("note").get<std::string>(), "59 DynamicQuantizeLinear"));
}

// An FP16 export: what it is, how it runs, and its float16 input and output as declared.
TEST(Inspect, Fp16ExportSaysItIsComputedInFp32) {
  YOLO_REQUIRE_FIXTURES();
  const std::string path = fixture_model("yolov5n_640_fp16");
  const auto r = run_cli({"inspect", path});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* part : {"float16          FP16 export, computed in FP32",
                           "input and output float16, taken and given as float32",
                           "runs at          fp32", "images  float16  [1, 3, 640, 640]"}) {
    EXPECT_TRUE(contains(r.out, part)) << part << " not in:\n" << r.out;
  }
  const auto json = run_cli({"inspect", "--json", path});
  ASSERT_EQ(json.status, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j.at("precision"), "fp32");
  EXPECT_GE(j.at("float16").at("initializers").get<int>(), 100);
  EXPECT_TRUE(j.at("float16").at("input").get<bool>());
  EXPECT_TRUE(contains(j.at("float16").at("summary").get<std::string>(), "FP16 export"));
  // The lint reads it too (no finding: nothing is quantized).
  EXPECT_EQ(run_cli({"inspect", "--lint", path}).status, 0);
}

TEST(Inspect, FilesThatAreNotModels) {
  TempFolder dir;
  const fs::path empty = dir.path() / "empty.onnx";
  write_bytes(empty, "");
  const fs::path text = dir.path() / "notes.onnx";
  write_bytes(text, "this is a text file, not an ONNX model\n");
  const fs::path folder = dir.path() / "folder.onnx";
  fs::create_directories(folder);
  std::string random_bytes(50000, '\0');
  std::mt19937 rng(7);
  for (char& c : random_bytes) c = static_cast<char>(rng() & 0xff);
  const fs::path noise = dir.path() / "noise.onnx";
  write_bytes(noise, random_bytes);
  const fs::path missing = dir.path() / "missing.onnx";

  struct Case {
    fs::path path;
    std::string says;
  };
  for (const Case& c : {Case{empty, "empty"}, Case{text, "not"}, Case{folder, "directory"},
                        Case{noise, "not"}, Case{missing, "not found"}}) {
    for (const bool json : {false, true}) {
      const auto r = json ? run_cli({"inspect", "--json", c.path.string()})
                          : run_cli({"inspect", c.path.string()});
      EXPECT_EQ(r.status, 2) << c.path << "\n" << r.out << r.err;
      EXPECT_TRUE(contains(r.err, c.path.string())) << r.err;
      EXPECT_TRUE(contains(r.err, c.says)) << r.err;
      EXPECT_TRUE(r.out.empty()) << r.out;
    }
  }
}

// A static INT8 model made by `yolo-edge quantize` from the yolo11n fixture: inspect shows the
// engine's own plan, int8 layers grouped and every FP32 layer with its reason.
TEST(Inspect, StaticInt8ModelShowsThePlanOfEachLayer) {
  YOLO_REQUIRE_FIXTURES();
  TempFolder dir;
  const fs::path model = dir.path() / "yolo11n_320.int8.onnx";
  const auto q =
      run_cli({"quantize", "--model", fixture_model("yolo11n_320_fp32"), "--calib",
               (fixtures_dir() / "images").string(), "--frames", "2", "--out", model.string()});
  ASSERT_EQ(q.status, 0) << q.err;

  const auto text = run_cli({"inspect", model.string()});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "quantization     static QDQ INT8")) << text.out;
  EXPECT_TRUE(contains(text.out, "int8       int8 QConv + SiLU table")) << text.out;
  EXPECT_TRUE(contains(text.out, "fp32       kept FP32: no int8 lowering for Softmax")) << text.out;
  EXPECT_TRUE(contains(text.out, "/model.23/dfl/Softmax")) << text.out;
  EXPECT_TRUE(contains(text.out, "  Summary: ")) << text.out;
  // Grouped: far fewer rows than the ~320 layers.
  const auto plan_text = text.out.substr(text.out.find("INT8 plan"));
  EXPECT_LT(std::count(plan_text.begin(), plan_text.end(), '\n'), 70) << plan_text;

  const auto json = run_cli({"inspect", "--json", model.string()});
  ASSERT_EQ(json.status, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  const auto& plan = j.at("quantization").at("int8_plan");
  const auto& layers = plan.at("layers");
  ASSERT_TRUE(layers.is_array());
  EXPECT_EQ(layers.size(),
            plan.at("int8_layers").get<std::size_t>() + plan.at("fp32_layers").get<std::size_t>());
  EXPECT_GT(plan.at("int8_layers").get<int>(), 200);
  EXPECT_GE(plan.at("fp32_islands").get<int>(), 1);
  EXPECT_GE(plan.at("converts_to_float").get<int>(), 1);
  // The image goes straight in as uint8 exactly when the first conv (the stem, which `auto` may
  // keep FP32) runs int8.
  for (const auto& layer : layers) {
    if (layer.at("op") != "Conv") continue;
    EXPECT_EQ(plan.at("uint8_image_input").get<bool>(), layer.at("precision") == "int8") << layer;
    break;
  }
  EXPECT_TRUE(contains(plan.at("summary").get<std::string>(),
                       "island(s); converts at the island borders: "))
      << plan.at("summary");
  // Every Conv of the file is in the plan, once.
  int convs = 0, int8_convs = 0;
  for (const auto& layer : layers) {
    EXPECT_TRUE(layer.at("precision") == "int8" || layer.at("precision") == "fp32") << layer;
    EXPECT_FALSE(layer.at("note").get<std::string>().empty()) << layer;
    if (layer.at("op") != "Conv") continue;
    ++convs;
    int8_convs += layer.at("precision") == "int8";
  }
  EXPECT_EQ(convs, j.at("op_counts").at("Conv").get<int>());
  EXPECT_EQ(int8_convs, plan.at("int8_convs").get<int>());
  EXPECT_GT(int8_convs, 70);
}

// A QDQ model with dynamic height and width and no imgsz metadata: the plan needs --imgsz, as
// loading it does, and says so instead of failing the inspection.
TEST(Inspect, DynamicQdqModelPlansWithImgsz) {
  ModelBuilder b;
  b.input("images", {1, 3, -1, -1});
  b.floats("s", {}, {1.0F / 255.0F});
  b.node("QuantizeLinear", {"images", "s"}, {"q"});
  b.node("DequantizeLinear", {"q", "s"}, {"x"});
  b.node("Relu", {"x"}, {"out"}, "relu");
  b.output("out");
  const auto path = b.save("inspect_dynamic_qdq.onnx");
  const auto without = run_cli({"inspect", path.string()});
  EXPECT_EQ(without.status, 0) << without.err;
  EXPECT_TRUE(contains(without.out, "none: the engine cannot plan this model")) << without.out;
  EXPECT_TRUE(contains(without.out, "--imgsz")) << without.out;
  const auto with = run_cli({"inspect", "--json", "--imgsz", "64", path.string()});
  ASSERT_EQ(with.status, 0) << with.err;
  const auto plan = nlohmann::json::parse(with.out).at("quantization").at("int8_plan");
  ASSERT_EQ(plan.at("layers").size(), 1U) << plan;
  EXPECT_EQ(plan.at("layers")[0].at("node"), "relu");
  EXPECT_EQ(plan.at("layers")[0].at("precision"), "fp32");
  EXPECT_EQ(plan.at("layers")[0].at("note"), "kept FP32: its output 'out' is a model output");
  EXPECT_EQ(plan.at("fp32_islands"), 1);
  fs::remove(path);
}

// onnxruntime's QOperator format: readable, reported, and said to be not runnable here.
TEST(Inspect, QOperatorModelIsReportedAsNotRunnableWithAdvice) {
  ModelBuilder b;
  b.input("images", {1, 3, 8, 8});
  b.floats("xs", {}, {0.01F});
  b.floats("ws", {}, {0.1F});
  b.floats("ys", {}, {0.05F});
  b.node("QuantizeLinear", {"images", "xs"}, {"xq"});
  // The weights as float keep the builder simple; inspect reads op types, not values.
  b.floats("w", {4, 3, 1, 1}, std::vector<float>(12, 1.0F));
  b.node("QLinearConv", {"xq", "xs", "", "w", "ws", "", "ys", ""}, {"yq"}, "conv_q");
  b.node("DequantizeLinear", {"yq", "ys"}, {"out"});
  b.output("out");
  const auto path = b.save("inspect_qoperator.onnx");
  // Described, and a problem (status 1): the engine refuses it at load.
  const auto text = run_cli({"inspect", path.string()});
  EXPECT_EQ(text.status, 1) << text.err;
  EXPECT_TRUE(contains(
      text.out, "the engine refuses it at load: " + path.string() + ": node 'conv_q' (QLinearConv"))
      << text.out;
  EXPECT_TRUE(contains(text.out, "QOperator INT8 (1 quantized operators; not runnable here)"))
      << text.out;
  EXPECT_TRUE(contains(text.out, "none: QOperator INT8 (not runnable here)")) << text.out;
  EXPECT_TRUE(contains(text.out, "yolo-edge quantize --model FP32.onnx")) << text.out;
  const auto json = run_cli({"inspect", "--json", path.string()});
  EXPECT_EQ(json.status, 1) << json.err;
  const auto q = nlohmann::json::parse(json.out).at("quantization");
  EXPECT_EQ(q.at("kind"), "QOperator");
  EXPECT_TRUE(contains(q.at("note").get<std::string>(), "quant_format=QuantFormat.QDQ"));
  EXPECT_TRUE(q.at("int8_plan").at("layers").is_null());
  // Running it fails at load with the node and the same advice, status 2.
  const auto detect = run_cli({"bench", "--model", path.string(), "--runs", "1", "-t", "1"});
  EXPECT_EQ(detect.status, 2) << detect.out << detect.err;
  EXPECT_TRUE(contains(detect.err, "node 'conv_q' (QLinearConv")) << detect.err;
  EXPECT_TRUE(contains(detect.err, "yolo-edge quantize --model FP32.onnx")) << detect.err;
  fs::remove(path);
}

TEST_P(InspectFixture, LintFlagsDynamicInt8AndPassesFp32) {
  YOLO_REQUIRE_FIXTURES();
  const bool dynamic = GetParam().quantization == "dynamic";
  const auto r = run_cli({"inspect", "--lint", model().string()});
  EXPECT_EQ(r.status, dynamic ? 1 : 0) << r.out << r.err;
  if (dynamic) {
    EXPECT_TRUE(contains(r.out, "1 finding(s)")) << r.out;
    EXPECT_TRUE(contains(r.out, "dynamic-quantization  node '")) << r.out;
    EXPECT_TRUE(contains(r.out, "Fix: make a static INT8 model from this file")) << r.out;
  } else {
    EXPECT_TRUE(contains(r.out, "no findings (checked score-levels, bad-scale")) << r.out;
  }
  const auto json = run_cli({"inspect", "--lint", "--json", model().string()});
  EXPECT_EQ(json.status, r.status);
  const auto report = nlohmann::json::parse(json.out);
  EXPECT_EQ(report.at("checks").size(), 8U);
  EXPECT_EQ(report.at("findings").size(), dynamic ? 1U : 0U);
  if (dynamic) {
    // The fix is the command that quantizes this very file.
    const std::string fix = report.at("findings")[0].at("fix");
    EXPECT_TRUE(contains(fix, "`yolo-edge quantize --model " + model().string() + " --calib SRC"))
        << fix;
  }
}

// One scale for box pixels and scores: status 1, the finding in text and JSON, and detect and
// bench warn of it when they load the model.
TEST(Inspect, LintFindsScoresRoundedAwayAndDetectAndBenchWarn) {
  Head h = head();
  finish(h, true, 640.0F / 255.0F);
  const auto path = h.b.save("inspect_lint_shared_scale.onnx");
  const auto text = run_cli({"inspect", "--lint", path.string()});
  EXPECT_EQ(text.status, 1) << text.out << text.err;
  EXPECT_TRUE(contains(text.out, "score-levels  node 'cat_QuantizeLinear'")) << text.out;
  EXPECT_TRUE(contains(text.out, "never detects anything")) << text.out;
  EXPECT_TRUE(contains(text.out, "Fix: re-export with the detection output kept FP32")) << text.out;
  const auto json = run_cli({"inspect", "--lint", "--json", path.string()});
  EXPECT_EQ(json.status, 1) << json.err;
  const auto finding = nlohmann::json::parse(json.out).at("findings").at(0);
  EXPECT_EQ(finding.at("check"), "score-levels");
  EXPECT_EQ(finding.at("node"), "cat_QuantizeLinear");
  EXPECT_EQ(finding.at("details").at("levels"), 1);
  EXPECT_EQ(finding.at("details").at("best_score"), 0.0);
  const auto bench = run_cli({"bench", "--model", path.string(), "--runs", "1", "-t", "1"});
  EXPECT_EQ(bench.status, 0) << bench.err;
  EXPECT_TRUE(contains(bench.err, "warning: " + path.string() + ": score-levels: ")) << bench.err;
  EXPECT_TRUE(contains(bench.err, "details: yolo-edge inspect --lint " + path.string()))
      << bench.err;
  if (have_fixtures()) {
    const auto detect = run_cli({"detect", "--model", path.string(), "--image",
                                 (fixtures_dir() / "images" / "dog.jpg").string()});
    EXPECT_EQ(detect.status, 0) << detect.err;
    EXPECT_TRUE(contains(detect.err, "warning: " + path.string() + ": score-levels: "))
        << detect.err;
  }
  fs::remove(path);
}

// A file the engine would refuse at load (an op it has no operator for) is a problem of inspect's
// report and a finding of its lint, both status 1, before anyone deploys it.
TEST(Inspect, AnOpTheEngineDoesNotRunIsAProblemAndAFinding) {
  ModelBuilder b;
  b.input("images", {1, 3, 8, 8});
  ModelBuilder::attr(b.node("Hardmax", {"images"}, {"out"}, "hard_max"), "axis", std::int64_t{1});
  b.output("out");
  const auto path = b.save("inspect_unsupported.onnx");
  const auto r = run_cli({"inspect", path.string()});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "the engine refuses it at load: " + path.string() +
                                  ": op 'Hardmax' (opset 17) at node 'hard_max' is not supported"))
      << r.out;
  const auto json = nlohmann::json::parse(run_cli({"inspect", "--json", path.string()}).out);
  ASSERT_EQ(json["problems"].size(), 1U) << json["problems"];
  const auto lint = run_cli({"inspect", "--lint", path.string()});
  EXPECT_EQ(lint.status, 1) << lint.out << lint.err;
  EXPECT_TRUE(contains(lint.out, "unsupported")) << lint.out;
  const auto lint_json =
      nlohmann::json::parse(run_cli({"inspect", "--lint", "--json", path.string()}).out);
  fs::remove(path);
  ASSERT_EQ(lint_json["findings"].size(), 1U) << lint_json;
  EXPECT_EQ(lint_json["findings"][0]["check"], "unsupported");
  EXPECT_TRUE(contains(lint_json["checks"].dump(), "unsupported"));
}

TEST(Inspect, LintOfAFileThatCannotLoadIsStatus2) {
  TempFolder dir;
  const auto garbage = dir.path() / "garbage.onnx";
  write_bytes(garbage, "not a model at all");
  const auto r = run_cli({"inspect", "--lint", garbage.string()});
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.err, garbage.string())) << r.err;
  ModelBuilder b;
  b.input("images", {1, 3, 8, 8});
  b.node("Relu", {"missing"}, {"out"});
  b.output("out");
  const auto broken = b.save("inspect_lint_broken.onnx");
  const auto br = run_cli({"inspect", "--lint", broken.string()});
  EXPECT_EQ(br.status, 2) << br.out;
  EXPECT_TRUE(contains(br.err, "missing")) << br.err;
  fs::remove(broken);
}

}  // namespace
}  // namespace yolo::test
