// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "runtime/kernels/tensor_ref.h"

namespace yolo::runtime::kernels {

enum class PadMode : std::uint8_t { kConstant, kReflect, kEdge, kWrap };

// Parses the ONNX mode attribute ("constant", "reflect", "edge", "wrap"); throws otherwise.
PadMode pad_mode_from_string(const char* mode);

// Full pads [begin_0..begin_{r-1}, end_0..end_{r-1}] from Pad's pads and optional axes (opset 18):
// with axes, pads has 2 * axes.size() values for those axes and the rest are 0.
std::vector<std::int64_t> expand_pads(std::int64_t rank, std::span<const std::int64_t> pads,
                                      std::span<const std::int64_t> axes);

// out[i] = in[i] + begin_i + end_i; negative pads crop. Throws when a dim would go negative or
// reflect would need more than dim - 1 elements (edge/wrap on an empty dim).
Shape pad_shape(std::span<const std::int64_t> in, std::span<const std::int64_t> full_pads);

// Pad of any dtype; constant_value is converted to the dtype (only read in constant mode).
// Negative pads crop first, then reflect/edge/wrap pad the cropped region (ONNX Runtime's order).
void pad(ConstTensorRef in, std::span<const std::int64_t> full_pads, PadMode mode,
         double constant_value, TensorRef out);

}  // namespace yolo::runtime::kernels
