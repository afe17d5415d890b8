// SPDX-License-Identifier: Apache-2.0
#include "runtime/kernels/tensor_ref.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "runtime/kernels/detail.h"

namespace yolo::runtime::kernels {

std::int64_t normalize_axis(std::int64_t axis, std::int64_t rank, const char* op) {
  if (axis < -rank || axis >= rank) {
    detail::fail(op, "axis " + std::to_string(axis) + " is out of range for rank " +
                         std::to_string(rank) + " (valid: " + std::to_string(-rank) + ".." +
                         std::to_string(rank - 1) + ")");
  }
  return axis < 0 ? axis + rank : axis;
}

std::vector<std::int64_t> read_int64_values(ConstTensorRef t, const char* op) {
  const auto n = static_cast<std::size_t>(t.size());
  if (t.dtype == DType::kInt64) return {t.as<std::int64_t>(), t.as<std::int64_t>() + n};
  if (t.dtype == DType::kInt32) return {t.as<std::int32_t>(), t.as<std::int32_t>() + n};
  detail::fail(op, std::string("expected an int64 or int32 tensor, got ") + dtype_name(t.dtype));
}

void check_dtype(ConstTensorRef t, DType expected, const char* op, const char* what) {
  if (t.dtype != expected) {
    detail::fail(op, std::string(what) + " has dtype " + dtype_name(t.dtype) + ", expected " +
                         dtype_name(expected));
  }
}

void check_shape(ConstTensorRef t, std::span<const std::int64_t> expected, const char* op,
                 const char* what) {
  if (!std::ranges::equal(t.shape, expected)) {
    detail::fail(op, std::string(what) + " has shape " + shape_text(t.shape) + ", expected " +
                         shape_text(expected));
  }
}

void copy(ConstTensorRef in, TensorRef out, const char* op) {
  check_dtype(out, in.dtype, op, "output");
  if (in.size() != out.size()) {
    detail::fail(op, "output " + shape_text(out.shape) +
                         " has a different element count than input " + shape_text(in.shape));
  }
  if (in.data != out.data && in.size() > 0) {
    std::memcpy(out.data, in.data, static_cast<std::size_t>(in.size()) * dtype_size(in.dtype));
  }
}

namespace detail {

std::vector<std::int64_t> contiguous_strides(std::span<const std::int64_t> shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return strides;
}

BroadcastPlan make_broadcast_plan(std::span<const std::span<const std::int64_t>> inputs,
                                  std::span<const std::int64_t> out) {
  BroadcastPlan plan;
  plan.inputs = static_cast<int>(inputs.size());
  const std::size_t rank = out.size();
  // Full-rank strides per input, 0 along broadcast dims.
  std::vector<std::int64_t> full[BroadcastPlan::kMaxInputs];
  for (int i = 0; i < plan.inputs; ++i) {
    const auto& in = inputs[static_cast<std::size_t>(i)];
    full[i].assign(rank, 0);
    const std::size_t lead = rank - in.size();
    std::int64_t stride = 1;
    for (std::size_t d = in.size(); d-- > 0;) {
      full[i][lead + d] = in[d] == 1 ? 0 : stride;
      stride *= in[d];
    }
  }
  // Drop size-1 output dims, then merge neighbours where every input is contiguous across them.
  for (std::size_t d = 0; d < rank; ++d) {
    if (out[d] == 1) continue;
    if (!plan.shape.empty()) {
      const std::int64_t inner = out[d];
      bool mergeable = true;
      for (int i = 0; i < plan.inputs; ++i) {
        if (plan.strides[i].back() != full[i][d] * inner) mergeable = false;
      }
      if (mergeable) {
        plan.shape.back() *= inner;
        for (int i = 0; i < plan.inputs; ++i) plan.strides[i].back() = full[i][d];
        continue;
      }
    }
    plan.shape.push_back(out[d]);
    for (int i = 0; i < plan.inputs; ++i) plan.strides[i].push_back(full[i][d]);
  }
  return plan;
}

}  // namespace detail
}  // namespace yolo::runtime::kernels
