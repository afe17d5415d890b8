// SPDX-License-Identifier: Apache-2.0
// The INT8 lowering of QDQ models on small graphs built here: each model runs once with precision
// int8 (the int8 steps) and once with precision fp32 (the Q/DQ pairs executed as fake-quant), and
// the two must agree within about one quantization step of the output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <utility>

#include "runtime/engine/engine.h"
#include "runtime/int8/qdq_lowering.h"
#include "runtime/int8/qoperator.h"
#include "runtime/model/model_error.h"
#include "tests/runtime/int8/int8_runs.h"
#include "tests/runtime/load_error.h"
#include "tests/runtime/test_model_builder.h"

namespace yolo::runtime {
namespace {

using test::ModelBuilder;

// A QDQ model under construction: Q/DQ pairs, per-channel int8 conv weights.
class QdqModel {
 public:
  explicit QdqModel(int opset = 17) : b(opset) {}

  ModelBuilder b;

  // Q then DQ of float `x`; int8 (or uint8 with `u8`); returns the DQ output's name.
  std::string qdq(const std::string& x, float scale, int zero, bool u8 = false) {
    const std::string p = x + "_q" + std::to_string(count_++);
    b.floats(p + "_scale", {}, {scale});
    if (u8) {
      b.raw<std::uint8_t>(p + "_zero", onnx::TensorProto::UINT8, {},
                          {static_cast<std::uint8_t>(zero)});
    } else {
      b.raw<std::int8_t>(p + "_zero", onnx::TensorProto::INT8, {},
                         {static_cast<std::int8_t>(zero)});
    }
    b.node("QuantizeLinear", {x, p + "_scale", p + "_zero"}, {p});
    b.node("DequantizeLinear", {p, p + "_scale", p + "_zero"}, {p + "_dq"});
    return p + "_dq";
  }

  // Conv of `x` (cin channels) with random weights quantized symmetrically per output channel
  // (per tensor, without axis, for opset-12 files) and a float bias; returns the float output.
  std::string conv(const std::string& x, int cin, int cout, int k, std::uint32_t seed,
                   int stride = 1) {
    const std::string name = "conv" + std::to_string(count_++);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0F, 1.0F);
    const int per = cin * k * k;
    std::vector<float> w(static_cast<std::size_t>(cout * per));
    for (auto& v : w) v = dist(rng) * 0.5F;
    const bool per_channel = b.proto().opset_import(0).version() >= 13;
    std::vector<float> scales(per_channel ? static_cast<std::size_t>(cout) : 1U, 0.0F);
    for (int o = 0; o < cout; ++o) {
      for (int i = 0; i < per; ++i) {
        auto& s = scales[per_channel ? static_cast<std::size_t>(o) : 0U];
        s = std::max(s, std::abs(w[static_cast<std::size_t>(o * per + i)]) / 127.0F);
      }
    }
    std::vector<std::int8_t> q(w.size());
    for (std::size_t i = 0; i < w.size(); ++i) {
      q[i] = static_cast<std::int8_t>(
          std::lround(w[i] / scales[per_channel ? i / static_cast<std::size_t>(per) : 0U]));
    }
    b.raw(name + "_wq", onnx::TensorProto::INT8, {cout, cin, k, k}, q);
    b.floats(name + "_ws",
             per_channel ? std::vector<std::int64_t>{cout} : std::vector<std::int64_t>{}, scales);
    auto& dq = b.node("DequantizeLinear", {name + "_wq", name + "_ws"}, {name + "_w"});
    if (per_channel) ModelBuilder::attr(dq, "axis", std::int64_t{0});
    b.random(name + "_b", {cout}, seed + 1);
    auto& c = b.node("Conv", {x, name + "_w", name + "_b"}, {name + "_y"}, name);
    ModelBuilder::attr(c, "kernel_shape", std::vector<std::int64_t>{k, k});
    ModelBuilder::attr(c, "pads", std::vector<std::int64_t>{k / 2, k / 2, k / 2, k / 2});
    ModelBuilder::attr(c, "strides", std::vector<std::int64_t>{stride, stride});
    return name + "_y";
  }

