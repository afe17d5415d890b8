// SPDX-License-Identifier: Apache-2.0
// runtime/model/fp32_rewrite.h: FP16 files and dynamic-INT8 chains made the FP32 graph the engine
// runs. Each FP16 model here is checked against its FP32 twin (the same network with the float16
// weights written as float32): converting at load must compute exactly what the twin computes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "runtime/engine/engine.h"
#include "runtime/model/fp32_rewrite.h"
#include "runtime/model/model_error.h"
#include "runtime/model/onnx_model.h"
#include "tests/runtime/test_model_builder.h"
#include "tests/support/fixtures.h"

namespace yolo::runtime {
namespace {

using test::ModelBuilder;

// float -> half, round to nearest even (normal range only: the test values stay inside it).
std::uint16_t to_half(float f) {
  std::uint32_t x = 0;
  std::memcpy(&x, &f, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000U;
  const int exponent = static_cast<int>((x >> 23) & 0xFF) - 127 + 15;
  std::uint32_t mantissa = x & 0x7FFFFFU;
  if (exponent <= 0) return static_cast<std::uint16_t>(sign);
  std::uint32_t half = sign | (static_cast<std::uint32_t>(exponent) << 10) | (mantissa >> 13);
  const std::uint32_t rest = mantissa & 0x1FFFU;
  if (rest > 0x1000U || (rest == 0x1000U && (half & 1U))) ++half;
  return static_cast<std::uint16_t>(half);
}

std::vector<float> random_values(std::size_t n, std::uint32_t seed) {
  std::vector<float> v(n);
  std::uint32_t s = seed;
  for (auto& x : v) {
    s = s * 1664525U + 1013904223U;
    x = static_cast<float>(s >> 8) / static_cast<float>(1U << 24) * 2.0F - 1.0F;
  }
  return v;
}

// The values as float16 bits, and those bits read back: the FP32 twin's weights.
struct HalfValues {
  std::vector<std::uint16_t> bits;
  std::vector<float> exact;
};
HalfValues halves(const std::vector<float>& values) {
  HalfValues h;
  for (const float v : values) {
    h.bits.push_back(to_half(v));
    h.exact.push_back(half_to_float(h.bits.back()));
  }
  return h;
}

void declare_float16(onnx::ValueInfoProto* value) {
  value->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT16);
}

// Conv(3 -> 4, 3x3, pad 1) + bias -> Sigmoid on a [1,3,8,8] image. `float16`: weights, input and
// output in float16 (an FP16 export); else float32 holding the same values.
ModelBuilder conv_model(bool float16) {
  const HalfValues w = halves(random_values(4 * 3 * 3 * 3, 7));
  const HalfValues b = halves(random_values(4, 8));
  ModelBuilder m(17);
  m.input("images", {1, 3, 8, 8}, float16 ? onnx::TensorProto::FLOAT16 : onnx::TensorProto::FLOAT);
  if (float16) {
    m.raw("w", onnx::TensorProto::FLOAT16, {4, 3, 3, 3}, w.bits);
    m.raw("b", onnx::TensorProto::FLOAT16, {4}, b.bits);
  } else {
    m.floats("w", {4, 3, 3, 3}, w.exact).floats("b", {4}, b.exact);
  }
  ModelBuilder::attr(m.node("Conv", {"images", "w", "b"}, {"c"}, "conv"), "pads",
                     std::vector<std::int64_t>{1, 1, 1, 1});
  m.node("Sigmoid", {"c"}, {"out"}, "sigmoid");
  m.output("out");
  if (float16) declare_float16(m.proto().mutable_graph()->mutable_output(0));
  return m;
}

// Runs `path` on a fixed input (NHWC or NCHW as the engine asks) and returns its output.
std::vector<float> run_model(const std::filesystem::path& path, EngineOptions options = {}) {
  const auto engine = Engine::load(path, options);
  const std::size_t n = 3 * 8 * 8;
  const std::vector<float> input = random_values(n, 11);
  std::memcpy(engine->input_data(), input.data(), n * sizeof(float));
  engine->run();
  const auto values = engine->output(0).values<float>();
  return {values.begin(), values.end()};
}

TEST(Float16, HalfBitsBecomeTheFloatsTheyEncode) {
  EXPECT_EQ(half_to_float(0x3C00), 1.0F);
  EXPECT_EQ(half_to_float(0xC000), -2.0F);
  EXPECT_EQ(half_to_float(0x7BFF), 65504.0F);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0F, -24));  // the smallest subnormal
  EXPECT_EQ(half_to_float(0x03FF), std::ldexp(1023.0F, -24));
  EXPECT_EQ(half_to_float(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(half_to_float(0x7E00)));
  EXPECT_TRUE(std::signbit(half_to_float(0x8000)));
  for (const float v : {0.5F, -0.333251953125F, 1024.0F, 3.140625F}) {
    EXPECT_EQ(half_to_float(to_half(v)), v);
  }
}

TEST(Float16, Fp16ExportComputesWhatItsFp32TwinComputes) {
  const auto fp16 = conv_model(true).save("fp16_conv.onnx");
  const auto fp32 = conv_model(false).save("fp16_conv_twin.onnx");
  const auto engine = Engine::load(fp16, {});
  EXPECT_EQ(engine->float16().initializers, 2);
  EXPECT_EQ(engine->float16().inputs, 1);
  EXPECT_EQ(engine->float16().outputs, 1);
  EXPECT_EQ(engine->precision(), Precision::kFp32);
  EXPECT_EQ(run_model(fp16), run_model(fp32));
}

// Float16 kept in int32_data (one value's bits per entry), the other way ONNX stores it.
TEST(Float16, Int32DataStorageIsReadToo) {
  ModelBuilder m = conv_model(true);
  for (auto& t : *m.proto().mutable_graph()->mutable_initializer()) {
    std::vector<std::uint16_t> bits(t.raw_data().size() / 2);
    std::memcpy(bits.data(), t.raw_data().data(), t.raw_data().size());
    t.clear_raw_data();
    for (const auto b : bits) t.add_int32_data(b);
  }
  EXPECT_EQ(run_model(m.save("fp16_int32_data.onnx")),
            run_model(conv_model(false).save("fp16_int32_twin.onnx")));
}

// A float32 graph with one part in float16 between two Casts (what keep_io_types conversions and
// hand-made mixed exports write), and a Constant in float16 inside it.
TEST(Float16, MixedFileWithCastsToAndFromFloat16Runs) {
  const HalfValues w = halves(random_values(4 * 3 * 3 * 3, 7));
  const HalfValues b = halves(random_values(4, 8));
  const HalfValues k = halves({0.75F});
  ModelBuilder m(17);
  m.input("images", {1, 3, 8, 8});
  m.raw("w", onnx::TensorProto::FLOAT16, {4, 3, 3, 3}, w.bits);
  m.raw("b", onnx::TensorProto::FLOAT16, {4}, b.bits);
  ModelBuilder::attr(m.node("Cast", {"images"}, {"x16"}, "to_half"), "to",
                     std::int64_t{onnx::TensorProto::FLOAT16});
  ModelBuilder::attr(m.node("Conv", {"x16", "w", "b"}, {"c"}, "conv"), "pads",
                     std::vector<std::int64_t>{1, 1, 1, 1});
  auto& constant = m.node("Constant", {}, {"k"}, "k");
  auto* value = constant.add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::FLOAT16);
  value->mutable_t()->set_raw_data(std::string(reinterpret_cast<const char*>(k.bits.data()), 2));
  m.node("Mul", {"c", "k"}, {"scaled"}, "scale");
  m.node("Sigmoid", {"scaled"}, {"s16"}, "sigmoid");
  ModelBuilder::attr(m.node("Cast", {"s16"}, {"out"}, "to_float"), "to",
                     std::int64_t{onnx::TensorProto::FLOAT});
  m.output("out");

