// SPDX-License-Identifier: Apache-2.0
// The lint of a file our own quantizer made from yolo11n: clean as written, and flagged once its
// output is re-quantized with one scale shared by box coordinates and scores (which then never
// detects anything). Its own executable because each test quantizes yolo11n first, which takes
// minutes under user-mode QEMU (tests/CMakeLists.txt); the quantizer itself runs there in
// test_quantizer_fixture and test_qdq_lowering_fixture.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "runtime/engine/engine.h"
#include "runtime/model/model_lint.h"
#include "runtime/model/onnx_model.h"
#include "runtime/quantize/quantizer.h"
#include "tests/runtime/model/lint_models.h"
#include "tests/support/engine_input.h"
#include "tests/support/fixtures.h"
#include "tests/support/golden_image.h"

namespace yolo::runtime {
namespace {

namespace fs = std::filesystem;

// The file `quantize` makes from yolo11n (once for the tests below).
class QuantizedYolo11n : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!test::have_fixtures()) return;
    auto golden = [](const char* image) {
      return test::read_golden_input("yolo11n_320_fp32", image, 320);
    };
    // Per process: CTest runs the tests below side by side, each quantizing and removing its own.
    path_ = fs::temp_directory_path() /
            ("yolo_edge_lint_yolo11n_" + std::to_string(::getpid()) + ".int8.onnx");
    QuantizeOptions options;
    quantize_model(test::fixtures_dir() / "models" / "yolo11n_320_fp32.onnx", path_, options,
                   test::frames_of({golden("dog"), golden("horses")}));
  }
  static void TearDownTestSuite() {
    if (!path_.empty()) fs::remove(path_);
  }
  void SetUp() override { YOLO_REQUIRE_FIXTURES(); }
  static fs::path path_;
};
fs::path QuantizedYolo11n::path_;

TEST_F(QuantizedYolo11n, OwnQuantizeOutputIsClean) {
  const auto findings = lint_model_file(path_);
  EXPECT_TRUE(findings.empty()) << test::findings_text(findings);
  EngineOptions options;
  options.precision = Precision::kInt8;
  EXPECT_TRUE(Engine::load(path_, options)->lint_findings().empty());
}

// The output re-quantized with one scale for boxes (0..320 px) and scores, int8 symmetric as
// ONNX Runtime writes with ActivationSymmetric: flagged, and the model indeed detects nothing.
TEST_F(QuantizedYolo11n, OutputRequantizedWithOneSharedScaleIsFlagged) {
  OnnxModel model = OnnxModel::load(path_);
  auto& graph = *model.proto().mutable_graph();
  for (auto& node : *graph.mutable_node()) {
    for (auto& out : *node.mutable_output()) {
      if (out == "output0") out = "output0_float";
    }
  }
  auto* scale = graph.add_initializer();
  scale->set_name("output0_scale");
  scale->set_data_type(onnx::TensorProto::FLOAT);
  scale->add_float_data(320.0F / 127.0F);
  auto* zero = graph.add_initializer();
  zero->set_name("output0_zero_point");
  zero->set_data_type(onnx::TensorProto::INT8);
  zero->add_int32_data(0);
  auto add = [&](const char* op, std::vector<std::string> in, const std::string& out) {
    auto* n = graph.add_node();
    n->set_op_type(op);
    n->set_name(out + "_" + op);
    for (auto& i : in) n->add_input(i);
    n->add_output(out);
  };
  add("QuantizeLinear", {"output0_float", "output0_scale", "output0_zero_point"}, "output0_q");
  add("DequantizeLinear", {"output0_q", "output0_scale", "output0_zero_point"}, "output0");
  const auto shared = fs::temp_directory_path() /
                      ("yolo_edge_lint_yolo11n_shared_" + std::to_string(::getpid()) + ".onnx");
  {
    std::ofstream out(shared, std::ios::binary);
    model.proto().SerializeToOstream(&out);
  }
  EngineOptions options;
  options.precision = Precision::kInt8;
  auto engine = Engine::load(shared, options);
  const auto& findings = engine->lint_findings();
  ASSERT_EQ(findings.size(), 1U) << test::findings_text(findings);
  EXPECT_EQ(findings[0].check, "score-levels");
  EXPECT_EQ(findings[0].node, "output0_q_QuantizeLinear");
  EXPECT_EQ(findings[0].details["levels"], 1);
  EXPECT_EQ(findings[0].details["best_score"], 0.0);
  test::write_rgb_input(*engine, test::read_golden_input("yolo11n_320_fp32", "dog", 320));
  engine->run();
  const auto out = engine->output(0).values<float>();
  const std::size_t anchors = static_cast<std::size_t>(engine->output(0).shape()[2]);
  const float best =
      *std::max_element(out.begin() + 4 * static_cast<std::ptrdiff_t>(anchors), out.end());
  EXPECT_EQ(best, 0.0F);
  fs::remove(shared);
}

}  // namespace
}  // namespace yolo::runtime
