// SPDX-License-Identifier: Apache-2.0
#pragma once

// The small helpers the runtime's kernel and XNNPACK tests share: a seeded generator, random
// tensors, input buffers XNNPACK may read past, and the check of a kernel's std::invalid_argument.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/engine/tensor.h"
#include "runtime/xnn/xnn_operator.h"

namespace yolo::test {

// A test program's random source; each file keeps its own seed, so its cases reproduce.
class Random {
 public:
  explicit Random(std::uint32_t seed) : engine_(seed) {}
  std::mt19937& engine() { return engine_; }
  // A whole number in [lo, hi].
  std::int64_t pick(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(engine_);
  }
  // A float32 tensor of values uniform in [lo, hi).
  runtime::Tensor floats(runtime::Shape shape, float lo, float hi) {
    runtime::Tensor t(runtime::DType::kFloat32, std::move(shape));
    std::uniform_real_distribution<float> dist(lo, hi);
    for (auto& v : t.values<float>()) v = dist(engine_);
    return t;
  }

 private:
  std::mt19937 engine_;
};

// `n` values, with the kExtraInputBytes XNNPACK may read past the end of an input reserved.
template <typename T>
std::vector<T> xnn_input(std::size_t n, T value = T{}) {
  std::vector<T> v;
  v.reserve(n + runtime::xnn::kExtraInputBytes / sizeof(T));
  v.resize(n, value);
  return v;
}

// The multi-index of row-major element `flat` of `shape`.
inline std::vector<std::int64_t> unravel(std::int64_t flat, std::span<const std::int64_t> shape) {
  std::vector<std::int64_t> idx(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return idx;
}

// Element `i` of an int or float tensor, as a double.
inline double value_at(const runtime::Tensor& t, std::int64_t i) {
  switch (t.dtype()) {
    case runtime::DType::kFloat32:
      return t.data_as<float>()[i];
    case runtime::DType::kInt64:
      return static_cast<double>(t.data_as<std::int64_t>()[i]);
    case runtime::DType::kInt32:
      return t.data_as<std::int32_t>()[i];
    case runtime::DType::kInt8:
      return t.data_as<std::int8_t>()[i];
    default:
      return t.data_as<std::uint8_t>()[i];
  }
}

// Runs `f`, expecting a std::invalid_argument whose message mentions `needle`.
inline void expect_throws_naming(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "expected std::invalid_argument mentioning '" << needle << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

}  // namespace yolo::test
