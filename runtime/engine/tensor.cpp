// SPDX-License-Identifier: Apache-2.0
#include "runtime/engine/tensor.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

namespace yolo::runtime {

std::size_t dtype_size(DType type) {
  switch (type) {
    case DType::kFloat32:
    case DType::kInt32:
      return 4;
    case DType::kInt64:
      return 8;
    case DType::kInt8:
    case DType::kUInt8:
    case DType::kBool:
      return 1;
  }
  return 0;
}

const char* dtype_name(DType type) {
  switch (type) {
    case DType::kFloat32:
      return "float32";
    case DType::kInt64:
      return "int64";
    case DType::kInt32:
      return "int32";
    case DType::kInt8:
      return "int8";
    case DType::kUInt8:
      return "uint8";
    case DType::kBool:
      return "bool";
  }
  return "?";
}

std::int64_t element_count(std::span<const std::int64_t> shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

void Tensor::Free::operator()(void* p) const {
  std::free(p);
}

Tensor::Tensor(DType type, Shape shape) : dtype_(type), shape_(std::move(shape)) {
  for (auto d : shape_) {
    if (d < 0) throw std::invalid_argument("tensor shape " + shape_text(shape_) + " is negative");
  }
  // Round up so that XNNPACK may read up to 16 bytes past the end, as its kernels are allowed to.
  const std::size_t n = (bytes() + 16 + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, n);
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, n);
  data_.reset(p);
}

void Tensor::reshape(Shape shape) {
  if (element_count(shape) != size()) {
    throw std::invalid_argument("cannot reshape " + shape_text(shape_) + " to " +
                                shape_text(shape));
  }
  shape_ = std::move(shape);
}

}  // namespace yolo::runtime
