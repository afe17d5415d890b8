#include "runtime/quantizer.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "runtime/engine.h"
#include "runtime/model_info.h"
#include "runtime/quantize/graph_index.h"
#include "runtime/quantize/model_file.h"
#include "runtime/quantize/opset13.h"
#include "runtime/quantize/qdq_rewrite.h"
#include "runtime/quantize/regions.h"
#include "runtime/quantize/stem.h"
#include "tests/runtime/test_model_builder.h"

namespace yolo::runtime {
namespace {

using test::ModelBuilder;
namespace fs = std::filesystem;

// x -> Conv c1 (3->4, 3x3, bias) -> Sigmoid -> Mul (SiLU) -> Conv c2 (4->4, 1x1) ->
// Concat(silu, c2) -> Conv c3 (8->2, 1x1, bias) -> out
ModelBuilder tiny_model(int opset = 17) {
  ModelBuilder b(opset);
  b.input("x", {1, 3, 8, 8});
  b.random("w1", {4, 3, 3, 3}, 1).random("b1", {4}, 2);
  b.random("w2", {4, 4, 1, 1}, 3);
  b.random("w3", {2, 8, 1, 1}, 4).random("b3", {2}, 5);
  auto& c1 = b.node("Conv", {"x", "w1", "b1"}, {"y1"}, "c1");
  ModelBuilder::attr(c1, "pads", std::vector<std::int64_t>{1, 1, 1, 1});
  b.node("Sigmoid", {"y1"}, {"s1"}, "sig1");
  b.node("Mul", {"y1", "s1"}, {"m1"}, "mul1");
  b.node("Conv", {"m1", "w2"}, {"y2"}, "c2");
  auto& cat = b.node("Concat", {"m1", "y2"}, {"cat"}, "cat");
  ModelBuilder::attr(cat, "axis", std::int64_t{1});
  b.node("Conv", {"cat", "w3", "b3"}, {"out"}, "c3");
  b.output("out");
  return b;
}

std::map<std::string, ActivationRange> tiny_ranges() {
  return {{"y1", {-3.0F, 4.0F}}, {"s1", {0.0F, 1.0F}},   {"m1", {-0.28F, 4.0F}},
          {"y2", {-2.0F, 2.0F}}, {"cat", {-2.0F, 4.0F}}, {"out", {-5.0F, 5.0F}}};
}

const onnx::TensorProto* initializer(const onnx::ModelProto& m, const std::string& name) {
  for (const auto& t : m.graph().initializer()) {
    if (t.name() == name) return &t;
  }
  return nullptr;
}

template <typename T>
std::vector<T> values(const onnx::TensorProto& t) {
  std::vector<T> v(t.raw_data().size() / sizeof(T));
  std::memcpy(v.data(), t.raw_data().data(), t.raw_data().size());
  return v;
}

std::vector<float> floats(const onnx::TensorProto& t) {
  if (!t.raw_data().empty()) return values<float>(t);
  return {t.float_data().begin(), t.float_data().end()};
}

const onnx::NodeProto* node_named(const onnx::ModelProto& m, const std::string& name) {
  for (const auto& n : m.graph().node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

const onnx::NodeProto* producer(const onnx::ModelProto& m, const std::string& tensor) {
  for (const auto& n : m.graph().node()) {
    for (const auto& o : n.output()) {
      if (o == tensor) return &n;
    }
  }
  return nullptr;
}

// The QuantizeLinear of activation `t`: the one reading t (graph input and outputs) or the one
// feeding the DequantizeLinear that writes t (every other tensor).
const onnx::NodeProto* quantize_of(const onnx::ModelProto& m, const std::string& t) {
  for (const auto& n : m.graph().node()) {
    if (n.op_type() == "QuantizeLinear" && n.input(0) == t) return &n;
  }
  const onnx::NodeProto* dq = producer(m, t);
  if (!dq || dq->op_type() != "DequantizeLinear") return nullptr;
  return producer(m, dq->input(0));
}

float scale_of(const onnx::ModelProto& m, const std::string& t) {
  return values<float>(*initializer(m, quantize_of(m, t)->input(1))).at(0);
}

std::int8_t zero_point_of(const onnx::ModelProto& m, const std::string& t) {
  return values<std::int8_t>(*initializer(m, quantize_of(m, t)->input(2))).at(0);
}

std::size_t count_op(const onnx::ModelProto& m, const std::string& op) {
  return static_cast<std::size_t>(std::count_if(m.graph().node().begin(), m.graph().node().end(),
                                                [&](const auto& n) { return n.op_type() == op; }));
}

// A fresh empty folder under the temp dir, removed at the end of the test.
class TempFolder {
 public:
  explicit TempFolder(const std::string& tag)
      : path_(fs::temp_directory_path() /
              ("yolo_quant_" + tag + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempFolder() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, ec);
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(path_)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  fs::path path_;
};

// Frames of uniform noise in [0, 1], as many as asked.
FrameProvider noise_frames(int count, int* calls = nullptr) {
  auto rng = std::make_shared<std::mt19937>(7);
  auto left = std::make_shared<int>(count);
  return [=](InputLayout, int, int, std::span<float> dst) {
    if (calls) ++*calls;
    if ((*left)-- <= 0) return false;
    std::uniform_real_distribution<float> dist(0.0F, 1.0F);
    for (auto& v : dst) v = dist(*rng);
    return true;
  };
}

TEST(QuantizedTensors, EveryInputAndOutputOfTheQuantizableNodes) {
  ModelBuilder b = tiny_model();
  const auto all = quantized_tensors(b.proto().graph(), {});
  EXPECT_EQ(all, (std::vector<std::string>{"x", "y1", "s1", "m1", "y2", "cat", "out"}));
  const auto kept = quantized_tensors(b.proto().graph(), {"c3"});
  EXPECT_EQ(std::count(kept.begin(), kept.end(), "out"), 0);
  EXPECT_EQ(std::count(kept.begin(), kept.end(), "cat"), 1);  // still the concat's output
}

TEST(RefineRanges, ASiluInputStartsWhereTheSiluOutputStopsChanging) {
  ModelBuilder b = tiny_model();
  auto ranges = tiny_ranges();
  ranges["y1"] = {-30.0F, 4.0F};
  ranges["s1"] = {0.0F, 0.97F};
  const auto why = refine_ranges(b.proto().graph(), ranges);
  const float step = activation_quant(ranges.at("m1")).scale;
  const float lo = ranges.at("y1").lo;
  // Below lo every input rounds to the int8 SiLU output lo gives; lo itself is as high as that
  // allows (one step further up, SiLU is more than half a step from 0).
  auto silu = [](float x) { return x / (1.0F + std::exp(-x)); };
  EXPECT_LE(std::abs(silu(lo)), step / 2 * 1.0001F);
  EXPECT_GT(std::abs(silu(lo + 0.01F)), step / 2);
  EXPECT_LT(lo, -4.0F);
  EXPECT_FLOAT_EQ(ranges.at("y1").hi, 4.0F);
  EXPECT_FLOAT_EQ(ranges.at("s1").lo, 0.0F);
  EXPECT_FLOAT_EQ(ranges.at("s1").hi, 1.0F);
  EXPECT_FLOAT_EQ(ranges.at("y2").lo, -2.0F);
  EXPECT_EQ(why.size(), 2U);
  EXPECT_NE(why.at("y1").find("SiLU"), std::string::npos);
}

TEST(RefineRanges, ATensorReadBeyondTheSiluKeepsItsRange) {
  ModelBuilder b = tiny_model();
  b.output("y1");
  auto ranges = tiny_ranges();
  ranges["y1"] = {-30.0F, 4.0F};
  refine_ranges(b.proto().graph(), ranges);
  EXPECT_FLOAT_EQ(ranges.at("y1").lo, -30.0F);
}

TEST(BuildQdq, InsertsOnePairPerActivationAndRewiresEveryConsumer) {
  ModelBuilder b = tiny_model();
  const onnx::ModelProto q = build_qdq_model(b.proto(), tiny_ranges(), {});
  EXPECT_EQ(count_op(q, "QuantizeLinear"), 7U);
  // 7 activations, 3 weights, 2 biases.
  EXPECT_EQ(count_op(q, "DequantizeLinear"), 12U);
  // SiLU: the conv output reaches Sigmoid and Mul through its one DequantizeLinear.
  // Inside the graph the DequantizeLinear takes over the tensor's name and the producer writes
  // qdq:f<k>: y1 is tensor 1 of {x, y1, s1, m1, y2, cat, out}.
  EXPECT_EQ(node_named(q, "c1")->output(0), "qdq:f1");
  EXPECT_EQ(producer(q, "y1")->op_type(), "DequantizeLinear");
  EXPECT_EQ(producer(q, "qdq:q1")->op_type(), "QuantizeLinear");
  EXPECT_EQ(producer(q, "qdq:q1")->input(0), "qdq:f1");
  EXPECT_EQ(node_named(q, "sig1")->input(0), "y1");
  EXPECT_EQ(node_named(q, "mul1")->input(0), "y1");
  EXPECT_EQ(node_named(q, "mul1")->input(1), "s1");
  EXPECT_EQ(node_named(q, "cat")->input(0), "m1");
  // The graph input keeps its name: consumers read the DequantizeLinear's qdq:d0.
  EXPECT_EQ(node_named(q, "c1")->input(0), "qdq:d0");
  EXPECT_EQ(producer(q, "qdq:d0")->op_type(), "DequantizeLinear");
  // The graph output keeps its name and float value; its Q reads it.
  EXPECT_EQ(q.graph().output(0).name(), "out");
  EXPECT_EQ(producer(q, "out")->name(), "c3");
  EXPECT_NE(quantize_of(q, "out"), nullptr);
  // Every node's inputs are produced before it (topological order).
  std::set<std::string> known = {"x"};
  for (const auto& t : q.graph().initializer()) known.insert(t.name());
  for (const auto& n : q.graph().node()) {
    for (const auto& in : n.input()) EXPECT_TRUE(known.count(in)) << n.op_type() << " " << in;
    for (const auto& out : n.output()) known.insert(out);
  }
  // No float weight is left behind.
  EXPECT_EQ(initializer(q, "w1"), nullptr);
  EXPECT_EQ(initializer(q, "b1"), nullptr);
}

TEST(BuildQdq, DerivedNamesAvoidTheModelsOwn) {
  ModelBuilder b;
  b.input("x", {1, 3, 4, 4});
  b.random("w", {2, 3, 1, 1}, 1);
  b.node("Conv", {"x", "w"}, {"qdq:f1"}, "conv");
  b.node("Sigmoid", {"qdq:f1"}, {"out"}, "sig");
  b.output("out");
  const onnx::ModelProto q =
      build_qdq_model(b.proto(), {{"qdq:f1", {-1.0F, 1.0F}}, {"out", {0.0F, 1.0F}}}, {});
  EXPECT_EQ(node_named(q, "conv")->output(0), "_qdq:f1");
  EXPECT_EQ(node_named(q, "sig")->input(0), "qdq:f1");
  EXPECT_EQ(producer(q, "qdq:f1")->op_type(), "DequantizeLinear");
}

TEST(BuildQdq, InputHasTheFixedImageScale) {
  ModelBuilder b = tiny_model();
  const onnx::ModelProto q = build_qdq_model(b.proto(), tiny_ranges(), {});
  EXPECT_FLOAT_EQ(scale_of(q, "x"), 1.0F / 255.0F);
  EXPECT_EQ(zero_point_of(q, "x"), -128);
  EXPECT_EQ(initializer(q, quantize_of(q, "x")->input(2))->data_type(), onnx::TensorProto::INT8);
}

TEST(BuildQdq, ConcatInputsAndOutputShareOneScale) {
  ModelBuilder b = tiny_model();
  const onnx::ModelProto q = build_qdq_model(b.proto(), tiny_ranges(), {});
  const float scale = scale_of(q, "cat");
  const auto zp = zero_point_of(q, "cat");
  // The union of [-0.28, 4], [-2, 2] and [-2, 4].
  const ActivationQuant expected = activation_quant({-2.0F, 4.0F});
  EXPECT_FLOAT_EQ(scale, expected.scale);
  EXPECT_EQ(zp, expected.zero_point);
  for (const char* t : {"m1", "y2"}) {
    EXPECT_FLOAT_EQ(scale_of(q, t), scale) << t;
    EXPECT_EQ(zero_point_of(q, t), zp) << t;
  }
  // The conv output feeding the SiLU has its own scale.
  EXPECT_FLOAT_EQ(scale_of(q, "y1"), 7.0F / 255.0F);
}

TEST(BuildQdq, WeightsArePerChannelSymmetricInt8WithinHalfAStep) {
  ModelBuilder b = tiny_model();
  const std::vector<float> w = floats(*initializer(b.proto(), "w1"));
  const onnx::ModelProto q = build_qdq_model(b.proto(), tiny_ranges(), {});
  // The conv reads its weights through a per-axis DequantizeLinear of int8 values.
  const onnx::NodeProto* dq = producer(q, node_named(q, "c1")->input(1));
  ASSERT_NE(dq, nullptr);
  EXPECT_EQ(dq->op_type(), "DequantizeLinear");
  EXPECT_EQ(dq->input_size(), 2);  // no zero point: 0 by default
  ASSERT_EQ(dq->attribute_size(), 1);
  EXPECT_EQ(dq->attribute(0).name(), "axis");
  EXPECT_EQ(dq->attribute(0).i(), 0);
  const auto* wq = initializer(q, dq->input(0));
  ASSERT_NE(wq, nullptr);
  EXPECT_EQ(wq->data_type(), onnx::TensorProto::INT8);
  EXPECT_EQ(std::vector<std::int64_t>(wq->dims().begin(), wq->dims().end()),
            (std::vector<std::int64_t>{4, 3, 3, 3}));
  const auto qv = values<std::int8_t>(*wq);
  const auto scales = values<float>(*initializer(q, dq->input(1)));
  ASSERT_EQ(scales.size(), 4U);
  for (std::size_t c = 0; c < 4; ++c) {
    float amax = 0;
    for (std::size_t i = 0; i < 27; ++i) amax = std::max(amax, std::abs(w[c * 27 + i]));
    EXPECT_FLOAT_EQ(scales[c], amax / 127.0F);
    for (std::size_t i = 0; i < 27; ++i) {
      EXPECT_LE(std::abs(qv[c * 27 + i] * scales[c] - w[c * 27 + i]), scales[c] / 2 + 1e-7F);
    }
  }
}

TEST(BuildQdq, BiasIsInt32AtInputScaleTimesWeightScale) {
  ModelBuilder b = tiny_model();
  const std::vector<float> bias = floats(*initializer(b.proto(), "b3"));
  const onnx::ModelProto q = build_qdq_model(b.proto(), tiny_ranges(), {});
  const onnx::NodeProto* bdq = producer(q, node_named(q, "c3")->input(2));
  ASSERT_NE(bdq, nullptr);
  EXPECT_EQ(bdq->op_type(), "DequantizeLinear");
  EXPECT_EQ(bdq->input_size(), 2);
  const auto* bq = initializer(q, bdq->input(0));
  ASSERT_NE(bq, nullptr);
  EXPECT_EQ(bq->data_type(), onnx::TensorProto::INT32);
  const auto qv = values<std::int32_t>(*bq);
  const auto scales = values<float>(*initializer(q, bdq->input(1)));
  const auto wscales =
      values<float>(*initializer(q, producer(q, node_named(q, "c3")->input(1))->input(1)));
  const float sx = scale_of(q, "cat");
  for (std::size_t c = 0; c < 2; ++c) {
    EXPECT_FLOAT_EQ(scales[c], sx * wscales[c]);
    EXPECT_LE(std::abs(qv[c] * scales[c] - bias[c]), scales[c] / 2 + 1e-7F);
  }
  EXPECT_EQ(initializer(q, "b3"), nullptr);
}

TEST(BuildQdq, KeptNodesStayFloat) {
  ModelBuilder b = tiny_model();
  const onnx::ModelProto q = build_qdq_model(b.proto(), tiny_ranges(), {"c3"});
  EXPECT_NE(initializer(q, "w3"), nullptr);
  EXPECT_EQ(count_op(q, "DequantizeLinear"), 9U);  // 6 activations, w1, w2, b1
  EXPECT_EQ(node_named(q, "c3")->input(1), "w3");
  EXPECT_EQ(node_named(q, "c3")->input(2), "b3");
  // Its input is still the concat's dequantized output: the border of the FP32 island.
  EXPECT_EQ(node_named(q, "c3")->input(0), "cat");
  EXPECT_EQ(producer(q, "cat")->op_type(), "DequantizeLinear");
  EXPECT_EQ(quantize_of(q, "out"), nullptr);
}

TEST(BuildQdq, MissingRangeAndLowOpsetAreRefused) {
  ModelBuilder b = tiny_model();
  auto ranges = tiny_ranges();
  ranges.erase("s1");
  EXPECT_THROW(build_qdq_model(b.proto(), ranges, {}), QuantizeError);
  ModelBuilder old = tiny_model(12);
  EXPECT_THROW(build_qdq_model(old.proto(), tiny_ranges(), {}), QuantizeError);
}

TEST(BuildQdq, RunsCloseToTheFp32ModelInOurEngine) {
  ModelBuilder b = tiny_model();
  const fs::path fp32_path = b.save("quant_tiny_fp32.onnx");
  // Ranges from the engine itself, through the whole quantize_model path.
  TempFolder folder("engine");
  const fs::path out = folder.path() / "tiny.int8.onnx";
  QuantizeOptions options;
  options.method = CalibrationMethod::kMinMax;
  options.keep = KeepFp32Mode::kNone;
  quantize_model(fp32_path, out, options, noise_frames(8));

  auto fp32 = Engine::load(fp32_path, {});
  auto int8 = Engine::load(out, {});
  ASSERT_EQ(fp32->input_layout(), int8->input_layout());
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> pixel(0, 255);
  const std::size_t n = 3 * 8 * 8;
  for (std::size_t i = 0; i < n; ++i) {
    // Pixels k/255: the input quantization is exact.
    const float v = static_cast<float>(pixel(rng)) / 255.0F;
    static_cast<float*>(fp32->input_data())[i] = v;
    static_cast<float*>(int8->input_data())[i] = v;
  }
  fp32->run();
  int8->run();
  const auto a = fp32->output(0).values<float>();
  const auto q = int8->output(0).values<float>();
  double signal = 0, noise = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    signal += static_cast<double>(a[i]) * a[i];
    noise += (static_cast<double>(a[i]) - q[i]) * (static_cast<double>(a[i]) - q[i]);
  }
  EXPECT_GT(10 * std::log10(signal / noise), 25.0) << "SQNR of the int8 model's output";
  fs::remove(fp32_path);
}

TEST(QuantizeModel, WritesAQdqFileWithMetadataAndAReport) {
  ModelBuilder b = tiny_model();
  auto* prop = b.proto().add_metadata_props();
  prop->set_key("imgsz");
  prop->set_value("[8, 8]");
  const fs::path fp32_path = b.save("quant_tiny_meta.onnx");
  TempFolder folder("write");
  const fs::path out = folder.path() / "tiny.int8.onnx";
  std::vector<std::string> log;
  QuantizeOptions options;
  options.frames = 5;
  options.log = [&](const std::string& line) { log.push_back(line); };
  const QuantizeResult result = quantize_model(fp32_path, out, options, noise_frames(100));
  EXPECT_EQ(result.frames, 5);
  EXPECT_EQ(folder.files(), std::vector<std::string>{"tiny.int8.onnx"});  // no temp files left

  const OnnxModel saved = OnnxModel::load(out);
  const ModelInfo info = inspect_model(saved);
  EXPECT_EQ(info.quantization, QuantizationKind::kStaticQdq);
  EXPECT_GE(info.opsets.at(""), 13);
  EXPECT_EQ(info.metadata.raw.at("imgsz"), "[8, 8]");
  const auto tag = nlohmann::json::parse(info.metadata.raw.at("yolo_edge_quantization"));
  EXPECT_EQ(tag.at("frames"), 5);
  EXPECT_EQ(tag.at("method"), "minmax");
  EXPECT_EQ(result.int8_bytes, fs::file_size(out));
  EXPECT_EQ(result.report.at("size").at("int8_bytes"), result.int8_bytes);
  EXPECT_EQ(result.report.at("frames"), 5);
  EXPECT_FALSE(result.report.at("activations").empty());
  EXPECT_GE(result.report.at("weights").size(), 2U);
  // auto: c3 is the last conv; its sensitivity was measured and reported.
  ASSERT_EQ(result.report.at("sensitivity").size(), 1U);
  EXPECT_EQ(result.report.at("sensitivity")[0].at("node"), "c3");
  // The sigmoid output's range is its exact one, and the report says why.
  bool sigmoid_reported = false;
  for (const auto& a : result.report.at("activations")) {
    if (a.at("tensor") != "s1") continue;
    sigmoid_reported = true;
    EXPECT_EQ(a.at("range")[0], 0.0F);
    EXPECT_EQ(a.at("range")[1], 1.0F);
    EXPECT_TRUE(a.contains("refined"));
  }
  EXPECT_TRUE(sigmoid_reported);
  const double mac_share = result.report.at("fp32_conv_mac_share");
  EXPECT_GE(mac_share, 0.0);
  EXPECT_LE(mac_share, 1.0);
  EXPECT_TRUE(result.report.at("noise").contains("final_conv_sqnr_db_all_int8"));
  for (const char* phase : {"load_s", "calibrate_s", "sensitivity_s", "total_s"}) {
    EXPECT_TRUE(result.report.at("time").contains(phase)) << phase;
  }
  EXPECT_NE(std::find(log.begin(), log.end(), "calibrated 5 frame(s) in total"), log.end());
  fs::remove(fp32_path);
}

TEST(QuantizeModel, RaisesOpset12SplitToAnInput) {
  ModelBuilder b(12);
  b.input("x", {1, 3, 4, 4});
  b.random("w", {4, 3, 1, 1}, 1);
  b.node("Conv", {"x", "w"}, {"y"}, "conv");
  auto& split = b.node("Split", {"y"}, {"a", "b"}, "split");
  ModelBuilder::attr(split, "axis", std::int64_t{1});
  ModelBuilder::attr(split, "split", std::vector<std::int64_t>{1, 3});
  b.node("Concat", {"b", "a"}, {"out"}, "cat");
  ModelBuilder::attr(*b.proto().mutable_graph()->mutable_node(2), "axis", std::int64_t{1});
  b.output("out");
  const fs::path path = b.save("quant_split12.onnx");
  TempFolder folder("split");
  QuantizeOptions options;
  options.keep = KeepFp32Mode::kNone;
  quantize_model(path, folder.path() / "s.onnx", options, noise_frames(2));
  const onnx::ModelProto q = OnnxModel::load(folder.path() / "s.onnx").proto();
  const onnx::NodeProto* s = node_named(q, "split");
  ASSERT_EQ(s->input_size(), 2);
  EXPECT_EQ(s->input(1), "split_split");
  for (const auto& a : s->attribute()) EXPECT_NE(a.name(), "split");
  // Split input and outputs share one scale.
  EXPECT_EQ(scale_of(q, "a"), scale_of(q, "y"));
  EXPECT_EQ(scale_of(q, "b"), scale_of(q, "y"));
  fs::remove(path);
}

TEST(RaiseToOpset13, RefusesASoftmaxOverANonLastAxis) {
  ModelBuilder b(12);
  b.input("x", {1, 4, 4, 4});
  auto& sm = b.node("Softmax", {"x"}, {"out"}, "sm");
  ModelBuilder::attr(sm, "axis", std::int64_t{1});
  b.output("out");
  try {
    raise_to_opset13(b.proto(), {{"x", 4}});
    FAIL() << "raised a Softmax over axis 1 of 4";
  } catch (const QuantizeError& e) {
    EXPECT_NE(std::string(e.what()).find("sm"), std::string::npos);
  }
  ModelBuilder last(12);
  last.input("x", {1, 4});
  last.node("Softmax", {"x"}, {"out"}, "sm");  // default axis 1 of rank 2: the last one
  last.output("out");
  raise_to_opset13(last.proto(), {{"x", 2}});
  EXPECT_EQ(last.proto().opset_import(0).version(), 13);
}

TEST(FindRegions, TheTailFollowsTheLastConvOfEachBranch) {
  ModelBuilder b;
  b.input("x", {1, 3, 8, 8});
  b.random("w1", {4, 3, 1, 1}, 1).random("wb", {16, 4, 1, 1}, 2).random("wc", {2, 4, 1, 1}, 3);
  b.random("dfl", {1, 16, 1, 1}, 4);
  b.node("Conv", {"x", "w1"}, {"f"}, "stem");
  b.node("Conv", {"f", "wb"}, {"box"}, "box_conv");
  b.node("Conv", {"f", "wc"}, {"cls"}, "cls_conv");
  b.node("Softmax", {"box"}, {"p"}, "dfl_softmax");
  b.node("Conv", {"p", "dfl"}, {"dist"}, "dfl_conv");
  b.node("Sigmoid", {"cls"}, {"score"}, "score");
  auto& cat = b.node("Concat", {"dist", "score"}, {"out"}, "out_concat");
  ModelBuilder::attr(cat, "axis", std::int64_t{1});
  b.output("out");
  const GraphRegions r = find_regions(b.proto().graph());
  EXPECT_EQ(r.tail, (std::set<std::string>{"dfl_softmax", "dfl_conv", "score", "out_concat"}));
  EXPECT_EQ(r.final_convs, (std::vector<std::string>{"box_conv", "cls_conv"}));
  // The DFL conv is not quantized even with nothing kept: it reads a Softmax, so its input is
  // not quantized (its output is, for the concat that reads it).
  const auto t = quantized_tensors(b.proto().graph(), {});
  EXPECT_EQ(std::count(t.begin(), t.end(), "p"), 0);
  EXPECT_EQ(std::count(t.begin(), t.end(), "dist"), 1);
}

TEST(QuantizeModel, NoFramesIsAnErrorAndWritesNothing) {
  const fs::path path = tiny_model().save("quant_noframes.onnx");
  TempFolder folder("noframes");
  try {
    quantize_model(path, folder.path() / "x.onnx", {}, noise_frames(0));
    FAIL() << "quantized without frames";
  } catch (const QuantizeError& e) {
    EXPECT_NE(std::string(e.what()).find("no frames"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(folder.files().empty());
  fs::remove(path);
}

TEST(QuantizeModel, AlreadyQuantizedModelsAreRefused) {
  ModelBuilder b = tiny_model();
  const onnx::ModelProto q = build_qdq_model(b.proto(), tiny_ranges(), {});
  TempFolder folder("requant");
  const fs::path qpath = folder.path() / "q.onnx";
  write_model_atomically(q, qpath);
  int calls = 0;
  try {
    quantize_model(qpath, folder.path() / "again.onnx", {}, noise_frames(3, &calls));
    FAIL() << "re-quantized a QDQ model";
  } catch (const QuantizeError& e) {
    EXPECT_NE(std::string(e.what()).find("already quantized (static QDQ)"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(calls, 0);
}

TEST(QuantizeModel, NonDetectionModelsAreRefused) {
  ModelBuilder b = tiny_model();
  auto* prop = b.proto().add_metadata_props();
  prop->set_key("task");
  prop->set_value("segment");
  const fs::path path = b.save("quant_segment.onnx");
  TempFolder folder("segment");
  try {
    quantize_model(path, folder.path() / "x.onnx", {}, noise_frames(3));
    FAIL() << "quantized a segmentation model";
  } catch (const QuantizeError& e) {
    EXPECT_NE(std::string(e.what()).find("'segment'"), std::string::npos) << e.what();
  }
  // An output no decoder reads: the caller's check refuses it before any frame is used.
  const fs::path plain = tiny_model().save("quant_badoutput.onnx");
  QuantizeOptions options;
  options.check_output = [](const Shape& shape, const ModelMetadata&) {
    if (shape.size() != 3) throw QuantizeError("output rank " + std::to_string(shape.size()));
  };
  int calls = 0;
  EXPECT_THROW(quantize_model(plain, folder.path() / "x.onnx", options, noise_frames(3, &calls)),
               QuantizeError);
  EXPECT_EQ(calls, 0);
  EXPECT_TRUE(folder.files().empty());
  fs::remove(path);
  fs::remove(plain);
}

TEST(QuantizeModel, UnwritableOutputIsRefusedBeforeCalibrating) {
  const fs::path path = tiny_model().save("quant_unwritable.onnx");
  int calls = 0;
  try {
    quantize_model(path, "/nonexistent-folder/x.onnx", {}, noise_frames(3, &calls));
    FAIL() << "accepted a missing folder";
  } catch (const QuantizeError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-folder"), std::string::npos);
  }
  EXPECT_EQ(calls, 0);
  if (::geteuid() != 0) {  // root writes anywhere
    TempFolder folder("readonly");
    fs::permissions(folder.path(), fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_THROW(check_writable(folder.path() / "x.onnx"), QuantizeError);
  }
  TempFolder folder("isdir");
  EXPECT_THROW(check_writable(folder.path()), QuantizeError);
  fs::remove(path);
}

TEST(QuantizeModel, UnknownKeepNodeIsAnError) {
  const fs::path path = tiny_model().save("quant_keep.onnx");
  TempFolder folder("keep");
  QuantizeOptions options;
  options.keep = KeepFp32Mode::kList;
  options.keep_nodes = {"c3", "nope"};
  try {
    quantize_model(path, folder.path() / "x.onnx", options, noise_frames(3));
    FAIL() << "accepted an unknown node";
  } catch (const QuantizeError& e) {
    EXPECT_NE(std::string(e.what()).find("nope"), std::string::npos);
  }
  options.keep_nodes = {"c3"};
  const QuantizeResult r = quantize_model(path, folder.path() / "x.onnx", options, noise_frames(3));
  EXPECT_EQ(r.kept_fp32, std::vector<std::string>{"c3"});
  fs::remove(path);
}

TEST(WriteModelAtomically, ReplacesTheFileAndLeavesNoTemporaries) {
  TempFolder folder("atomic");
  const fs::path out = folder.path() / "m.onnx";
  std::ofstream(out) << "old";
  ModelBuilder b = tiny_model();
  write_model_atomically(b.proto(), out);
  EXPECT_EQ(folder.files(), std::vector<std::string>{"m.onnx"});
  EXPECT_NO_THROW(OnnxModel::load(out));
  EXPECT_THROW(write_model_atomically(b.proto(), folder.path() / "missing" / "m.onnx"),
               QuantizeError);
  EXPECT_EQ(folder.files(), std::vector<std::string>{"m.onnx"});
}

// auto's stem choice on noise curves (prefix_noise[k]: the noise with the first k convs FP32, as a
// share of the noise with none): it must not move when each measurement moves by up to a quarter
// of the margin either way, so that two machines disagreeing by up to half of it (0.5 dB) make the
// same choice. On a plateau of near-equal prefixes, where the former rule (the shortest within 10%
// of the least) moved between 3 and 4 convs, it keeps the shortest.
TEST(Quantizer, StemChoiceDoesNotMoveWithMeasurementNoise) {
  struct Curve {
    std::vector<double> noise;
    std::size_t chosen;
  };
  const std::vector<Curve> curves = {
      {{1.0, 1.147, 1.114, 0.521, 0.674, 0.934, 0.556}, 3},  // yolo11n on the 6 photos (x86)
      {{1.0, 0.93, 0.72, 0.47, 0.45, 0.44}, 3},              // a plateau after 3 convs
      {{1.0, 0.97, 0.95, 0.93}, 0},                          // nothing gains the margin
  };
  const double wobble = std::pow(10.0, kDecisionMarginDb / 4.0 / 10.0);
  for (const auto& c : curves) {
    EXPECT_EQ(choose_stem_prefix(c.noise), c.chosen);
    // Every combination of -, 0, + on every measurement.
    std::size_t combinations = 1;
    for (std::size_t i = 0; i < c.noise.size(); ++i) combinations *= 3;
    for (std::size_t m = 0; m < combinations; ++m) {
      std::vector<double> moved = c.noise;
      std::size_t digits = m;
      for (auto& v : moved) {
        v *= digits % 3 == 0 ? 1.0 : digits % 3 == 1 ? wobble : 1.0 / wobble;
        digits /= 3;
      }
      ASSERT_EQ(choose_stem_prefix(moved), c.chosen) << "combination " << m;
    }
  }
}

}  // namespace
}  // namespace yolo::runtime