  ModelBuilder twin(17);
  twin.input("images", {1, 3, 8, 8});
  twin.floats("w", {4, 3, 3, 3}, w.exact).floats("b", {4}, b.exact).floats("k", {}, k.exact);
  ModelBuilder::attr(twin.node("Conv", {"images", "w", "b"}, {"c"}, "conv"), "pads",
                     std::vector<std::int64_t>{1, 1, 1, 1});
  twin.node("Mul", {"c", "k"}, {"scaled"}, "scale");
  twin.node("Sigmoid", {"scaled"}, {"out"}, "sigmoid");
  twin.output("out");

  const auto path = m.save("fp16_mixed.onnx");
  const auto engine = Engine::load(path, {});
  EXPECT_EQ(engine->float16().casts, 1);
  EXPECT_EQ(engine->float16().initializers, 3);  // w, b and the Constant
  EXPECT_EQ(run_model(path), run_model(twin.save("fp16_mixed_twin.onnx")));
}

// An op in the float16 part that the runtime has no float32 operator for: one message naming the
// file, the node and what to do, before anything is planned.
TEST(Float16, OpWithoutAFloat32FormIsNamed) {
  ModelBuilder m = conv_model(true);
  auto* node = m.proto().mutable_graph()->mutable_node(1);
  node->set_op_type("FusedSigmoid");
  node->set_domain("com.example");
  const auto path = m.save("fp16_unknown_op.onnx");
  try {
    Engine::load(path, {});
    FAIL() << "loaded";
  } catch (const ModelError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path.string()), std::string::npos) << what;
    EXPECT_NE(what.find("node 'sigmoid' (com.example.FusedSigmoid"), std::string::npos) << what;
    EXPECT_NE(what.find("computes in float16"), std::string::npos) << what;
    EXPECT_NE(what.find("export the model with this op replaced by one the runtime supports: "),
              std::string::npos)
        << what;
  }
}

