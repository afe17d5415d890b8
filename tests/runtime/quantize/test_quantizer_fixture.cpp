// SPDX-License-Identifier: Apache-2.0
// Quantizes a real fixture model on two golden letterboxed inputs and checks the file on two
// others.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <iterator>
#include <string>
#include <vector>

#include "runtime/engine/engine.h"
#include "runtime/model/model_info.h"
#include "runtime/quantize/fp32_trade.h"
#include "runtime/quantize/quantizer.h"
#include "tests/runtime/yolo11n_fixture.h"
#include "tests/support/engine_input.h"
#include "tests/support/fixtures.h"

namespace yolo::runtime {
namespace {

namespace fs = std::filesystem;

using test::class_scores;

TEST(QuantizerFixture, Yolo11nOnTwoImagesAgreesWithFp32OnTwoOthers) {
  YOLO_REQUIRE_FIXTURES();
  const fs::path model = test::yolo11n_320_model();
  const auto golden = test::yolo11n_320_input;
  // Calibrate on dog and kite; evaluate on horses and person.
  const auto frames = test::frames_of({golden("dog"), golden("kite")});
  const fs::path out = fs::temp_directory_path() / "yolo_quant_fixture_yolo11n.int8.onnx";
  QuantizeOptions options;
  options.method = CalibrationMethod::kMinMax;
  const QuantizeResult result = quantize_model(model, out, options, frames);
  EXPECT_EQ(result.frames, 2);

  const OnnxModel saved = OnnxModel::load(out);
  const ModelInfo info = inspect_model(saved);
  EXPECT_EQ(info.quantization, QuantizationKind::kStaticQdq);
  EXPECT_TRUE(info.problems.empty());
  EXPECT_EQ(info.metadata.task, "detect");
  EXPECT_EQ(info.metadata.names.size(), 80U);
  EXPECT_LE(static_cast<double>(result.int8_bytes), 0.30 * static_cast<double>(result.fp32_bytes));
  // The first convs were weighed one by one for FP32, within the MAC budget, then the q/k/v
  // projection of the attention block (model.10), and the share of conv MACs left in FP32 is
  // reported.
  const auto& trades = result.report.at("fp32_trades");
  ASSERT_GE(trades.size(), 2U);
  EXPECT_EQ(trades.front().at("node"), "Conv_0");
  EXPECT_EQ(trades.back().at("node"), "Conv_123");
  double share = 0;
  for (std::size_t i = 0; i + 1 < trades.size(); ++i)
    share += trades[i].at("mac_share").get<double>();
  EXPECT_LE(share, kMaxLayerMacShare);
  EXPECT_GT(result.report.at("fp32_conv_mac_share").get<double>(), 0.0);
  // The DFL stays FP32.
  EXPECT_NE(std::find(result.kept_fp32.begin(), result.kept_fp32.end(), "/model.23/dfl/Softmax"),
            result.kept_fp32.end());
  // Beyond the detection tail, `auto` decides on figures every machine shares (MACs, and noise
  // only with a margin: fp32_trade.h), so the same convs stay FP32 natively and as a Pi under
  // QEMU: the three class-score convs, no stem conv.
  const auto tail = test::yolo11n_320_tail();
  std::vector<std::string> chosen;
  std::copy_if(result.kept_fp32.begin(), result.kept_fp32.end(), std::back_inserter(chosen),
               [&](const std::string& node) { return !tail.contains(node); });
  EXPECT_EQ(chosen, (std::vector<std::string>{"Conv_217", "Conv_259", "Conv_313"}))
      << result.report.at("kept_fp32").dump(1);

  auto fp32 = Engine::load(model, {});
  auto int8 = Engine::load(out, {});
  for (const char* image : {"horses", "person"}) {
    const auto rgb = golden(image);
    test::write_rgb_input(*fp32, rgb);
    test::write_rgb_input(*int8, rgb);
    fp32->run();
    int8->run();
    // Every class FP32 is sure of (score >= 0.5), INT8 scores within 0.15 (two calibration
    // frames of other scenes make narrow ranges).
    const std::vector<float> a = class_scores(fp32->output(0));
    const std::vector<float> b = class_scores(int8->output(0));
    int confident = 0;
    for (std::size_t c = 0; c < a.size(); ++c) {
      if (a[c] < 0.5F) continue;
      ++confident;
      EXPECT_NEAR(a[c], b[c], 0.15) << image << " class " << c;
    }
    EXPECT_GT(confident, 0) << image;
  }
  fs::remove(out);
}

}  // namespace
}  // namespace yolo::runtime
