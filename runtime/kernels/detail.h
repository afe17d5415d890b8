// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal helpers shared by the kernel sources: error formatting, dtype dispatch and the
// broadcast iteration. Not part of the kernels' public API.

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/kernels/tensor_ref.h"

// On loops the compiler vectorizes: one clone each for AVX-512 and AVX2 beside the x86-64 baseline
// (SSE2, 4 float lanes), the best the CPU runs chosen once when the program loads (GCC function
// multi-versioning). None enables FMA contraction (-std=c++20 turns it off), so every clone
// computes the same bits. On arm64 NEON is the baseline and the only choice.
#if defined(__x86_64__)
#define YOLO_KERNEL_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define YOLO_KERNEL_CLONES
#endif

namespace yolo::runtime::kernels::detail {

[[noreturn]] inline void fail(const char* op, const std::string& what) {
  throw std::invalid_argument(std::string(op) + ": " + what);
}

// Folds x[0, n) with `pick` (max, min, +) into kLanes partial results, which the compiler keeps in
// vector lanes, then the elements after the last whole group, then the lanes in order: one fixed
// order, so a sum has the same bits in every instruction-set clone of the caller, into which it is
// always inlined (each clone gets its own vector width).
template <int kLanes, typename Pick>
[[gnu::always_inline]] inline float fold_lanes(const float* x, std::int64_t n, float init,
                                               Pick pick) {
  float lanes[kLanes];
  for (float& lane : lanes) lane = init;
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) lanes[j] = pick(lanes[j], x[i + j]);
  }
  float acc = init;
  for (; i < n; ++i) acc = pick(acc, x[i]);
  for (const float lane : lanes) acc = pick(acc, lane);
  return acc;
}

// Calls f(T{}) with T the C++ type of a float32/int64/int32 dtype; throws for the others.
template <typename F>
decltype(auto) dispatch_numeric(DType type, const char* op, F&& f) {
  switch (type) {
    case DType::kFloat32:
      return f(float{});
    case DType::kInt64:
      return f(std::int64_t{});
    case DType::kInt32:
      return f(std::int32_t{});
    default:
      fail(op, std::string("unsupported dtype ") + dtype_name(type) +
                   " (float32, int64 or int32 expected)");
  }
}

// Calls f(T{}) with T the C++ type of any dtype; bool is read and written as uint8_t (0 or 1).
template <typename F>
decltype(auto) dispatch_all(DType type, F&& f) {
  switch (type) {
    case DType::kInt8:
      return f(std::int8_t{});
    case DType::kUInt8:
    case DType::kBool:
      return f(std::uint8_t{});
    default:
      return dispatch_numeric(type, "", f);
  }
}

// Calls f(U{}) with U an unsigned type of the dtype's width: for ops that only move elements.
template <typename F>
decltype(auto) dispatch_width(DType type, F&& f) {
  switch (dtype_size(type)) {
    case 8:
      return f(std::uint64_t{});
    case 4:
      return f(std::uint32_t{});
    default:
      return f(std::uint8_t{});
  }
}

// Iteration over an output shape with up to three broadcast inputs: dims are coalesced where every
// operand stays contiguous, then `block` runs once per innermost row.
struct BroadcastPlan {
  static constexpr int kMaxInputs = 3;
  int inputs = 0;
  std::vector<std::int64_t> shape;                // coalesced output dims
  std::vector<std::int64_t> strides[kMaxInputs];  // per input, per coalesced dim
};

// Builds the plan for inputs broadcasting to out (each input's shape must broadcast to it).
BroadcastPlan make_broadcast_plan(std::span<const std::span<const std::int64_t>> inputs,
                                  std::span<const std::int64_t> out);

// Calls block(offsets, count, inner_strides, out_offset) for each innermost row, where offsets
// are the inputs' element offsets at the row start and inner_strides their stride along it.
template <typename Block>
void for_each_row(const BroadcastPlan& plan, Block&& block) {
  const std::size_t rank = plan.shape.size();
  std::int64_t total = 1;
  for (auto d : plan.shape) total *= d;
  if (total == 0) return;
  std::int64_t offsets[BroadcastPlan::kMaxInputs] = {0, 0, 0};
  std::int64_t inner[BroadcastPlan::kMaxInputs] = {0, 0, 0};
  if (rank == 0) {
    block(offsets, std::int64_t{1}, inner, std::int64_t{0});
    return;
  }
  const std::int64_t row = plan.shape[rank - 1];
  for (int i = 0; i < plan.inputs; ++i) inner[i] = plan.strides[i][rank - 1];
  std::vector<std::int64_t> index(rank, 0);
  for (std::int64_t out = 0; out < total; out += row) {
    block(offsets, row, inner, out);
    for (std::size_t d = rank - 1; d-- > 0;) {
      ++index[d];
      for (int i = 0; i < plan.inputs; ++i) offsets[i] += plan.strides[i][d];
      if (index[d] < plan.shape[d]) break;
      for (int i = 0; i < plan.inputs; ++i) offsets[i] -= plan.strides[i][d] * plan.shape[d];
      index[d] = 0;
    }
  }
}

// Row-major strides of a shape.
std::vector<std::int64_t> contiguous_strides(std::span<const std::int64_t> shape);

}  // namespace yolo::runtime::kernels::detail