// A float32 file with an op the runtime lacks outside any float16 part keeps the usual message.
TEST(Float16, Float32FilesAreLeftAlone) {
  ModelBuilder m = conv_model(false);
  onnx::ModelProto copy = m.proto();
  const Float16Conversion c = convert_float16(copy, "m.onnx");
  EXPECT_FALSE(c.any());
  EXPECT_EQ(copy.SerializeAsString(), m.proto().SerializeAsString());
}

// DynamicQuantizeLinear -> ConvInteger -> Cast -> Mul -> Add, with the bias behind a Reshape to
// [1, C, 1, 1] as ONNX Runtime's quantize_dynamic writes it.
ModelBuilder dynamic_conv_model() {
  ModelBuilder b(13);
  b.input("x", {1, 2, 4, 4}).output("y");
  b.raw<std::int8_t>("wq", onnx::TensorProto::INT8, {3, 2, 1, 1}, {1, 2, -1, 4, 5, -6});
  b.floats("wscale", {3}, {0.5F, 0.25F, 2.0F});
  b.raw<std::int8_t>("wzp", onnx::TensorProto::INT8, {3}, {0, 0, 0});
  b.floats("bias", {3}, {0.1F, 0.2F, 0.3F});
  b.ints("bias_shape", {4}, {1, -1, 1, 1});
  b.node("Reshape", {"bias", "bias_shape"}, {"bias4"}, "bias_reshape");
  b.node("DynamicQuantizeLinear", {"x"}, {"xq", "xs", "xz"}, "dql");
  b.node("Mul", {"xs", "wscale"}, {"scale"}, "scale_mul");
  b.node("ConvInteger", {"xq", "wq", "xz", "wzp"}, {"acc"}, "conv");
  ModelBuilder::attr(b.node("Cast", {"acc"}, {"accf"}, "cast"), "to",
                     std::int64_t{onnx::TensorProto::FLOAT});
  b.node("Mul", {"accf", "scale"}, {"scaled"}, "mul");
  b.node("Add", {"scaled", "bias4"}, {"y"}, "add");
  return b;
}

const onnx::NodeProto* find_node(const onnx::ModelProto& m, const std::string& op) {
  for (const auto& n : m.graph().node()) {
    if (n.op_type() == op) return &n;
  }
  return nullptr;
}

