// SPDX-License-Identifier: Apache-2.0
// What yolo-edge quantize starts from (runtime/quantize/quantizer.h, quantize_source): FP32 files
// as they are, FP16 exports and dynamic-INT8 files from their FP32 graph; static INT8 files refused
// with a message naming the file, the first quantized node and what to do (QOperator files: as
// users meet it, tests/cli/test_command_quantize.cpp).
#include <gtest/gtest.h>

#include <string>

#include "runtime/quantize/quantizer.h"
#include "tests/runtime/quantize/quantizer_models.h"
#include "tests/support/fixtures.h"

namespace yolo::runtime {
namespace {

using namespace quantize_test;

OnnxModel saved(const ModelBuilder& b, const std::string& name) {
  return OnnxModel::load(b.save(name));
}

void expect_refused(const ModelBuilder& b, const std::string& name,
                    const std::vector<std::string>& says) {
  const OnnxModel model = saved(b, name);
  try {
    quantize_source(model);
    FAIL() << name << " was accepted";
  } catch (const QuantizeError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(model.path().string()), std::string::npos) << what;
    for (const auto& part : says) EXPECT_NE(what.find(part), std::string::npos) << what;
  }
}

TEST(QuantizeSource, Fp32StartsAsItIs) {
  const QuantizeSource s = quantize_source(saved(tiny_model(), "source_fp32.onnx"));
  EXPECT_FALSE(s.float16.any());
  EXPECT_EQ(s.dynamic.total(), 0);
  EXPECT_EQ(s.describe(), "FP32");
}

TEST(QuantizeSource, Fp16StartsFromItsFp32Form) {
  ModelBuilder b = tiny_model();
  // The weights in float16, as a --half export writes them.
  for (auto& t : *b.proto().mutable_graph()->mutable_initializer()) {
    const std::vector<float> v = values<float>(t);
    std::vector<std::uint16_t> bits;
    for (const float f : v) {
      std::uint32_t x = 0;
      std::memcpy(&x, &f, 4);
      bits.push_back(static_cast<std::uint16_t>(
          ((x >> 16) & 0x8000U) | ((((x >> 23) & 0xFF) - 112) << 10) | ((x >> 13) & 0x3FFU)));
    }
    t.set_data_type(onnx::TensorProto::FLOAT16);
    t.set_raw_data(std::string(reinterpret_cast<const char*>(bits.data()), bits.size() * 2));
  }
  const QuantizeSource s = quantize_source(saved(b, "source_fp16.onnx"));
  EXPECT_EQ(s.float16.initializers, 5);
  for (const auto& t : s.model.graph().initializer()) {
    EXPECT_EQ(t.data_type(), onnx::TensorProto::FLOAT) << t.name();
  }
  EXPECT_NE(s.describe().find("FP16 export"), std::string::npos) << s.describe();
}

TEST(QuantizeSource, StaticQdqFileIsRefusedNamingItsFirstNode) {
  ModelBuilder b;
  b.input("images", {1, 3, 8, 8});
  b.floats("s", {}, {1.0F / 255.0F});
  b.node("QuantizeLinear", {"images", "s"}, {"q"}, "quant_in");
  b.node("DequantizeLinear", {"q", "s"}, {"out"}, "dequant_in");
  b.output("out");
  expect_refused(b, "source_qdq.onnx",
                 {"already quantized (static QDQ", "node 'quant_in'", "the FP32 model"});
}

// The KITTI YOLOv8n as ONNX Runtime's quantize_dynamic left it: 64 ConvInteger chains folded.
TEST(QuantizeSource, DynamicInt8StartsFromItsFoldedGraph) {
  YOLO_REQUIRE_FIXTURES();
  const QuantizeSource s = quantize_source(
      OnnxModel::load(test::fixtures_dir() / "models" / "yolov8n_kitti3_int8dyn.onnx"));
  EXPECT_EQ(s.dynamic.conv, 64);
  for (const auto& n : s.model.graph().node()) {
    EXPECT_NE(n.op_type(), "ConvInteger") << n.name();
    EXPECT_NE(n.op_type(), "DynamicQuantizeLinear") << n.name();
  }
  EXPECT_NE(s.describe().find("dynamic INT8: starting from the FP32 graph"), std::string::npos)
      << s.describe();
}

}  // namespace
}  // namespace yolo::runtime
