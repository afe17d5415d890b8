// SPDX-License-Identifier: Apache-2.0
// The lint of model files (runtime/model/model_lint.h): each broken pattern built as a small model,
// and the real fixtures (the dynamic INT8 ones flagged, the FP32 ones clean). The lint of a file
// our quantizer made is in test_model_lint_quantized.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "runtime/engine/engine.h"
#include "runtime/model/model_error.h"
#include "runtime/model/model_lint.h"
#include "runtime/model/onnx_model.h"
#include "tests/runtime/model/lint_models.h"
#include "tests/runtime/test_model_builder.h"
#include "tests/support/fixtures.h"

namespace yolo::runtime {
namespace {

namespace fs = std::filesystem;
using test::finish;
using test::head;
using test::Head;
using test::ModelBuilder;
using test::qdq;

std::vector<LintFinding> of_check(const std::vector<LintFinding>& all, const std::string& check) {
  std::vector<LintFinding> found;
  std::copy_if(all.begin(), all.end(), std::back_inserter(found),
               [&](const LintFinding& f) { return f.check == check; });
  return found;
}

TEST(ModelLint, FloatModelIsClean) {
  Head h = head();
  finish(h, false);
  EXPECT_TRUE(lint_model(h.b.proto()).empty()) << test::findings_text(lint_model(h.b.proto()));
}

TEST(ModelLint, OneScaleOnBoxesAndScoresLeavesOneLevel) {
  Head h = head();
  // Boxes 0..640 px and scores 0..1 through one uint8 scale: every score rounds to 0.
  finish(h, true, 640.0F / 255.0F);
  const auto findings = of_check(lint_model(h.b.proto()), "score-levels");
  ASSERT_EQ(findings.size(), 1U) << test::findings_text(lint_model(h.b.proto()));
  const LintFinding& f = findings[0];
  EXPECT_EQ(f.node, "cat_QuantizeLinear");
  EXPECT_EQ(f.details["levels"], 1);
  EXPECT_EQ(f.details["best_score"], 0.0);
  EXPECT_NE(f.message.find("the detection output 'output0'"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("1 level (fewer than 64)"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("never detects anything"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("box coordinates in pixels"), std::string::npos) << f.message;
  EXPECT_NE(f.fix.find("kept FP32"), std::string::npos) << f.fix;
}

TEST(ModelLint, CoarseScaleOnTheSigmoidScoresIsFlaggedWithItsBestScore) {
  Head h = head();
  h.scores = qdq(h.b, "scores", 0.05F, 0);
  // The box branch's own coarse pair carries no scores.
  h.boxes = qdq(h.b, "boxes", 2.5F, 0);
  finish(h, false);
  const auto findings = of_check(lint_model(h.b.proto()), "score-levels");
  ASSERT_EQ(findings.size(), 1U) << test::findings_text(lint_model(h.b.proto()));
  EXPECT_EQ(findings[0].node, "scores_QuantizeLinear");
  EXPECT_EQ(findings[0].details["levels"], 21);
  EXPECT_NEAR(findings[0].details["best_score"].get<double>(), 1.0, 1e-6);
  EXPECT_NE(findings[0].message.find("the class scores of Sigmoid 'sigmoid'"), std::string::npos);
  EXPECT_EQ(findings[0].message.find("never detects"), std::string::npos);
  // At 1/255 the scores have all 256 levels.
  Head fine = head();
  fine.scores = qdq(fine.b, "scores", 1.0F / 255.0F, 0);
  finish(fine, false);
  EXPECT_TRUE(lint_model(fine.b.proto()).empty())
      << test::findings_text(lint_model(fine.b.proto()));
}

TEST(ModelLint, BadScalesAreNamedWithTheirKind) {
  ModelBuilder b;
  b.input("images", {1, 3, 4, 4});
  const std::vector<float> bad = {0.0F, -0.5F, std::numeric_limits<float>::quiet_NaN(), 1e-40F};
  std::string x = "images";
  for (std::size_t i = 0; i < bad.size(); ++i) {
    b.node("Relu", {x}, {"r" + std::to_string(i)});
    x = qdq(b, "r" + std::to_string(i), bad[i], 0);
  }
  b.node("Identity", {x}, {"out"});
  b.output("out");
  const auto findings = of_check(lint_model(b.proto()), "bad-scale");
  // One finding per scale tensor, naming the first node that reads it.
  ASSERT_EQ(findings.size(), 4U) << test::findings_text(lint_model(b.proto()));
  EXPECT_EQ(findings[0].node, "r0_QuantizeLinear");
  EXPECT_NE(findings[0].message.find("scale 'r0_scale' with 1 zero value"), std::string::npos)
      << findings[0].message;
  EXPECT_NE(findings[1].message.find("1 negative value"), std::string::npos);
  EXPECT_NE(findings[2].message.find("1 NaN value"), std::string::npos);
  EXPECT_NE(findings[3].message.find("1 denormal value"), std::string::npos);
}

TEST(ModelLint, ZeroPointOutsideItsTypeOrOfAnotherType) {
  ModelBuilder b;
  b.input("images", {1, 3, 4, 4});
  b.floats("s", {}, {0.1F});
  auto* z = b.proto().mutable_graph()->add_initializer();
  z->set_name("z");
  z->set_data_type(onnx::TensorProto::INT8);
  z->add_int32_data(200);
  b.node("QuantizeLinear", {"images", "s", "z"}, {"q"}, "q_wrapped");
  b.node("DequantizeLinear", {"q", "s", "z"}, {"d"}, "dq_wrapped");
  b.raw<std::int16_t>("z16", onnx::TensorProto::INT16, {}, {0});
  b.node("QuantizeLinear", {"d", "s", "z16"}, {"q16"}, "q_int16");
  b.output("q16");
  const auto findings = of_check(lint_model(b.proto()), "zero-point-range");
  ASSERT_EQ(findings.size(), 2U) << test::findings_text(lint_model(b.proto()));
  EXPECT_EQ(findings[0].node, "q_wrapped");
  EXPECT_NE(findings[0].message.find("zero point 200"), std::string::npos) << findings[0].message;
  EXPECT_NE(findings[0].message.find("int8 [-128, 127]"), std::string::npos);
  EXPECT_EQ(findings[1].node, "q_int16");
  EXPECT_NE(findings[1].message.find("does not take"), std::string::npos) << findings[1].message;
}

// Weights of 4 channels at scales 1e-6 .. 0.03 (ratio 3e4), and a fifth all-zero channel whose
// scale of 1 (what quantizers write for it) does not count.
TEST(ModelLint, PerChannelScalesSpreadOver1e4) {
  for (const bool spread : {true, false}) {
    ModelBuilder b;
    b.input("images", {1, 3, 4, 4});
    std::vector<std::int8_t> w(5 * 3, 50);
    std::fill(w.begin() + 12, w.end(), 0);
    b.raw("w_quantized", onnx::TensorProto::INT8, {5, 3, 1, 1}, w);
    b.floats("w_scale", {5}, {spread ? 1e-6F : 1e-3F, 0.01F, 0.02F, 0.03F, 1.0F});
    auto& dq = b.node("DequantizeLinear", {"w_quantized", "w_scale"}, {"w"}, "w_DequantizeLinear");
    ModelBuilder::attr(dq, "axis", std::int64_t{0});
    b.node("Conv", {"images", "w"}, {"out"}, "conv");
    b.output("out");
    const auto findings = of_check(lint_model(b.proto()), "channel-scale-ratio");
    if (!spread) {
      EXPECT_TRUE(findings.empty()) << test::findings_text(findings);
      continue;
    }
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].node, "w_DequantizeLinear");
    EXPECT_EQ(findings[0].details["min_channel"], 0);
    EXPECT_EQ(findings[0].details["max_channel"], 3);
    EXPECT_NEAR(findings[0].details["ratio"].get<double>(), 3e4, 1);
    EXPECT_NE(findings[0].message.find("Conv 'conv'"), std::string::npos) << findings[0].message;
  }
}

TEST(ModelLint, DynamicQuantizationExplainsTheCost) {
  ModelBuilder b;
  b.input("images", {1, 3, 8, 8});
  b.node("DynamicQuantizeLinear", {"images"}, {"q", "scale", "zero"}, "dql");
  auto& cast = b.node("Cast", {"q"}, {"out"});
  ModelBuilder::attr(cast, "to", std::int64_t{onnx::TensorProto::FLOAT});
  b.output("out");
  const auto findings = lint_model(b.proto());
  ASSERT_EQ(findings.size(), 1U) << test::findings_text(findings);
  EXPECT_EQ(findings[0].check, "dynamic-quantization");
  EXPECT_EQ(findings[0].node, "dql");
  EXPECT_NE(findings[0].message.find("slower than FP32"), std::string::npos);
  // The command starts from this file itself: quantize folds its ConvInteger chains to FP32.
  EXPECT_NE(findings[0].fix.find("yolo-edge quantize --model MODEL.onnx --calib SRC --out "
                                 "MODEL.int8.onnx"),
            std::string::npos)
      << findings[0].fix;
}

TEST(ModelLint, QOperatorNodesSayHowToMakeAQdqFile) {
  ModelBuilder b;
  b.input("images", {1, 3, 8, 8});
  b.node("QLinearConv", {"images"}, {"y"}, "conv_q");
  b.node("QLinearConv", {"y"}, {"out"}, "conv_q2");
  b.output("out");
  const auto findings = lint_model(b.proto());
  ASSERT_EQ(findings.size(), 1U) << test::findings_text(findings);
  EXPECT_EQ(findings[0].check, "qoperator");
  EXPECT_EQ(findings[0].details["qoperator_nodes"], 2);
  EXPECT_NE(findings[0].message.find("QLinearConv 'conv_q'"), std::string::npos);
  EXPECT_NE(findings[0].fix.find("quant_format=QuantFormat.QDQ"), std::string::npos);
}

// The file's lint also says what Engine::load would refuse, in its words: a model with an op the
// runtime has no operator for passed every other check and then failed to load on the device.
TEST(ModelLint, WhatTheEngineRefusesAtLoadIsAFinding) {
  constexpr auto npos = std::string::npos;
  ModelBuilder b;
  b.input("images", {1, 3, 8, 8});
  b.node("Relu", {"images"}, {"r"}, "relu");
  ModelBuilder::attr(b.node("Hardmax", {"r"}, {"out"}, "hard_max"), "axis", std::int64_t{1});
  b.output("out");
  const auto path = b.save("lint_unsupported.onnx");
  const auto findings = lint_model_file(path);
  fs::remove(path);
  ASSERT_EQ(findings.size(), 1U) << test::findings_text(findings);
  EXPECT_EQ(findings[0].check, "unsupported");
  EXPECT_NE(findings[0].message.find(path.string()), npos) << findings[0].message;
  EXPECT_NE(findings[0].message.find("op 'Hardmax'"), npos) << findings[0].message;
  EXPECT_NE(findings[0].message.find("node 'hard_max'"), npos) << findings[0].message;
  EXPECT_NE(findings[0].message.find("supported ops: Abs"), npos) << findings[0].message;
  EXPECT_NE(findings[0].fix.find("refuse this file at load"), npos) << findings[0].fix;

  // QOperator nodes are refused at load too; their own finding says so, once.
  ModelBuilder q;
  q.input("images", {1, 3, 8, 8});
  q.node("QLinearConv", {"images"}, {"out"}, "conv_q");
  q.output("out");
  const auto qpath = q.save("lint_unsupported_qoperator.onnx");
  const auto qfindings = lint_model_file(qpath);
  EXPECT_TRUE(load_refusal(qpath, {}).has_value());
  fs::remove(qpath);
  ASSERT_EQ(qfindings.size(), 1U) << test::findings_text(qfindings);
  EXPECT_EQ(qfindings[0].check, "qoperator");
}

// A dynamic-axes file's input size is the user's to choose (model.imgsz): with none given nor
// recorded it is checked at 640, not refused; a size it cannot take is the engine's refusal.
TEST(ModelLint, ADynamicAxesFileIsCheckedAtTheSizeAsked) {
  ModelBuilder b;
  b.input("images", {1, 3, -1, -1});
  b.random("w", {4, 3, 3, 3}, 1);
  ModelBuilder::attr(b.node("Conv", {"images", "w"}, {"out"}, "conv"), "pads",
                     std::vector<std::int64_t>{1, 1, 1, 1});
  b.output("out");
  const auto path = b.save("lint_dynamic_axes.onnx");
  EXPECT_TRUE(lint_model_file(path).empty());
  EXPECT_EQ(load_refusal(path, InputSize::fixed(320, 480)), std::nullopt);
  const auto refusal = load_refusal(path, InputSize::fixed(100, 100));
  const auto findings = lint_model_file(path, InputSize::fixed(100, 100));
  fs::remove(path);
  ASSERT_TRUE(refusal.has_value());
  EXPECT_NE(refusal->find("not a multiple of its stride 32"), std::string::npos) << *refusal;
  ASSERT_EQ(findings.size(), 1U) << test::findings_text(findings);
  EXPECT_EQ(findings[0].message, *refusal);
}

TEST(ModelLint, InputNotQuantizedAsAUint8Image) {
  struct Case {
    float scale;
    int zero;
    bool int8;
    bool flagged;
  };
  for (const Case c : {Case{1.0F / 255.0F, 0, false, false}, Case{1.0F / 255.0F, -128, true, false},
                       Case{0.99F / 255.0F, 0, false, true}, Case{1.0F / 255.0F, 3, false, true}}) {
    ModelBuilder b;
    b.input("images", {1, 3, 32, 32});
    b.floats("s", {}, {c.scale});
    if (c.int8) {
      b.raw<std::int8_t>("z", onnx::TensorProto::INT8, {}, {static_cast<std::int8_t>(c.zero)});
    } else {
      b.raw<std::uint8_t>("z", onnx::TensorProto::UINT8, {}, {static_cast<std::uint8_t>(c.zero)});
    }
    b.node("QuantizeLinear", {"images", "s", "z"}, {"q"}, "images_QuantizeLinear");
    b.node("DequantizeLinear", {"q", "s", "z"}, {"out"});
    b.output("out");
    const auto findings = of_check(lint_model(b.proto()), "input-quantization");
    ASSERT_EQ(findings.size(), c.flagged ? 1U : 0U) << c.scale << " " << c.zero;
    if (!c.flagged) continue;
    EXPECT_EQ(findings[0].node, "images_QuantizeLinear");
    EXPECT_NE(findings[0].message.find("cannot be fed straight from the frame"), std::string::npos);
    EXPECT_NE(findings[0].message.find("0.0117188 MiB float image"), std::string::npos)
        << findings[0].message;
    EXPECT_EQ(findings[0].details["float_image_bytes"], 32 * 32 * 3 * 4);
  }
}

TEST(ModelLint, UnreadableFilesThrowAndFindingsHaveJson) {
  const auto path = fs::temp_directory_path() / "yolo_edge_lint_garbage.onnx";
  std::ofstream(path) << "not a model";
  EXPECT_THROW(lint_model_file(path), ModelError);
  LintFinding f{"qoperator", "n", "message", "fix", {{"qoperator_nodes", 1}}};
  const auto j = to_json(f);
  EXPECT_EQ(j["check"], "qoperator");
  EXPECT_EQ(j["node"], "n");
  EXPECT_EQ(j["details"]["qoperator_nodes"], 1);
  EXPECT_EQ(to_string(f), "qoperator: message; fix");
}

TEST(ModelLint, FixturesDynamicInt8IsFlaggedAndFp32IsClean) {
  YOLO_REQUIRE_FIXTURES();
  const fs::path models = test::fixtures_dir() / "models";
  for (const char* name : {"yolov8n_640_int8dyn", "yolo11n_320_int8dyn", "yolo26n_640_int8dyn"}) {
    const auto findings = lint_model_file(models / (std::string(name) + ".onnx"));
    ASSERT_EQ(findings.size(), 1U) << name << "\n" << test::findings_text(findings);
    EXPECT_EQ(findings[0].check, "dynamic-quantization") << name;
  }
  EXPECT_EQ(lint_model_file(models / "yolov8n_640_int8dyn.onnx")[0].details["integer_ops"], 64);
  for (const char* name : {"yolov8n_640_fp32", "yolo11n_320_fp32", "yolo26n_640_fp32"}) {
    const auto findings = lint_model_file(models / (std::string(name) + ".onnx"));
    EXPECT_TRUE(findings.empty()) << name << "\n" << test::findings_text(findings);
  }
}

}  // namespace
}  // namespace yolo::runtime