TEST(DynamicInt8, ConvChainFoldsIntoAnFp32ConvWithItsBias) {
  ModelBuilder b = dynamic_conv_model();
  const Int8FoldStats stats = fold_dynamic_int8(b.proto(), DynamicInt8::kFold);
  EXPECT_EQ(stats.conv, 1);
  ASSERT_EQ(b.proto().graph().node_size(), 1) << b.proto().DebugString();
  const onnx::NodeProto& conv = b.proto().graph().node(0);
  EXPECT_EQ(conv.op_type(), "Conv");
  ASSERT_EQ(conv.input_size(), 3);
  EXPECT_EQ(conv.input(0), "x");
  EXPECT_EQ(conv.output(0), "y");
  // Only the dequantized weights and the flat bias are left.
  ASSERT_EQ(b.proto().graph().initializer_size(), 2);
  for (const auto& t : b.proto().graph().initializer()) {
    std::vector<float> v(t.raw_data().size() / 4);
    std::memcpy(v.data(), t.raw_data().data(), t.raw_data().size());
    if (t.name() == conv.input(1)) {
      EXPECT_EQ(v, (std::vector<float>{0.5F, 1.0F, -0.25F, 1.0F, 10.0F, -12.0F}));
    } else {
      EXPECT_EQ(t.name(), conv.input(2));
      EXPECT_EQ(v, (std::vector<float>{0.1F, 0.2F, 0.3F}));
      EXPECT_EQ(t.dims_size(), 1);
    }
  }
}

// Run as written, the conv reads its input as DynamicQuantizeLinear rounds it: the engine's
// result is the float conv of (q - zero point) * scale, which the folded form skips.
TEST(DynamicInt8, AsWrittenTheConvReadsTheRoundedInput) {
  ModelBuilder b = dynamic_conv_model();
  onnx::ModelProto written = b.proto();
  EXPECT_EQ(fold_dynamic_int8(written, DynamicInt8::kAsWritten).conv, 1);
  const onnx::NodeProto* dq = find_node(written, "DequantizeLinear");
  ASSERT_NE(dq, nullptr) << written.DebugString();
  EXPECT_EQ(dq->input(0), "xq");
  EXPECT_EQ(find_node(written, "Conv")->input(0), dq->output(0));
  EXPECT_NE(find_node(written, "DynamicQuantizeLinear"), nullptr);

  const auto path = b.save("dynamic_conv.onnx");
  EngineOptions as_written;
  as_written.dynamic_int8 = DynamicInt8::kAsWritten;
  const auto folded = Engine::load(path, {});
  const auto exact = Engine::load(path, as_written);
  EXPECT_EQ(folded->stats().int8_chains, 1);
  EXPECT_EQ(exact->stats().int8_chains, 1);
  // x (NCHW: channel c, pixel p at x[c * 16 + p]) in [-1, 1): values between the levels.
  std::vector<float> x(32);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = -1.0F + 0.061F * static_cast<float>(i);
  for (auto* e : {folded.get(), exact.get()}) {
    auto* in = static_cast<float*>(e->input_data());
    for (int c = 0; c < 2; ++c) {
      for (int p = 0; p < 16; ++p) {
        const bool nhwc = e->input_layout() == InputLayout::kNhwcFloat;
        in[nhwc ? p * 2 + c : c * 16 + p] = x[static_cast<std::size_t>(c * 16 + p)];
      }
    }
    e->run();
  }
  // The reference: (round(x / s) + z - z) * s through the same weights.
  const float lo = std::min(0.0F, *std::min_element(x.begin(), x.end()));
  const float hi = std::max(0.0F, *std::max_element(x.begin(), x.end()));
  const float s = (hi - lo) / 255.0F;
  const float z = std::clamp(std::nearbyint(-lo / s), 0.0F, 255.0F);
  auto rounded = [&](float v) {
    return (std::clamp(std::nearbyint(v / s) + z, 0.0F, 255.0F) - z) * s;
  };
  const std::vector<float> w{0.5F, 1.0F, -0.25F, 1.0F, 10.0F, -12.0F};
  const std::vector<float> bias{0.1F, 0.2F, 0.3F};
  const auto out_exact = exact->output(0).values<float>();
  const auto out_folded = folded->output(0).values<float>();
  float largest_gap = 0;
  for (int o = 0; o < 3; ++o) {
    for (int p = 0; p < 16; ++p) {
      const float a = x[static_cast<std::size_t>(p)];
      const float c = x[static_cast<std::size_t>(16 + p)];
      const float want = w[static_cast<std::size_t>(o * 2)] * rounded(a) +
                         w[static_cast<std::size_t>(o * 2 + 1)] * rounded(c) +
                         bias[static_cast<std::size_t>(o)];
      const float got = out_exact[static_cast<std::size_t>(o * 16 + p)];
      EXPECT_NEAR(got, want, 1e-5F) << "channel " << o << " pixel " << p;
      largest_gap =
          std::max(largest_gap, std::abs(out_folded[static_cast<std::size_t>(o * 16 + p)] - got));
    }
  }
  EXPECT_GT(largest_gap, 1e-4F) << "the folded form should skip the rounding";
}

