// SPDX-License-Identifier: Apache-2.0
// The engine against ONNX Runtime's golden outputs: every golden case of the FP32 fixtures, and the
// dynamic-INT8 fixtures (folded into FP32 at load) against their FP32 rebuilds' goldens.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/engine/engine.h"
#include "tests/support/engine_input.h"
#include "tests/support/fixtures.h"
#include "tests/support/golden_image.h"

namespace yolo::runtime {
namespace {

namespace fs = std::filesystem;

struct GoldenCase {
  std::string model;
  std::string input_png;
  std::string output_file;
  std::vector<std::int64_t> dims;
};

std::vector<GoldenCase> golden_cases() {
  std::vector<GoldenCase> cases;
  std::ifstream in(yolo::test::fixtures_dir() / "golden" / "index.json");
  if (!in) return cases;
  const auto index = nlohmann::json::parse(in);
  for (const auto& c : index.at("cases")) {
    cases.push_back({c.at("model").get<std::string>(), c.at("input_png").get<std::string>(),
                     c.at("output").at("file").get<std::string>(),
                     c.at("output").at("dims").get<std::vector<std::int64_t>>()});
  }
  return cases;
}

std::vector<float> read_f32(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<float> values(bytes.size() / 4);
  std::memcpy(values.data(), bytes.data(), values.size() * 4);
  return values;
}

// Writes RGB / 255 into the engine's input in the layout it asks for.
void write_input(Engine& engine, const std::vector<std::uint8_t>& rgb, int width, int height) {
  ASSERT_EQ(width, engine.input_width());
  ASSERT_EQ(height, engine.input_height());
  test::write_rgb_input(engine, rgb);
}

constexpr float kScoreTolerance = 2e-3F;
constexpr float kBoxTolerance = 0.25F;

// [1, 4 + nc, N]: rows 0-3 are cx, cy, w, h; the rest are class scores.
void expect_dense_close(const Tensor& out, const std::vector<float>& golden,
                        const std::string& what) {
  const std::int64_t rows = out.shape()[1], n = out.shape()[2];
  const float* ours = out.data_as<float>();
  int bad = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    const float tolerance = r < 4 ? kBoxTolerance : kScoreTolerance;
    for (std::int64_t i = 0; i < n; ++i) {
      const float a = ours[r * n + i], b = golden[static_cast<std::size_t>(r * n + i)];
      if (!(std::fabs(a - b) <= tolerance) && bad++ < 5) {
        ADD_FAILURE() << what << ": row " << r << " column " << i << ": ours " << a
                      << ", ONNX Runtime " << b;
      }
    }
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " values outside tolerance";
}

// [1, K, 6] rows x1, y1, x2, y2, score, class. The model picks its K rows by TopK over scores;
// among rows with near-zero scores, float rounding differences legitimately reorder ties, so only
// confident rows (score > 0.01) are compared, each matched to a row of the other side.
void expect_end2end_close(const Tensor& out, const std::vector<float>& golden,
                          const std::string& what) {
  const std::int64_t k = out.shape()[1];
  const float* ours = out.data_as<float>();
  auto matches = [&](const float* a, const float* b) {
    for (int j = 0; j < 4; ++j) {
      if (!(std::fabs(a[j] - b[j]) <= kBoxTolerance)) return false;
    }
    return std::fabs(a[4] - b[4]) <= kScoreTolerance && a[5] == b[5];
  };
  constexpr float kConfident = 0.01F;
  auto check_side = [&](const float* from, const float* to, const char* side) {
    int confident = 0;
    for (std::int64_t i = 0; i < k; ++i) {
      const float* row = from + i * 6;
      if (row[4] <= kConfident + kScoreTolerance) continue;
      ++confident;
      bool found = false;
      for (std::int64_t j = 0; j < k && !found; ++j) found = matches(row, to + j * 6);
      EXPECT_TRUE(found) << what << ": " << side << " row " << i << " (class " << row[5]
                         << ", score " << row[4] << ", box " << row[0] << "," << row[1] << ","
                         << row[2] << "," << row[3] << ") has no match on the other side";
    }
    return confident;
  };
  EXPECT_GT(check_side(golden.data(), ours, "golden"), 0) << what << ": no confident rows";
  check_side(ours, golden.data(), "our");
}

std::map<std::string, std::unique_ptr<Engine>>& engines() {
  static std::map<std::string, std::unique_ptr<Engine>> cache;
  return cache;
}

Engine& engine_for(const std::string& model, int threads = 1) {
  auto& e = engines()[model];
  if (!e) {
    EngineOptions options;
    options.threads = threads;
    e = Engine::load(yolo::test::fixtures_dir() / "models" / model, options);
  }
  e->set_threads(threads);
  return *e;
}

void run_case(const GoldenCase& c, const std::string& model, int threads) {
  const auto dir = yolo::test::fixtures_dir() / "golden";
  int width = 0, height = 0;
  const auto rgb = yolo::test::read_rgb(dir / c.input_png, width, height);
  ASSERT_FALSE(rgb.empty()) << "cannot read " << c.input_png;
  Engine& engine = engine_for(model, threads);
  write_input(engine, rgb, width, height);
  engine.run();
  ASSERT_GE(engine.output_count(), 1U);
  EXPECT_EQ(engine.output_name(0), "output0");
  const Tensor& out = engine.output(0);
  ASSERT_EQ(out.shape(), c.dims);
  const auto golden = read_f32(dir / c.output_file);
  ASSERT_EQ(static_cast<std::int64_t>(golden.size()), out.size());
  const std::string what =
      model + " on " + c.input_png + " (" + std::to_string(threads) + " threads)";
  if (c.dims.size() == 3 && c.dims[2] == 6)
    expect_end2end_close(out, golden, what);
  else
    expect_dense_close(out, golden, what);
}

std::string int8_model(const std::string& fp32) {
  const auto pos = fp32.find("_fp32");
  return fp32.substr(0, pos) + "_int8dyn" + fp32.substr(pos + 5);
}

// Every image is the same operators on other data: under QEMU (a case takes 30-40 s there) one
// image per model proves the Arm kernels, the native run checks all four.
bool runs_here(const GoldenCase& c) {
  return !test::kEmulated || c.input_png.find("__dog") != std::string::npos;
}

TEST(GoldenEngine, AllFp32CasesMatchOnnxRuntime) {
  YOLO_REQUIRE_FIXTURES();
  const auto cases = golden_cases();
  ASSERT_EQ(cases.size(), 12U);
  int ran = 0;
  for (const auto& c : cases) {
    if (!runs_here(c)) continue;
    SCOPED_TRACE(c.model + " " + c.input_png);
    run_case(c, c.model, 1);
    ++ran;
  }
  EXPECT_EQ(ran, test::kEmulated ? 3 : 12);
}

TEST(GoldenEngine, DynamicInt8ModelsMatchTheirFp32Rebuilds) {
  YOLO_REQUIRE_FIXTURES();
  int ran = 0;
  for (const auto& c : golden_cases()) {
    if (!runs_here(c)) continue;
    SCOPED_TRACE(c.model + " " + c.input_png);
    run_case(c, int8_model(c.model), 1);
    ++ran;
  }
  EXPECT_EQ(ran, test::kEmulated ? 3 : 12);
}

TEST(GoldenEngine, TwoThreadsMatchOneAndSwitchingBetweenRunsWorks) {
  YOLO_REQUIRE_FIXTURES();
  for (const auto& c : golden_cases()) {
    if (c.input_png.find("__dog") == std::string::npos) continue;
    SCOPED_TRACE(c.model);
    run_case(c, c.model, 2);
    const Tensor two = [&] {
      const Tensor& o = engine_for(c.model, 2).output(0);
      Tensor copy(o.dtype(), o.shape());
      std::memcpy(copy.data(), o.data(), o.bytes());
      return copy;
    }();
    run_case(c, c.model, 1);
    const Tensor& one = engine_for(c.model, 1).output(0);
    int differ = 0;
    for (std::int64_t i = 0; i < one.size(); ++i) {
      if (std::fabs(one.data_as<float>()[i] - two.data_as<float>()[i]) > 1e-4F) ++differ;
    }
    EXPECT_EQ(differ, 0) << "1 and 2 threads differ in " << differ << " values";
  }
}

TEST(GoldenEngine, LoadLogExplainsDynamicInt8Folding) {
  YOLO_REQUIRE_FIXTURES();
  if (yolo::test::kEmulated) {
    GTEST_SKIP() << "the fold and the line it logs are the same on any CPU (tested natively); "
                    "loading yolov8n takes minutes under QEMU";
  }
  std::vector<std::string> lines;
  EngineOptions options;
  options.log = [&](const std::string& line) { lines.push_back(line); };
  Engine::load(yolo::test::fixtures_dir() / "models" / "yolov8n_640_int8dyn.onnx", options);
  bool said = false;
  for (const auto& l : lines) {
    if (l.find("folded 64 DynamicQuantizeLinear -> ConvInteger") != std::string::npos &&
        l.find("yolo-edge quantize") != std::string::npos) {
      said = true;
    }
  }
  EXPECT_TRUE(said) << "load log: " << (lines.empty() ? "(empty)" : lines.front());
}

}  // namespace
}  // namespace yolo::runtime
