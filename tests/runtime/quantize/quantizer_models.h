// SPDX-License-Identifier: Apache-2.0
#pragma once

// The small models and file helpers the quantizer tests share (tests/runtime/quantize/ and
// tests/runtime/quantize/test_quantizer.cpp).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "runtime/engine/engine.h"
#include "runtime/model/model_info.h"
#include "runtime/quantize/fp32_trade.h"
#include "runtime/quantize/graph_index.h"
#include "runtime/quantize/model_file.h"
#include "runtime/quantize/opset13.h"
#include "runtime/quantize/qdq_rewrite.h"
#include "runtime/quantize/quantizer.h"
#include "runtime/quantize/regions.h"
#include "tests/runtime/test_model_builder.h"

namespace yolo::runtime::quantize_test {

using test::ModelBuilder;
namespace fs = std::filesystem;

// x -> Conv c1 (3->4, 3x3, bias) -> Sigmoid -> Mul (SiLU) -> Conv c2 (4->4, 1x1) ->
// Concat(silu, c2) -> Conv c3 (8->2, 1x1, bias) -> out
inline ModelBuilder tiny_model(int opset = 17) {
  ModelBuilder b(opset);
  b.input("x", {1, 3, 8, 8});
  b.random("w1", {4, 3, 3, 3}, 1).random("b1", {4}, 2);
  b.random("w2", {4, 4, 1, 1}, 3);
  b.random("w3", {2, 8, 1, 1}, 4).random("b3", {2}, 5);
  auto& c1 = b.node("Conv", {"x", "w1", "b1"}, {"y1"}, "c1");
  ModelBuilder::attr(c1, "pads", std::vector<std::int64_t>{1, 1, 1, 1});
  b.node("Sigmoid", {"y1"}, {"s1"}, "sig1");
  b.node("Mul", {"y1", "s1"}, {"m1"}, "mul1");
  b.node("Conv", {"m1", "w2"}, {"y2"}, "c2");
  auto& cat = b.node("Concat", {"m1", "y2"}, {"cat"}, "cat");
  ModelBuilder::attr(cat, "axis", std::int64_t{1});
  b.node("Conv", {"cat", "w3", "b3"}, {"out"}, "c3");
  b.output("out");
  return b;
}

inline std::map<std::string, ActivationRange> tiny_ranges() {
  return {{"y1", {-3.0F, 4.0F}}, {"s1", {0.0F, 1.0F}},   {"m1", {-0.28F, 4.0F}},
          {"y2", {-2.0F, 2.0F}}, {"cat", {-2.0F, 4.0F}}, {"out", {-5.0F, 5.0F}}};
}

inline const onnx::TensorProto* initializer(const onnx::ModelProto& m, const std::string& name) {
  for (const auto& t : m.graph().initializer()) {
    if (t.name() == name) return &t;
  }
  return nullptr;
}

template <typename T>
inline std::vector<T> values(const onnx::TensorProto& t) {
  std::vector<T> v(t.raw_data().size() / sizeof(T));
  std::memcpy(v.data(), t.raw_data().data(), t.raw_data().size());
  return v;
}

inline std::vector<float> floats(const onnx::TensorProto& t) {
  if (!t.raw_data().empty()) return values<float>(t);
  return {t.float_data().begin(), t.float_data().end()};
}

inline const onnx::NodeProto* node_named(const onnx::ModelProto& m, const std::string& name) {
  for (const auto& n : m.graph().node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

inline const onnx::NodeProto* producer(const onnx::ModelProto& m, const std::string& tensor) {
  for (const auto& n : m.graph().node()) {
    for (const auto& o : n.output()) {
      if (o == tensor) return &n;
    }
  }
  return nullptr;
}

// The QuantizeLinear of activation `t`: the one reading t (graph input and outputs) or the one
// feeding the DequantizeLinear that writes t (every other tensor).
inline const onnx::NodeProto* quantize_of(const onnx::ModelProto& m, const std::string& t) {
  for (const auto& n : m.graph().node()) {
    if (n.op_type() == "QuantizeLinear" && n.input(0) == t) return &n;
  }
  const onnx::NodeProto* dq = producer(m, t);
  if (!dq || dq->op_type() != "DequantizeLinear") return nullptr;
  return producer(m, dq->input(0));
}

inline float scale_of(const onnx::ModelProto& m, const std::string& t) {
  return values<float>(*initializer(m, quantize_of(m, t)->input(1))).at(0);
}

inline std::int8_t zero_point_of(const onnx::ModelProto& m, const std::string& t) {
  return values<std::int8_t>(*initializer(m, quantize_of(m, t)->input(2))).at(0);
}

inline std::size_t count_op(const onnx::ModelProto& m, const std::string& op) {
  return static_cast<std::size_t>(std::count_if(m.graph().node().begin(), m.graph().node().end(),
                                                [&](const auto& n) { return n.op_type() == op; }));
}

// A fresh empty folder under the temp dir, removed at the end of the test.
class TempFolder {
 public:
  explicit TempFolder(const std::string& tag)
      : path_(fs::temp_directory_path() /
              ("yolo_quant_" + tag + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempFolder() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, ec);
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(path_)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  fs::path path_;
};

// Frames of uniform noise in [0, 1], as many as asked.
inline FrameProvider noise_frames(int count, int* calls = nullptr) {
  auto rng = std::make_shared<std::mt19937>(7);
  auto left = std::make_shared<int>(count);
  return [=](InputLayout, int, int, std::span<float> dst) {
    if (calls) ++*calls;
    if ((*left)-- <= 0) return false;
    std::uniform_real_distribution<float> dist(0.0F, 1.0F);
    for (auto& v : dst) v = dist(*rng);
    return true;
  };
}

}  // namespace yolo::runtime::quantize_test
