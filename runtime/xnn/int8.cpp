// SPDX-License-Identifier: Apache-2.0
#include "runtime/xnn/int8.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "runtime/kernels/lookup_s8.h"
#include "runtime/xnn/conv_layout.h"

namespace yolo::runtime::xnn {

using detail::require;

namespace {

void require_unclamped(float min, float max, const std::string& name) {
  require(min == -std::numeric_limits<float>::infinity() &&
              max == std::numeric_limits<float>::infinity(),
          name, "an int8 operator takes its clamp as int8 output_min/max, not the float one");
}

}  // namespace

Conv2dQC8::Conv2dQC8(const Conv2dQC8Params& params, std::span<const int8_t> weights,
                     std::span<const float> weight_scales, std::span<const int32_t> bias,
                     std::string name)
    : WindowOperator(params.geometry) {
  Conv2dParams& p = params_;
  require_unclamped(p.output_min, p.output_max, name);
  detail::check_conv_params(p, weights.size(), bias.size(), name);
  require(weight_scales.size() == p.output_channels, name,
          "weight scales hold " + std::to_string(weight_scales.size()) + " values, expected " +
              std::to_string(p.output_channels));
  require(params.output_min < params.output_max, name, "int8 clamp min must be below max");
  const size_t group_in = p.input_channels / p.groups;
  const size_t group_out = p.output_channels / p.groups;
  const std::vector<int8_t> packed = detail::pack_conv_weights(p, weights);
  // XNNPACK reads a bias for every channel; none means zeros.
  const std::vector<int32_t> zero_bias(bias.empty() ? p.output_channels : 0, 0);
  op_ = create_operator(std::move(name), "int8 convolution create", [&](xnn_operator_t* out) {
    return xnn_create_convolution2d_nhwc_qc8(
        p.window.pad_top, p.window.pad_right, p.window.pad_bottom, p.window.pad_left,
        p.window.kernel_height, p.window.kernel_width, p.window.stride_height,
        p.window.stride_width, p.window.dilation_height, p.window.dilation_width, p.groups,
        group_in, group_out, p.input_pixel_stride, p.output_pixel_stride, params.input.zero_point,
        params.input.scale, weight_scales.data(), packed.data(),
        bias.empty() ? zero_bias.data() : bias.data(), params.output.zero_point,
        params.output.scale, params.output_min, params.output_max,
        detail::is_depthwise(p) ? XNN_FLAG_DEPTHWISE_CONVOLUTION : 0, out);
  });
}

void Conv2dQC8::setup(size_t batch, size_t height, size_t width, const int8_t* input,
                      int8_t* output, pthreadpool_t pool) {
  setup_operator(xnn_setup_convolution2d_nhwc_qc8, "int8 convolution setup", batch, height, width,
                 input, output, pool);
}

BinaryQS8::BinaryQS8(BinaryOp op, QuantParams a, QuantParams b, QuantParams output,
                     std::string name, int8_t output_min, int8_t output_max)
    : op_type_(op) {
  require(op == BinaryOp::kAdd || op == BinaryOp::kSubtract || op == BinaryOp::kMultiply, name,
          "int8 binary operators are add, subtract and multiply");
  require(output_min < output_max, name, "int8 clamp min must be below max");
  op_ = create_operator(std::move(name), "int8 binary create", [&](xnn_operator_t* out) {
    switch (op) {
      case BinaryOp::kAdd:
        return xnn_create_add_nd_qs8(a.zero_point, a.scale, b.zero_point, b.scale,
                                     output.zero_point, output.scale, output_min, output_max, 0,
                                     out);
      case BinaryOp::kSubtract:
        return xnn_create_subtract_nd_qs8(a.zero_point, a.scale, b.zero_point, b.scale,
                                          output.zero_point, output.scale, output_min, output_max,
                                          0, out);
      default:
        return xnn_create_multiply_nd_qs8(a.zero_point, a.scale, b.zero_point, b.scale,
                                          output.zero_point, output.scale, output_min, output_max,
                                          0, out);
    }
  });
}

void BinaryQS8::setup(std::span<const size_t> a_shape, std::span<const size_t> b_shape,
                      const int8_t* a, const int8_t* b, int8_t* out, pthreadpool_t pool) {
  require(a_shape.size() <= kMaxBinaryRank && b_shape.size() <= kMaxBinaryRank, op_.name(),
          "int8 binary operator of rank above " + std::to_string(kMaxBinaryRank));
  const auto setup = op_type_ == BinaryOp::kAdd        ? xnn_setup_add_nd_qs8
                     : op_type_ == BinaryOp::kSubtract ? xnn_setup_subtract_nd_qs8
                                                       : xnn_setup_multiply_nd_qs8;
  check(setup(op_.get(), a_shape.size(), a_shape.data(), b_shape.size(), b_shape.data(), a, b, out,
              pool),
        "int8 binary setup (shapes that do not broadcast?)", op_.name());
}

MaxPool2dS8::MaxPool2dS8(const Pool2dParams& params, std::string name) : WindowOperator(params) {
  Pool2dParams& p = params_;
  require_unclamped(p.output_min, p.output_max, name);
  // Same validation as the float operator, which also resolves dense strides.
  MaxPool2dF32 float_twin(p, name);
  if (p.input_pixel_stride == 0) p.input_pixel_stride = p.channels;
  if (p.output_pixel_stride == 0) p.output_pixel_stride = p.channels;
  op_ = create_operator(std::move(name), "int8 max pooling create", [&](xnn_operator_t* out) {
    return xnn_create_max_pooling2d_nhwc_s8(
        p.window.pad_top, p.window.pad_right, p.window.pad_bottom, p.window.pad_left,
        p.window.kernel_height, p.window.kernel_width, p.window.stride_height,
        p.window.stride_width, p.window.dilation_height, p.window.dilation_width, p.channels,
        p.input_pixel_stride, p.output_pixel_stride, INT8_MIN, INT8_MAX, 0, out);
  });
}

void MaxPool2dS8::setup(size_t batch, size_t height, size_t width, const int8_t* input,
                        int8_t* output, pthreadpool_t pool) {
  setup_operator(xnn_setup_max_pooling2d_nhwc_s8, "int8 max pooling setup", batch, height, width,
                 input, output, pool);
}

LookupTableS8::LookupTableS8(QuantParams input, QuantParams output,
                             const std::function<float(float)>& f) {
  if (!(input.scale > 0.0f) || !(output.scale > 0.0f)) {
    throw std::invalid_argument("int8 lookup table: quantisation scales must be positive");
  }
  for (int q = INT8_MIN; q <= INT8_MAX; ++q) {
    const float x = input.scale * static_cast<float>(q - input.zero_point);
    const double y = f(x);
    if (std::isnan(y)) {
      throw std::invalid_argument("int8 lookup table: the function gives NaN at x = " +
                                  std::to_string(x));
    }
    const double level = std::clamp(y / output.scale + output.zero_point, -128.0, 127.0);
    table_[static_cast<size_t>(q + 128)] = static_cast<int8_t>(std::lrint(level));
    by_byte_[static_cast<uint8_t>(q)] = table_[static_cast<size_t>(q + 128)];
  }
}

LookupTableS8::LookupTableS8(const std::array<int8_t, 256>& by_byte) : by_byte_(by_byte) {
  for (int q = INT8_MIN; q <= INT8_MAX; ++q) {
    table_[static_cast<size_t>(q + 128)] = by_byte_[static_cast<uint8_t>(q)];
  }
}

namespace {

struct TableJob {
  const std::array<int8_t, 256>* table;  // indexed by the input's bit pattern as uint8_t
  const int8_t* input;
  int8_t* output;
  size_t channels;
  size_t input_stride;
  size_t output_stride;
};

void table_rows(void* context, size_t start, size_t count) {
  const TableJob& job = *static_cast<const TableJob*>(context);
  for (size_t row = start; row < start + count; ++row) {
    const int8_t* in = job.input + row * job.input_stride;
    int8_t* out = job.output + row * job.output_stride;
    kernels::lookup_s8(*job.table, in, out, job.channels);
  }
}

}  // namespace

void LookupTableS8::run(size_t pixels, size_t channels, const int8_t* input, size_t input_stride,
                        int8_t* output, size_t output_stride, pthreadpool_t pool) const {
  if (pixels == 0 || channels == 0) return;
  // A dense tensor is one long row.
  if (input_stride == channels && output_stride == channels) {
    channels *= pixels;
    input_stride = output_stride = channels;
    pixels = 1;
  }
  TableJob job{&by_byte_, input, output, channels, input_stride, output_stride};
  constexpr size_t kMinValuesPerTask = 16384;
  if (pool == nullptr || pixels * channels <= 2 * kMinValuesPerTask) {
    table_rows(&job, 0, pixels);
    return;
  }
  if (pixels == 1) {
    // Split the single long row into chunks.
    pthreadpool_parallelize_1d_tile_1d(
        pool,
        [](void* context, size_t start, size_t count) {
          const TableJob& j = *static_cast<const TableJob*>(context);
          kernels::lookup_s8(*j.table, j.input + start, j.output + start, count);
        },
        &job, channels, kMinValuesPerTask, 0);
    return;
  }
  const size_t tile = std::max<size_t>(1, kMinValuesPerTask / channels);
  pthreadpool_parallelize_1d_tile_1d(pool, table_rows, &job, pixels, tile, 0);
}

}  // namespace yolo::runtime::xnn
