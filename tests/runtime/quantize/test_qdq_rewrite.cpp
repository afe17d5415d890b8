// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/qdq_rewrite.h"

#include <gtest/gtest.h>

#include "tests/runtime/quantize/quantizer_models.h"

namespace yolo::runtime {
namespace {

using namespace quantize_test;

// The tiny model and its QDQ rewrite with every node quantized.
class BuildQdqOfTinyModel : public ::testing::Test {
 protected:
  // The DequantizeLinear that feeds input `input` of node `node` from a constant of `type`,
  // without a zero point (0 by default); null, with a failure, when it is not there.
  const onnx::NodeProto* constant_dequantizer(const std::string& node, int input, int type) const {
    const onnx::NodeProto* dq = producer(q, node_named(q, node)->input(input));
    if (dq == nullptr || dq->op_type() != "DequantizeLinear") {
      ADD_FAILURE() << "input " << input << " of " << node << " is not dequantized";
      return nullptr;
    }
    EXPECT_EQ(dq->input_size(), 2) << node;
    const onnx::TensorProto* values = initializer(q, dq->input(0));
    if (values == nullptr || values->data_type() != type) {
      ADD_FAILURE() << "input " << input << " of " << node << " is not a constant of type " << type;
      return nullptr;
    }
    return dq;
  }

  ModelBuilder b = tiny_model();
  const onnx::ModelProto q = build_qdq_model(b.proto(), tiny_ranges(), {});
};

TEST_F(BuildQdqOfTinyModel, InsertsOnePairPerActivationAndRewiresEveryConsumer) {
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

TEST_F(BuildQdqOfTinyModel, InputHasTheFixedImageScale) {
  EXPECT_FLOAT_EQ(scale_of(q, "x"), 1.0F / 255.0F);
  EXPECT_EQ(zero_point_of(q, "x"), -128);
  EXPECT_EQ(initializer(q, quantize_of(q, "x")->input(2))->data_type(), onnx::TensorProto::INT8);
}

TEST_F(BuildQdqOfTinyModel, ConcatInputsAndOutputShareOneScale) {
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

TEST_F(BuildQdqOfTinyModel, WeightsArePerChannelSymmetricInt8WithinHalfAStep) {
  const std::vector<float> w = floats(*initializer(b.proto(), "w1"));
  // The conv reads its weights through a per-axis DequantizeLinear of int8 values.
  const onnx::NodeProto* dq = constant_dequantizer("c1", 1, onnx::TensorProto::INT8);
  ASSERT_NE(dq, nullptr);
  ASSERT_EQ(dq->attribute_size(), 1);
  EXPECT_EQ(dq->attribute(0).name(), "axis");
  EXPECT_EQ(dq->attribute(0).i(), 0);
  const auto* wq = initializer(q, dq->input(0));
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

TEST_F(BuildQdqOfTinyModel, BiasIsInt32AtInputScaleTimesWeightScale) {
  const std::vector<float> bias = floats(*initializer(b.proto(), "b3"));
  const onnx::NodeProto* bdq = constant_dequantizer("c3", 2, onnx::TensorProto::INT32);
  ASSERT_NE(bdq, nullptr);
  const auto qv = values<std::int32_t>(*initializer(q, bdq->input(0)));
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
  // The Q/DQ pairs computed in float (the file alone would run int8, NHWC): the rounding the
  // quantizer chose, against the FP32 model.
  EngineOptions as_fp32;
  as_fp32.precision = Precision::kFp32;
  auto int8 = Engine::load(out, as_fp32);
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

}  // namespace
}  // namespace yolo::runtime