TEST(DynamicInt8, MatMulChainFoldsIntoAnFp32MatMul) {
  ModelBuilder b(13);
  b.input("x", {1, 5, 2}).output("y");
  b.raw<std::uint8_t>("wq", onnx::TensorProto::UINT8, {2, 3}, {0x80, 0x81, 0x7f, 0x90, 0x00, 0xff});
  b.floats("wscale", {3}, {0.5F, 0.25F, 2.0F});
  b.raw<std::uint8_t>("wzp", onnx::TensorProto::UINT8, {3}, {0x80, 0x80, 0x7f});
  b.node("DynamicQuantizeLinear", {"x"}, {"xq", "xs", "xz"});
  b.node("Mul", {"xs", "wscale"}, {"scale"});
  b.node("MatMulInteger", {"xq", "wq", "xz", "wzp"}, {"acc"});
  ModelBuilder::attr(b.node("Cast", {"acc"}, {"accf"}), "to",
                     std::int64_t{onnx::TensorProto::FLOAT});
  b.node("Mul", {"accf", "scale"}, {"y"});
  EXPECT_EQ(fold_dynamic_int8(b.proto(), DynamicInt8::kFold).matmul, 1);
  ASSERT_EQ(b.proto().graph().node_size(), 1);
  const onnx::NodeProto& matmul = b.proto().graph().node(0);
  EXPECT_EQ(matmul.op_type(), "MatMul");
  EXPECT_EQ(matmul.output(0), "y");
  const onnx::TensorProto& w = b.proto().graph().initializer(0);
  std::vector<float> v(6);
  std::memcpy(v.data(), w.raw_data().data(), 24);
  // (q - zp[n]) * scale[n], row-major [2, 3].
  EXPECT_EQ(v, (std::vector<float>{0.0F, 0.25F, 0.0F, 8.0F, -32.0F, 256.0F}));
}

// A chain of another shape (no Cast to float) is left as written for the engine to refuse.
TEST(DynamicInt8, OtherShapesAreLeftAsWritten) {
  ModelBuilder b = dynamic_conv_model();
  b.proto().mutable_graph()->mutable_node(4)->mutable_attribute(0)->set_i(onnx::TensorProto::INT32);
  const std::string before = b.proto().SerializeAsString();
  EXPECT_EQ(fold_dynamic_int8(b.proto(), DynamicInt8::kFold).total(), 0);
  EXPECT_EQ(b.proto().SerializeAsString(), before);
}

// The classic YOLOv5n exported with --half: float16 weights, input and output, no Casts.
TEST(Float16, YoloV5nHalfExportLoadsAsFp32) {
  YOLO_REQUIRE_FIXTURES();
  const auto path = test::fixtures_dir() / "models" / "yolov5n_640_fp16.onnx";
  const auto engine = Engine::load(path, {});
  EXPECT_GE(engine->float16().initializers, 100);
  EXPECT_EQ(engine->float16().inputs, 1);
  EXPECT_EQ(engine->float16().outputs, 1);
  EXPECT_EQ(engine->precision(), Precision::kFp32);
  EXPECT_EQ(engine->output(0).shape(), (Shape{1, 25200, 85}));
  EXPECT_EQ(engine->metadata().names.size(), 80U);
}

}  // namespace
}  // namespace yolo::runtime