  // A 1x3x8x8 image Q/DQ'd at 1/255, then two convs of it requantized at different scales (0.05
  // and 0.03): inputs for ops that meet equal and unequal scales.
  std::pair<std::string, std::string> two_branches(std::uint32_t seed) {
    b.input("images", {1, 3, 8, 8});
    const auto x = qdq("images", 1.0F / 255.0F, -128);
    return {qdq(conv(x, 3, 4, 3, seed), 0.05F, 0), qdq(conv(x, 3, 4, 3, seed + 1), 0.03F, 10)};
  }

  // Nearest 2x upsampling (Resize, asymmetric, floor) of `x` into "up".
  void upsample(const std::string& x, const std::string& name = "") {
    b.floats("scales", {4}, {1, 1, 2, 2});
    auto& resize = b.node("Resize", {x, "", "scales"}, {"up"}, name);
    ModelBuilder::attr(resize, "mode", std::string("nearest"));
    ModelBuilder::attr(resize, "coordinate_transformation_mode", std::string("asymmetric"));
    ModelBuilder::attr(resize, "nearest_mode", std::string("floor"));
  }

  // The model saved as `file`, run lowered to INT8 and as FP32 fake quant (the reference).
  struct Runs {
    Result int8;
    Result fake;
  };
  Runs save_and_run(const std::string& file) {
    const auto path = b.save(file);
    return {run_model(path, Precision::kInt8), run_model(path, Precision::kFp32)};
  }

