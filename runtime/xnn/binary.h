// SPDX-License-Identifier: Apache-2.0
#pragma once

// Elementwise binary ops with numpy broadcasting on XNNPACK (up to 6 dimensions), float.

#include <cstddef>
#include <limits>
#include <span>
#include <string>

#include "runtime/xnn/xnn_operator.h"

namespace yolo::runtime::xnn {

enum class BinaryOp { kAdd, kSubtract, kMultiply, kDivide, kMinimum, kMaximum };

// The largest rank XNNPACK broadcasts (XNN_MAX_TENSOR_DIMS).
inline constexpr size_t kMaxBinaryRank = XNN_MAX_TENSOR_DIMS;

// out = clamp(a <op> b, output_min, output_max) with numpy broadcasting; dense row-major tensors.
// Minimum and Maximum take no clamp (std::invalid_argument if one is given).
class BinaryF32 {
 public:
  BinaryF32(BinaryOp op, std::string name,
            float output_min = -std::numeric_limits<float>::infinity(),
            float output_max = std::numeric_limits<float>::infinity());

  // Shapes of a and b (rank 0..6 each; a rank-0 shape is a scalar); `out` must hold the
  // broadcast shape. Throws std::invalid_argument for a rank above 6 or shapes that do not
  // broadcast, std::runtime_error if XNNPACK rejects the setup.
  void setup(std::span<const size_t> a_shape, std::span<const size_t> b_shape, const float* a,
             const float* b, float* out, pthreadpool_t pool);
  void run(pthreadpool_t pool) const { op_.run(pool); }

  BinaryOp op() const { return op_type_; }

 private:
  BinaryOp op_type_;
  Operator op_;
};

}  // namespace yolo::runtime::xnn
