// SPDX-License-Identifier: Apache-2.0
#pragma once

// The golden cases of ../shared/fixtures/golden/index.json, read for the letterbox and decode
// tests.
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/fixtures.h"
#include "vision/detection.h"

namespace yolo::test {

struct GoldenCase {
  std::string name;  // "yolov8n_640_fp32__dog"
  std::filesystem::path image;
  std::filesystem::path input_png;
  std::filesystem::path output_file;
  std::vector<std::int64_t> output_dims;
  int size = 0;
  double scale = 0;
  int pad_left = 0;
  int pad_top = 0;
  vision::Detections detections;
};

inline std::vector<GoldenCase> golden_cases() {
  const auto dir = fixtures_dir() / "golden";
  std::ifstream in(dir / "index.json");
  const auto index = nlohmann::json::parse(in);
  std::vector<GoldenCase> cases;
  for (const auto& c : index.at("cases")) {
    GoldenCase g;
    g.input_png = dir / c.at("input_png").get<std::string>();
    g.name = g.input_png.filename().string();
    g.name = g.name.substr(0, g.name.find(".input.png"));
    g.image = fixtures_dir() / c.at("image").get<std::string>();
    g.output_file = dir / c.at("output").at("file").get<std::string>();
    g.output_dims = c.at("output").at("dims").get<std::vector<std::int64_t>>();
    const auto& lb = c.at("letterbox");
    g.size = lb.at("size").get<int>();
    g.scale = lb.at("scale").get<double>();
    g.pad_left = lb.at("pad_left").get<int>();
    g.pad_top = lb.at("pad_top").get<int>();
    for (const auto& d : c.at("detections_conf0.25_iou0.45")) {
      const auto box = d.at("box").get<std::vector<float>>();
      g.detections.push_back(
          {d.at("class").get<int>(), d.at("score").get<float>(), {box[0], box[1], box[2], box[3]}});
    }
    cases.push_back(std::move(g));
  }
  return cases;
}

// The raw little-endian float32 output tensor of a case.
inline std::vector<float> read_floats(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::vector<float> values(std::filesystem::file_size(file) / sizeof(float));
  in.read(reinterpret_cast<char*>(values.data()),
          static_cast<std::streamsize>(values.size() * sizeof(float)));
  return values;
}

}  // namespace yolo::test
