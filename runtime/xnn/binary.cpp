// SPDX-License-Identifier: Apache-2.0
#include "runtime/xnn/binary.h"

#include <algorithm>
#include <stdexcept>

#include "runtime/engine/shape_text.h"

namespace yolo::runtime::xnn {

namespace {

const char* op_label(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return "add";
    case BinaryOp::kSubtract:
      return "subtract";
    case BinaryOp::kMultiply:
      return "multiply";
    case BinaryOp::kDivide:
      return "divide";
    case BinaryOp::kMinimum:
      return "minimum";
    case BinaryOp::kMaximum:
      return "maximum";
  }
  return "binary";
}

}  // namespace

BinaryF32::BinaryF32(BinaryOp op, std::string name, float output_min, float output_max)
    : op_type_(op) {
  const bool clamped = output_min != -std::numeric_limits<float>::infinity() ||
                       output_max != std::numeric_limits<float>::infinity();
  if ((op == BinaryOp::kMinimum || op == BinaryOp::kMaximum) && clamped) {
    throw std::invalid_argument("'" + name + "': " + op_label(op) + " takes no output clamp");
  }
  if (!(output_min < output_max)) {
    throw std::invalid_argument("'" + name + "': output clamp min must be below max");
  }
  const std::string what = std::string(op_label(op)) + " create";
  op_ = create_operator(std::move(name), what, [&](xnn_operator_t* out) {
    switch (op) {
      case BinaryOp::kAdd:
        return xnn_create_add_nd_f32(output_min, output_max, 0, out);
      case BinaryOp::kSubtract:
        return xnn_create_subtract_nd_f32(output_min, output_max, 0, out);
      case BinaryOp::kMultiply:
        return xnn_create_multiply_nd_f32(output_min, output_max, 0, out);
      case BinaryOp::kDivide:
        return xnn_create_divide_nd_f32(output_min, output_max, 0, out);
      case BinaryOp::kMinimum:
        return xnn_create_minimum_nd_f32(0, out);
      case BinaryOp::kMaximum:
        return xnn_create_maximum_nd_f32(0, out);
    }
    return xnn_status_invalid_parameter;
  });
}

void BinaryF32::setup(std::span<const size_t> a_shape, std::span<const size_t> b_shape,
                      const float* a, const float* b, float* out, pthreadpool_t pool) {
  const std::string shapes = shape_text(a_shape) + " and " + shape_text(b_shape);
  if (a_shape.size() > kMaxBinaryRank || b_shape.size() > kMaxBinaryRank) {
    throw std::invalid_argument("'" + op_.name() + "': " + op_label(op_type_) + " of " + shapes +
                                ": rank above " + std::to_string(kMaxBinaryRank) +
                                " is not supported");
  }
  // Numpy rule, aligned at the last axis: equal sizes, or one of them is 1.
  const size_t rank = std::max(a_shape.size(), b_shape.size());
  for (size_t i = 1; i <= rank; ++i) {
    const size_t da = i <= a_shape.size() ? a_shape[a_shape.size() - i] : 1;
    const size_t db = i <= b_shape.size() ? b_shape[b_shape.size() - i] : 1;
    if (da != db && da != 1 && db != 1) {
      throw std::invalid_argument("'" + op_.name() + "': " + op_label(op_type_) + " of " + shapes +
                                  ": shapes do not broadcast");
    }
  }
  const std::string what = std::string(op_label(op_type_)) + " setup";
  const xnn_status status = [&] {
    switch (op_type_) {
      case BinaryOp::kAdd:
        return xnn_setup_add_nd_f32(op_.get(), a_shape.size(), a_shape.data(), b_shape.size(),
                                    b_shape.data(), a, b, out, pool);
      case BinaryOp::kSubtract:
        return xnn_setup_subtract_nd_f32(op_.get(), a_shape.size(), a_shape.data(), b_shape.size(),
                                         b_shape.data(), a, b, out, pool);
      case BinaryOp::kMultiply:
        return xnn_setup_multiply_nd_f32(op_.get(), a_shape.size(), a_shape.data(), b_shape.size(),
                                         b_shape.data(), a, b, out, pool);
      case BinaryOp::kDivide:
        return xnn_setup_divide_nd_f32(op_.get(), a_shape.size(), a_shape.data(), b_shape.size(),
                                       b_shape.data(), a, b, out, pool);
      case BinaryOp::kMinimum:
        return xnn_setup_minimum_nd_f32(op_.get(), a_shape.size(), a_shape.data(), b_shape.size(),
                                        b_shape.data(), a, b, out, pool);
      case BinaryOp::kMaximum:
        return xnn_setup_maximum_nd_f32(op_.get(), a_shape.size(), a_shape.data(), b_shape.size(),
                                        b_shape.data(), a, b, out, pool);
    }
    return xnn_status_invalid_parameter;
  }();
  check(status, what, op_.name() + " (" + shapes + ")");
}

}  // namespace yolo::runtime::xnn
