// SPDX-License-Identifier: Apache-2.0
#pragma once

// Runs small QDQ models in tests the two ways the engine can: precision int8 (the int8 steps) and
// precision fp32 (the Q/DQ nodes executed as float ops: the fake-quant reference), on one fixed
// pseudo-random image, and compares their outputs in quantization steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "runtime/engine/engine.h"

namespace yolo::runtime {

// The test image: 3 x pixels bytes, interleaved RGB, from a fixed seed.
inline std::vector<std::uint8_t> test_image(std::size_t pixels) {
  std::mt19937 rng(7);
  std::vector<std::uint8_t> image(pixels * 3);
  for (auto& v : image) v = static_cast<std::uint8_t>(rng() & 0xFF);
  return image;
}

// The same image as the float32 NCHW tensor (value / 255) a model's input takes.
inline std::vector<float> test_image_nchw(std::size_t pixels) {
  const auto image = test_image(pixels);
  std::vector<float> tensor(pixels * 3);
  for (std::size_t p = 0; p < pixels; ++p) {
    for (std::size_t c = 0; c < 3; ++c) {
      tensor[c * pixels + p] = static_cast<float>(image[p * 3 + c]) / 255.0F;
    }
  }
  return tensor;
}

struct Result {
  std::vector<std::vector<float>> outputs;
  std::vector<std::string> names;
  std::vector<Shape> shapes;
  Engine::Stats stats;
  std::string log;
  InputLayout layout;
};

// Runs the model on the test image (given as uint8 when the engine asks).
inline Result run_model(const std::filesystem::path& path, Precision precision) {
  EngineOptions options;
  options.precision = precision;
  Result r;
  options.log = [&](const std::string& line) { r.log += line + "\n"; };
  auto engine = Engine::load(path, options);
  r.layout = engine->input_layout();
  const auto pixels = static_cast<std::size_t>(engine->input_width()) *
                      static_cast<std::size_t>(engine->input_height());
  const auto image = test_image(pixels);
  if (r.layout == InputLayout::kNhwcUint8) {
    std::memcpy(engine->input_data(), image.data(), image.size());
  } else {
    auto* dst = static_cast<float*>(engine->input_data());
    const auto nchw = test_image_nchw(pixels);
    for (std::size_t p = 0; p < pixels; ++p) {
      for (std::size_t c = 0; c < 3; ++c) {
        const float v = nchw[c * pixels + p];
        if (r.layout == InputLayout::kNhwcFloat) {
          dst[p * 3 + c] = v;
        } else {
          dst[c * pixels + p] = v;
        }
      }
    }
  }
  engine->run();
  for (std::size_t i = 0; i < engine->output_count(); ++i) {
    const auto v = engine->output(i).values<float>();
    r.outputs.emplace_back(v.begin(), v.end());
    r.names.push_back(engine->output_name(i));
    r.shapes.push_back(engine->output(i).shape());
  }
  r.stats = engine->stats();
  return r;
}

// How far two outputs are apart, in quantization steps of the output.
struct StepDifferences {
  std::size_t values = 0;
  std::size_t off_by_one = 0;  // values exactly one step apart
  std::size_t beyond_one = 0;  // values more than one step apart
  double worst = 0;            // the largest difference, in steps
};

inline StepDifferences step_differences(const std::vector<float>& x, const std::vector<float>& y,
                                        float step) {
  EXPECT_EQ(x.size(), y.size());
  StepDifferences d;
  d.values = std::min(x.size(), y.size());
  for (std::size_t k = 0; k < d.values; ++k) {
    const double steps = std::abs(static_cast<double>(x[k]) - y[k]) / step;
    d.worst = std::max(d.worst, steps);
    if (steps > 1.5) {
      ++d.beyond_one;
    } else if (steps > 0.5) {
      ++d.off_by_one;
    }
  }
  return d;
}

inline std::ostream& operator<<(std::ostream& out, const StepDifferences& d) {
  return out << d.values << " values: " << d.off_by_one << " one step apart, " << d.beyond_one
             << " further (worst " << d.worst << " steps)";
}

// Largest |a - b| over two runs' output i, in units of `step`.
inline double max_steps(const Result& a, const Result& b, std::size_t i, float step) {
  return step_differences(a.outputs.at(i), b.outputs.at(i), step).worst;
}

}  // namespace yolo::runtime
