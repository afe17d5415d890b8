// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>

#include "runtime/kernels/tensor_ref.h"

namespace yolo::runtime::kernels {

// Round half to even regardless of the current rounding mode, as QuantizeLinear rounds.
float round_half_even(float x);

// Per-tensor uint8 quantization parameters as DynamicQuantizeLinear computes them: the range is
// [min(0, min x), max(0, max x)], scale = range / 255 (1 when the range is empty, as ONNX Runtime
// does), zero_point = round-half-even(clamp(-min / scale, 0, 255)).
struct DynamicQuantParams {
  float scale = 1.0F;
  std::uint8_t zero_point = 0;
};
DynamicQuantParams dynamic_quant_params(ConstTensorRef x);

// DynamicQuantizeLinear: y (uint8, x's shape) = saturate(round-half-even(x / scale) + zero_point);
// returns the parameters for the op's scalar scale and zero-point outputs.
DynamicQuantParams dynamic_quantize_linear(ConstTensorRef x, TensorRef y);

// QuantizeLinear: float32 x to y (int8 or uint8, the zero point's type when given) with
// y = saturate(round-half-even(x / scale) + zero_point). scale is a float32 scalar (per tensor) or
// 1-D of x.shape[axis] (per axis); zero_point the same shape as scale, or absent (0).
void quantize_linear(ConstTensorRef x, ConstTensorRef scale,
                     std::optional<ConstTensorRef> zero_point, std::int64_t axis, TensorRef y);

// DequantizeLinear: int8, uint8 or int32 x to float32 y = (x - zero_point) * scale, with the same
// per-tensor / per-axis rules.
void dequantize_linear(ConstTensorRef x, ConstTensorRef scale,
                       std::optional<ConstTensorRef> zero_point, std::int64_t axis, TensorRef y);

}  // namespace yolo::runtime::kernels