 private:
  int count_ = 0;
};

TEST(QdqLowering, ConvMatchesFakeQuantWithinOneStep) {
  QdqModel m;
  m.b.input("images", {1, 3, 16, 16});
  const auto x = m.qdq("images", 0.02F, -10);
  const auto y = m.conv(x, 3, 8, 3, 1);
  const auto yq = m.qdq(y, 0.05F, 5);
  const auto z = m.conv(yq, 8, 6, 1, 2, 2);
  m.b.node("Identity", {m.qdq(z, 0.04F, -3)}, {"out"});
  m.b.output("out");
  const auto [int8, fake] = m.save_and_run("qdq_conv.onnx");
  EXPECT_EQ(int8.stats.int8_convs, 2);
  EXPECT_EQ(int8.layout, InputLayout::kNhwcFloat);
  EXPECT_EQ(int8.shapes[0], (Shape{1, 6, 8, 8}));
  // One step from the first conv's rounding may move the second by about one more.
  EXPECT_LE(max_steps(int8, fake, 0, 0.04F), 2.01);
}

TEST(QdqLowering, SiluBecomesATableFusedIntoTheConv) {
  QdqModel m;
  m.b.input("images", {1, 3, 12, 12});
  const auto x = m.qdq("images", 1.0F / 255.0F, -128);
  const auto a = m.qdq(m.conv(x, 3, 16, 3, 3), 0.03F, -20);
  m.b.node("Sigmoid", {a}, {"sig"});
  const auto s = m.qdq("sig", 1.0F / 255.0F, -128);
  m.b.node("Mul", {a, s}, {"silu"});
  m.b.node("Identity", {m.qdq("silu", 0.02F, -110)}, {"out"});
  m.b.output("out");
  const auto [int8, fake] = m.save_and_run("qdq_silu.onnx");
  EXPECT_NE(int8.log.find("1 convs (1 with element-wise tables), 0 tables"), std::string::npos)
      << int8.log;
  // The input quantizes from the uint8 image: no float image.
  EXPECT_EQ(int8.layout, InputLayout::kNhwcUint8);
  EXPECT_EQ(int8.stats.int8_quantize, 0);
  EXPECT_EQ(int8.stats.int8_dequantize, 1);
  // The table composes the chain as the file writes it; a conv output one step off moves the
  // SiLU by up to 1.5 steps.
  EXPECT_LE(max_steps(int8, fake, 0, 0.02F), 2.01);
}

TEST(QdqLowering, AddMaxPoolUpsampleAndConcatWithEqualAndUnequalScales) {
  QdqModel m;
  const auto [a, b] = m.two_branches(4);
  m.b.node("Add", {a, b}, {"sum"});
  m.b.node("Identity", {m.qdq("sum", 0.06F, -5)}, {"out_add"});
  auto& pool = m.b.node("MaxPool", {a}, {"pooled"});
  ModelBuilder::attr(pool, "kernel_shape", std::vector<std::int64_t>{3, 3});
  ModelBuilder::attr(pool, "pads", std::vector<std::int64_t>{1, 1, 1, 1});
  const auto pooled = m.qdq("pooled", 0.05F, 0);
  m.upsample(pooled);
  m.b.node("Identity", {m.qdq("up", 0.05F, 0)}, {"out_up"});
  // Equal scales: written in place; unequal (b): requantized first.
  auto& same = m.b.node("Concat", {a, pooled}, {"cat_same"});
  ModelBuilder::attr(same, "axis", std::int64_t{1});
  m.b.node("Identity", {m.qdq("cat_same", 0.05F, 0)}, {"out_same"});
  auto& mixed = m.b.node("Concat", {a, b}, {"cat_mixed"});
  ModelBuilder::attr(mixed, "axis", std::int64_t{1});
  m.b.node("Identity", {m.qdq("cat_mixed", 0.05F, 0)}, {"out_mixed"});
  for (const char* o : {"out_add", "out_up", "out_same", "out_mixed"}) m.b.output(o);
  const auto [int8, fake] = m.save_and_run("qdq_ops.onnx");
  EXPECT_NE(int8.log.find("1 add/mul, 1 max pools, 1 upsamples, 2 concat/split"), std::string::npos)
      << int8.log;
  EXPECT_NE(int8.log.find("1 tables"), std::string::npos) << int8.log;
  EXPECT_EQ(int8.stats.int8_quantize, 0);
  EXPECT_EQ(int8.shapes[1], (Shape{1, 4, 16, 16}));
  EXPECT_LE(max_steps(int8, fake, 0, 0.06F), 1.01);
  // Max, nearest copy and concat move int8 values unchanged.
  EXPECT_LE(max_steps(int8, fake, 1, 0.05F), 0.01);
  EXPECT_LE(max_steps(int8, fake, 2, 0.05F), 0.01);
  EXPECT_LE(max_steps(int8, fake, 3, 0.05F), 1.01);
}

TEST(QdqLowering, Opset12Uint8ActivationsAndPerTensorWeights) {
  QdqModel m(12);
  m.b.input("images", {1, 3, 10, 10});
  const auto x = m.qdq("images", 1.0F / 255.0F, 0, true);
  const auto y = m.qdq(m.conv(x, 3, 8, 3, 6), 0.04F, 120, true);
  const auto z = m.conv(y, 8, 4, 3, 7);
  m.b.node("Identity", {m.qdq(z, 0.05F, 128, true)}, {"out"});
  m.b.output("out");
  const auto [int8, fake] = m.save_and_run("qdq_uint8.onnx");
  EXPECT_EQ(int8.stats.int8_convs, 2);
  // uint8 with zero point 0 at scale 1/255 is int8 with zero point -128: the uint8 image path.
  EXPECT_EQ(int8.layout, InputLayout::kNhwcUint8);
  EXPECT_LE(max_steps(int8, fake, 0, 0.05F), 2.01);
}

TEST(QdqLowering, FloatOpsBecomeIslandsWithConverts) {
  QdqModel m;
  m.b.input("images", {1, 3, 8, 8});
  const auto x = m.qdq("images", 0.01F, 0);
  const auto a = m.qdq(m.conv(x, 3, 4, 3, 8), 0.05F, 0);
  // Softmax has no int8 lowering.
  m.b.node("Softmax", {a}, {"softmax"});
  const auto r = m.qdq("softmax", 0.03F, -128);
  m.b.node("Identity", {m.qdq(m.conv(r, 4, 4, 1, 9), 0.05F, 0)}, {"out"});
  m.b.output("out");
  const auto [int8, fake] = m.save_and_run("qdq_island.onnx");
  EXPECT_EQ(int8.stats.int8_convs, 2);
  // Into the Softmax and out of the model; out of the Softmax and of the float input.
  EXPECT_EQ(int8.stats.int8_dequantize, 2);
  EXPECT_EQ(int8.stats.int8_quantize, 2);
  EXPECT_LE(max_steps(int8, fake, 0, 0.05F), 2.01);
}

// The message of the ModelError that loading `path` must throw ("" and a failure if it loads).
std::string load_error(const std::filesystem::path& path, Precision precision) {
  EngineOptions options;
  options.precision = precision;
  return test::load_error(path, options);
}

std::filesystem::path float_model(const std::string& file) {
  ModelBuilder b;
  b.input("images", {1, 3, 8, 8});
  b.node("Relu", {"images"}, {"out"});
  b.output("out");
  return b.save(file);
}

TEST(QdqLowering, Int8OnAFloatModelSaysHowToQuantize) {
  const auto path = float_model("float_only.onnx");
  const std::string message = load_error(path, Precision::kInt8);
  EXPECT_NE(message.find("yolo-edge quantize --model"), std::string::npos) << message;
  EXPECT_NE(message.find("model.int8_path"), std::string::npos) << message;
  EXPECT_NE(message.find(path.string()), std::string::npos) << message;
}

// `--precision int8` on yolov8n.onnx runs yolov8n.int8.onnx when it is there, and says so.
TEST(QdqLowering, Int8OnAFloatModelRunsItsInt8Sibling) {
  const auto path = float_model("with_sibling.onnx");
  QdqModel m;
  m.b.input("images", {1, 3, 8, 8});
  const auto conv = m.conv(m.qdq("images", 0.02F, -10), 3, 4, 3, 1);
  m.b.node("Identity", {m.qdq(conv, 0.05F, 0)}, {"out"});
  m.b.output("out");
  const auto sibling = m.b.save("with_sibling.int8.onnx");
  ASSERT_EQ(int8_sibling(path), sibling);
  const Result r = run_model(path, Precision::kInt8);
  EXPECT_EQ(r.stats.int8_convs, 1);
  EXPECT_NE(r.log.find("running its INT8 sibling " + sibling.string()), std::string::npos) << r.log;
  std::filesystem::remove(sibling);
  const std::string message = load_error(path, Precision::kInt8);
  EXPECT_NE(message.find("--out " + sibling.string()), std::string::npos) << message;
}

// A dynamic-INT8 file is not what precision int8 runs: the message gives the quantize command
// that makes its INT8 sibling from the file itself.
TEST(QdqLowering, Int8OnADynamicModelSaysToQuantizeIt) {
  ModelBuilder b;
  b.input("images", {1, 3, 8, 8});
  b.node("DynamicQuantizeLinear", {"images"}, {"q", "scale", "zero"});
  auto& cast = b.node("Cast", {"q"}, {"out"});
  ModelBuilder::attr(cast, "to", std::int64_t{onnx::TensorProto::FLOAT});
  b.output("out");
  const auto path = b.save("dynamic_int8.onnx");
  const std::string message = load_error(path, Precision::kInt8);
  EXPECT_NE(message.find("dynamic INT8"), std::string::npos) << message;
  EXPECT_NE(message.find("yolo-edge quantize --model " + path.string()), std::string::npos)
      << message;
}

// The plan `inspect` shows comes from the lowering itself: every node but the Q/DQ it consumed,
// int8 or kept FP32 with the reason, and the FP32 islands.
TEST(QdqLowering, PlanSaysPerNodeWhatRunsInt8AndWhyTheRestStaysFloat) {
  QdqModel m;
  m.b.input("images", {1, 3, 8, 8});
  const auto x = m.qdq("images", 1.0F / 255.0F, -128);
  const auto conv_out = m.conv(x, 3, 4, 3, 10);
  // QdqModel::conv names the node after its output, less "_y".
  const auto conv = conv_out.substr(0, conv_out.size() - 2);
  const auto a = m.qdq(conv_out, 0.03F, -20);
  m.b.node("Sigmoid", {a}, {"sig"}, "sig");
  m.b.node("Mul", {a, m.qdq("sig", 1.0F / 255.0F, -128)}, {"silu"}, "silu");
  const auto s = m.qdq("silu", 0.02F, -110);
  auto& pool = m.b.node("MaxPool", {s}, {"pooled"}, "pool");
  ModelBuilder::attr(pool, "kernel_shape", std::vector<std::int64_t>{2, 2});
  m.b.node("Softmax", {m.qdq("pooled", 0.05F, 0)}, {"softmax"}, "softmax");
  // conv1 writes float into the Identity: no QuantizeLinear, one island with the Identity.
  const auto last = m.conv(m.qdq("softmax", 0.03F, -128), 4, 2, 1, 11);
  m.b.node("Identity", {last}, {"out"}, "tail");
  m.b.output("out");
  const auto path = m.b.save("qdq_plan.onnx");

  const QdqPlan plan = plan_qdq_model(path, InputSize{});
  std::map<std::string, QdqLayer> by_node;
  for (const auto& layer : plan.layers) by_node[layer.node] = layer;
  ASSERT_EQ(plan.layers.size(), 7U);
  EXPECT_TRUE(by_node[conv].int8);
  EXPECT_EQ(by_node[conv].op, "Conv");
  EXPECT_EQ(by_node[conv].note, "int8 QConv + SiLU table");
  EXPECT_TRUE(by_node["silu"].int8);
  EXPECT_EQ(by_node["silu"].note, "int8: SiLU table fused into a QConv");
  EXPECT_EQ(by_node["silu"].fused_into, conv);
  EXPECT_TRUE(by_node["sig"].int8);
  EXPECT_EQ(by_node["sig"].note, "int8: inside the SiLU table fused into a QConv");
  EXPECT_EQ(by_node["sig"].fused_into, conv);
  EXPECT_TRUE(by_node[conv].fused_into.empty());
  // The pool's input and output scales differ, so it cannot move int8 values unchanged.
  EXPECT_FALSE(by_node["pool"].int8);
  EXPECT_EQ(by_node["pool"].note, "kept FP32: its input and output quantization differ");
  EXPECT_EQ(by_node["softmax"].note, "kept FP32: no int8 lowering for Softmax");
  const auto conv1 = plan.layers[5];
  EXPECT_EQ(conv1.op, "Conv");
  EXPECT_FALSE(conv1.int8);
  EXPECT_EQ(conv1.note, "kept FP32: no QuantizeLinear on its output");
  EXPECT_FALSE(by_node["tail"].int8);
  // pool, softmax, conv1 + tail.
  EXPECT_EQ(plan.stats.fp32_islands, 3);
  EXPECT_EQ(plan.stats.conv, 1);
  EXPECT_TRUE(plan.stats.uint8_input);
  // The plan is the engine's: the same counts when the model loads at int8.
  const Result int8 = run_model(path, Precision::kInt8);
  EXPECT_EQ(int8.stats.int8_convs, plan.stats.conv);
  EXPECT_EQ(int8.stats.int8_quantize, plan.stats.quantize);
  EXPECT_EQ(int8.stats.int8_dequantize, plan.stats.dequantize);
}

TEST(QdqLowering, PlanOfEveryLoweredOpAndTheConcatRequantization) {
  QdqModel m;
  const auto [a, b] = m.two_branches(12);
  m.b.node("Add", {a, b}, {"sum"}, "add");
  m.b.node("Identity", {m.qdq("sum", 0.06F, -5)}, {"out_add"});
  m.upsample(a, "up");
  m.b.node("Identity", {m.qdq("up", 0.05F, 0)}, {"out_up"});
  auto& cat = m.b.node("Concat", {a, b}, {"cat"}, "cat");
  ModelBuilder::attr(cat, "axis", std::int64_t{1});
  m.b.node("Identity", {m.qdq("cat", 0.05F, 0)}, {"out_cat"});
  for (const char* o : {"out_add", "out_up", "out_cat"}) m.b.output(o);
  const auto path = m.b.save("qdq_plan_ops.onnx");
  const QdqPlan plan = plan_qdq_model(path, InputSize{});
  std::map<std::string, QdqLayer> by_node;
  for (const auto& layer : plan.layers) by_node[layer.node] = layer;
  EXPECT_EQ(by_node["add"].note, "int8 Add");
  EXPECT_EQ(by_node["up"].note, "int8 nearest upsample x2");
  EXPECT_EQ(by_node["cat"].note, "int8 concat, 1 input(s) requantized to its scale");
  // The Identity nodes reading the outputs' DequantizeLinear are the only float layers.
  int fp32 = 0;
  for (const auto& layer : plan.layers) {
    if (layer.int8) continue;
    ++fp32;
    EXPECT_EQ(layer.op, "Identity") << layer.node;
  }
  EXPECT_EQ(fp32, 3);
  EXPECT_EQ(plan.stats.fp32_islands, 3);
}

// onnxruntime quantize_static with quant_format=QOperator: QLinearConv and friends.
std::filesystem::path qoperator_model() {
  QdqModel m;
  m.b.input("images", {1, 3, 8, 8});
  m.b.floats("xs", {}, {0.01F});
  m.b.raw<std::uint8_t>("xz", onnx::TensorProto::UINT8, {}, {0});
  m.b.node("QuantizeLinear", {"images", "xs", "xz"}, {"xq"});
  m.b.raw<std::int8_t>("w", onnx::TensorProto::INT8, {4, 3, 1, 1}, std::vector<std::int8_t>(12, 1));
  m.b.floats("ws", {}, {0.1F});
  m.b.raw<std::int8_t>("wz", onnx::TensorProto::INT8, {}, {0});
  m.b.floats("ys", {}, {0.05F});
  m.b.raw<std::uint8_t>("yz", onnx::TensorProto::UINT8, {}, {128});
  m.b.node("QLinearConv", {"xq", "xs", "xz", "w", "ws", "wz", "ys", "yz"}, {"yq"}, "conv_q");
  auto& add =
      m.b.node("QLinearAdd", {"yq", "ys", "yz", "yq", "ys", "yz", "ys", "yz"}, {"sq"}, "add_q");
  add.set_domain("com.microsoft");
  m.b.node("DequantizeLinear", {"sq", "ys", "yz"}, {"out"});
  m.b.output("out");
  auto* ms = m.b.proto().add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  return m.b.save("qoperator.onnx");
}

TEST(QdqLowering, QOperatorModelsFailAtLoadNamingTheNodeAndTheQdqWay) {
  const auto path = qoperator_model();
  for (const auto precision : {Precision::kFp32, Precision::kInt8}) {
    const std::string message = load_error(path, precision);
    EXPECT_NE(message.find(path.string()), std::string::npos) << message;
    EXPECT_NE(message.find("node 'conv_q' (QLinearConv"), std::string::npos) << message;
    EXPECT_NE(message.find("QOperator INT8 operator (2 in this model)"), std::string::npos)
        << message;
    EXPECT_NE(message.find("yolo-edge quantize --model FP32.onnx"), std::string::npos) << message;
    EXPECT_NE(message.find("quant_format=QuantFormat.QDQ"), std::string::npos) << message;
  }
  EXPECT_THROW(plan_qdq_model(path, InputSize{}), ModelError);
}

TEST(QdqLowering, QOperatorOpsAreTheQLinearOnesAndQGemm) {
  EXPECT_TRUE(is_qoperator("", "QLinearConv"));
  EXPECT_TRUE(is_qoperator("ai.onnx", "QLinearMatMul"));
  EXPECT_TRUE(is_qoperator("com.microsoft", "QLinearConcat"));
  EXPECT_TRUE(is_qoperator("com.microsoft", "QGemm"));
  EXPECT_FALSE(is_qoperator("", "QuantizeLinear"));
  EXPECT_FALSE(is_qoperator("", "ConvInteger"));
  EXPECT_FALSE(is_qoperator("example.custom", "QLinearConv"));
}

}  // namespace
}  // namespace yolo::runtime
