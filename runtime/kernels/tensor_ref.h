// SPDX-License-Identifier: Apache-2.0
#pragma once

// Non-owning tensor views the kernels read and write. The engine points them into its arena (or at
// a Tensor's storage for constant folding); the kernels never allocate their outputs.
//
// Conventions shared by every kernel in runtime/kernels/:
// - Data is row-major (C order) and contiguous unless a function says it takes strides.
// - The caller computes the output shape with the matching *_shape() function and allocates the
//   output; kernels check that the output's dtype and shape agree and throw otherwise.
// - Invalid arguments throw std::invalid_argument whose message starts with the ONNX op name and
//   names the offending value ("Gather: axis 3 out of range for rank 2"); the engine adds the node.
// - Axes may be negative (counted from the back) wherever ONNX allows it.

#include <cstdint>
#include <span>
#include <vector>

#include "runtime/engine/tensor.h"

namespace yolo::runtime::kernels {

struct ConstTensorRef {
  DType dtype = DType::kFloat32;
  std::span<const std::int64_t> shape;
  const void* data = nullptr;

  ConstTensorRef() = default;
  ConstTensorRef(DType type, std::span<const std::int64_t> dims, const void* ptr)
      : dtype(type), shape(dims), data(ptr) {}
  // Views a Tensor, which must outlive the view.
  ConstTensorRef(const Tensor& t)  // NOLINT(google-explicit-constructor): views convert freely
      : dtype(t.dtype()), shape(t.shape()), data(t.data()) {}

  std::int64_t size() const { return element_count(shape); }
  std::int64_t rank() const { return static_cast<std::int64_t>(shape.size()); }
  template <typename T>
  const T* as() const {
    return static_cast<const T*>(data);
  }
};

struct TensorRef {
  DType dtype = DType::kFloat32;
  std::span<const std::int64_t> shape;
  void* data = nullptr;

  TensorRef() = default;
  TensorRef(DType type, std::span<const std::int64_t> dims, void* ptr)
      : dtype(type), shape(dims), data(ptr) {}
  TensorRef(Tensor& t)  // NOLINT(google-explicit-constructor): views convert freely
      : dtype(t.dtype()), shape(t.shape()), data(t.data()) {}

  std::int64_t size() const { return element_count(shape); }
  std::int64_t rank() const { return static_cast<std::int64_t>(shape.size()); }
  template <typename T>
  T* as() const {
    return static_cast<T*>(data);
  }
  operator ConstTensorRef() const {  // NOLINT(google-explicit-constructor)
    return {dtype, shape, data};
  }
};

// Maps axis in [-rank, rank) to [0, rank); throws naming op, the axis and the rank otherwise.
std::int64_t normalize_axis(std::int64_t axis, std::int64_t rank, const char* op);

// The values of an int64 or int32 tensor (an ONNX "axes", "shape", "k", "starts"... input) as
// int64.
std::vector<std::int64_t> read_int64_values(ConstTensorRef t, const char* op);

// Throws unless t.dtype is `expected`, naming op and `what` ("input", "output", "indices"...).
void check_dtype(ConstTensorRef t, DType expected, const char* op, const char* what);
// Throws unless t.shape equals `expected`, naming op and `what`.
void check_shape(ConstTensorRef t, std::span<const std::int64_t> expected, const char* op,
                 const char* what);

// Copies in to out (same dtype and element count; shapes may differ, as for Reshape, Flatten,
// Squeeze, Unsqueeze and Identity when the engine cannot alias them). Overlap is not allowed.
void copy(ConstTensorRef in, TensorRef out, const char* op);

}  // namespace yolo::runtime::kernels
