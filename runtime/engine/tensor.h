// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "runtime/engine/shape_text.h"

namespace yolo::runtime {

// Element types the runtime computes with. ONNX types outside this set are rejected at load.
enum class DType : std::uint8_t { kFloat32, kInt64, kInt32, kInt8, kUInt8, kBool };

std::size_t dtype_size(DType type);
const char* dtype_name(DType type);

using Shape = std::vector<std::int64_t>;

// Number of elements in a shape (1 for a scalar, the empty shape).
std::int64_t element_count(std::span<const std::int64_t> shape);

// An owning, row-major tensor with 64-byte aligned storage, used for constants, folded values
// and outputs handed to callers. Activations during a run live in the engine's arena instead.
class Tensor {
 public:
  Tensor() = default;
  Tensor(DType type, Shape shape);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  std::int64_t size() const { return element_count(shape_); }
  std::size_t bytes() const { return static_cast<std::size_t>(size()) * dtype_size(dtype_); }

  void* data() { return data_.get(); }
  const void* data() const { return data_.get(); }
  template <typename T>
  T* data_as() {
    return static_cast<T*>(data());
  }
  template <typename T>
  const T* data_as() const {
    return static_cast<const T*>(data());
  }
  template <typename T>
  std::span<T> values() {
    return {data_as<T>(), static_cast<std::size_t>(size())};
  }
  template <typename T>
  std::span<const T> values() const {
    return {data_as<T>(), static_cast<std::size_t>(size())};
  }

  // Same element count, new shape (no copy).
  void reshape(Shape shape);

 private:
  struct Free {
    void operator()(void* p) const;
  };
  DType dtype_ = DType::kFloat32;
  Shape shape_;
  std::unique_ptr<void, Free> data_;
};

}  // namespace yolo::runtime
