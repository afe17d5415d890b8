// SPDX-License-Identifier: Apache-2.0
#pragma once

// INT8 operators for the quantised models: per-channel int8 convolution, int8 add / subtract /
// multiply with broadcasting, int8 max pooling (XNNPACK), and a 256-entry lookup table for any
// elementwise function on int8 (SiLU, sigmoid, ...). Activations are signed int8 with one
// QuantParams per tensor; weights are symmetric int8 with one scale per output channel.

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "runtime/xnn/binary.h"
#include "runtime/xnn/convolution.h"
#include "runtime/xnn/pooling.h"
#include "runtime/xnn/xnn_operator.h"

namespace yolo::runtime::xnn {

// Conv geometry and layout come from `geometry` (its float output_min/max must stay at +-inf);
// the int8 clamp below is where a fused Relu goes (output_min = output zero point).
struct Conv2dQC8Params {
  Conv2dParams geometry;
  QuantParams input;
  QuantParams output;
  int8_t output_min = INT8_MIN;
  int8_t output_max = INT8_MAX;
};

// out = clamp(round(sum((x - input.zero_point) * w) + bias) * input.scale * weight_scale[oc] /
//       output.scale) + output.zero_point). Weights packed once at construction.
// params() is the geometry.
class Conv2dQC8 : public WindowOperator<Conv2dParams> {
 public:
  // `weights` int8 in ONNX OIHW order, `weight_scales` one per output channel (> 0), `bias`
  // int32 in units of input.scale * weight_scales[oc], or empty. XNNPACK requires each
  // input.scale * weight_scale / output.scale in [2^-32, 256); outside it std::runtime_error.
  Conv2dQC8(const Conv2dQC8Params& params, std::span<const int8_t> weights,
            std::span<const float> weight_scales, std::span<const int32_t> bias, std::string name);

  void setup(size_t batch, size_t height, size_t width, const int8_t* input, int8_t* output,
             pthreadpool_t pool);
};

// Add, Subtract or Multiply of int8 tensors with numpy broadcasting up to 6-D (as BinaryF32);
// each operand and the output have their own QuantParams. Division, Minimum and Maximum are not
// offered by XNNPACK for int8 (std::invalid_argument).
class BinaryQS8 {
 public:
  BinaryQS8(BinaryOp op, QuantParams a, QuantParams b, QuantParams output, std::string name,
            int8_t output_min = INT8_MIN, int8_t output_max = INT8_MAX);

  void setup(std::span<const size_t> a_shape, std::span<const size_t> b_shape, const int8_t* a,
             const int8_t* b, int8_t* out, pthreadpool_t pool);
  void run(pthreadpool_t pool) const { op_.run(pool); }

 private:
  BinaryOp op_type_;
  Operator op_;
};

// Max pooling on int8 (the quantisation is unchanged by a max); same geometry rules as
// MaxPool2dF32, whose float clamp must stay at +-inf.
class MaxPool2dS8 : public WindowOperator<Pool2dParams> {
 public:
  MaxPool2dS8(const Pool2dParams& params, std::string name);

  void setup(size_t batch, size_t height, size_t width, const int8_t* input, int8_t* output,
             pthreadpool_t pool);
};

// Any elementwise function on int8 as a 256-entry table: built once from the float function
// and the input/output quantisation, applied per value with row strides like silu_f32.
class LookupTableS8 {
 public:
  // table[q + 128] = quantize(f(dequantize(q))), rounding to nearest and saturating.
  LookupTableS8(QuantParams input, QuantParams output, const std::function<float(float)>& f);
  // A table made elsewhere, indexed by the input's raw byte (as by_byte()).
  explicit LookupTableS8(const std::array<int8_t, 256>& by_byte);

  // output[p * output_stride + c] = table[input[p * input_stride + c] + 128]; in place allowed.
  void run(size_t pixels, size_t channels, const int8_t* input, size_t input_stride, int8_t* output,
           size_t output_stride, pthreadpool_t pool) const;

  const std::array<int8_t, 256>& table() const { return table_; }
  // The same table indexed by the input's raw byte (uint8_t(q)).
  const std::array<int8_t, 256>& by_byte() const { return by_byte_; }

 private:
  std::array<int8_t, 256> table_{};
  std::array<int8_t, 256> by_byte_{};  // so the inner loop needs no +128
};

}  // namespace yolo::runtime::xnn
