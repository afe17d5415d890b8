// SPDX-License-Identifier: Apache-2.0
// The INT8 engine on a real model: yolo11n 320 quantized on two golden inputs, run with precision
// int8 against the same file run as fake-quant FP32, and against the original FP32 model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <span>
#include <vector>

#include "runtime/engine/engine.h"
#include "runtime/int8/qdq_lowering.h"
#include "runtime/model/onnx_model.h"
#include "runtime/quantize/quantizer.h"
#include "tests/runtime/yolo11n_fixture.h"
#include "tests/support/engine_input.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_folder.h"

namespace yolo::runtime {
namespace {

namespace fs = std::filesystem;
using test::class_scores;

constexpr std::int64_t kDog = 16;

struct Box {
  float score = 0, x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

// The highest-scoring anchor of `cls` in a [1, 4+nc, N] output (cx, cy, w, h rows first).
Box best_box(const Tensor& out, std::int64_t cls) {
  const auto v = out.values<float>();
  const std::int64_t n = out.shape()[2];
  auto at = [&](std::int64_t r, std::int64_t i) { return v[static_cast<std::size_t>(r * n + i)]; };
  Box best;
  for (std::int64_t i = 0; i < n; ++i) {
    const float s = at(4 + cls, i);
    if (s <= best.score) continue;
    const float cx = at(0, i), cy = at(1, i), w = at(2, i), h = at(3, i);
    best = {s, cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2};
  }
  return best;
}

float iou(const Box& a, const Box& b) {
  const float w = std::max(0.0F, std::min(a.x1, b.x1) - std::max(a.x0, b.x0));
  const float h = std::max(0.0F, std::min(a.y1, b.y1) - std::max(a.y0, b.y0));
  const float inter = w * h;
  const float area = (a.x1 - a.x0) * (a.y1 - a.y0) + (b.x1 - b.x0) * (b.y1 - b.y0) - inter;
  return area > 0 ? inter / area : 0.0F;
}

TEST(QdqLoweringFixture, Yolo11nInt8AgreesWithFakeQuantAndWithFp32) {
  YOLO_REQUIRE_FIXTURES();
  const fs::path model = test::yolo11n_320_model();
  const auto golden = test::yolo11n_320_input;
  const auto frames = test::frames_of({golden("dog"), golden("horses")});
  // Its own folder: the arm64 build runs this test as two CPUs at once.
  const test::TempFolder folder;
  const fs::path path = folder.path() / "yolo11n.int8.onnx";
  // The lowering is under test here, not `auto`'s measured choices (test_quantizer_fixture):
  // the detection tail stays FP32 as `auto` keeps it, every conv is int8, and the quantizer skips
  // its measurements (nine tenths of its time, minutes under QEMU).
  QuantizeOptions options;
  options.method = CalibrationMethod::kMinMax;
  options.keep = KeepFp32Mode::kList;
  for (const auto& node : test::yolo11n_320_tail()) options.keep_nodes.push_back(node);
  quantize_model(model, path, options, frames);

  auto fp32 = Engine::load(model, {});
  EngineOptions fake_options;
  auto fake = Engine::load(path, fake_options);
  EngineOptions int8_options;
  int8_options.precision = Precision::kInt8;
  auto int8 = Engine::load(path, int8_options);
  // The first conv is int8: the uint8 image goes straight in.
  EXPECT_EQ(int8->input_layout(), InputLayout::kNhwcUint8);
  EXPECT_GT(int8->stats().int8_convs, 75);

  // The same file without the quantizer's metadata, as a file from another tool: its SiLU tables
  // round the sigmoid as the Q/DQ pair inside each SiLU says.
  OnnxModel foreign = OnnxModel::load(path);
  auto* props = foreign.proto().mutable_metadata_props();
  props->erase(std::remove_if(props->begin(), props->end(),
                              [](const auto& p) { return p.key() == kOwnQuantizationKey; }),
               props->end());
  const fs::path foreign_path = folder.path() / "foreign.onnx";
  {
    std::ofstream out(foreign_path, std::ios::binary);
    foreign.proto().SerializeToOstream(&out);
  }
  auto as_written = Engine::load(foreign_path, int8_options);

  int confident = 0;
  double total = 0, total_as_written = 0;
  for (const char* image : {"dog", "horses", "kite", "person"}) {
    const auto rgb = golden(image);
    for (Engine* e : {fake.get(), int8.get(), as_written.get()}) {
      test::write_rgb_input(*e, rgb);
      e->run();
    }
    // The same quantized network computed two ways: int8 steps (our files: one unrounded table
    // per SiLU) and float with Q/DQ rounding (the sigmoid rounded too). One-step differences per
    // layer add up over ~90 layers: close on average, a class here and there moves further. Run
    // as written, each layer differs only where a tie flips (none in the C2f stage of
    // test_qdq_chain), but ~90 layers spread each flip: as close, not closer.
    const auto a = class_scores(fake->output(0));
    const auto b = class_scores(int8->output(0));
    const auto w = class_scores(as_written->output(0));
    for (std::size_t c = 0; c < a.size(); ++c) {
      if (std::max(a[c], b[c]) < 0.3F) continue;
      ++confident;
      total += std::abs(a[c] - b[c]);
      total_as_written += std::abs(a[c] - w[c]);
      EXPECT_NEAR(a[c], b[c], 0.2) << image << " class " << c;
    }
  }
  EXPECT_GT(confident, 4);
  EXPECT_LT(total / confident, 0.07);
  std::cout << "[ scores   ] mean |fake-quant - int8| over " << confident
            << " confident classes: one table " << total / confident << ", as written "
            << total_as_written / confident << "\n";
  EXPECT_LT(total_as_written / confident, 0.07);
  // Against the original FP32 model: the dog is found, in the same place.
  const auto rgb = golden("dog");
  for (Engine* e : {fp32.get(), int8.get()}) {
    test::write_rgb_input(*e, rgb);
    e->run();
  }
  const Box want = best_box(fp32->output(0), kDog);
  const Box got = best_box(int8->output(0), kDog);
  EXPECT_GT(want.score, 0.5F);
  EXPECT_GT(got.score, 0.5F);
  EXPECT_GT(iou(want, got), 0.8F);
}

}  // namespace
}  // namespace yolo::runtime
