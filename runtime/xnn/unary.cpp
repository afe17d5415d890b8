// SPDX-License-Identifier: Apache-2.0
#include "runtime/xnn/unary.h"

#include <stdexcept>

namespace yolo::runtime::xnn {

void detail::check_row_strides(size_t channels, size_t input_stride, size_t output_stride,
                               const std::string& name) {
  if (channels == 0 || input_stride < channels || output_stride < channels) {
    throw std::invalid_argument("'" + name + "': channels (" + std::to_string(channels) +
                                ") must be >= 1 and <= the strides (" +
                                std::to_string(input_stride) + ", " +
                                std::to_string(output_stride) + ")");
  }
}

UnaryF32 UnaryF32::sigmoid(size_t channels, size_t input_stride, size_t output_stride,
                           std::string name) {
  return UnaryF32(
      channels, input_stride, output_stride, std::move(name), "sigmoid",
      [&](xnn_operator_t* out) {
        return xnn_create_sigmoid_nc_f32(channels, input_stride, output_stride, 0, out);
      },
      xnn_setup_sigmoid_nc_f32);
}

UnaryF32 UnaryF32::clamp(size_t channels, size_t input_stride, size_t output_stride, float min,
                         float max, std::string name) {
  if (!(min <= max)) {
    throw std::invalid_argument("'" + name + "': clamp min " + std::to_string(min) +
                                " is above max " + std::to_string(max));
  }
  return UnaryF32(
      channels, input_stride, output_stride, std::move(name), "clamp",
      [&](xnn_operator_t* out) {
        return xnn_create_clamp_nc_f32(channels, input_stride, output_stride, min, max, 0, out);
      },
      xnn_setup_clamp_nc_f32);
}

UnaryF32 UnaryF32::leaky_relu(size_t channels, size_t input_stride, size_t output_stride,
                              float negative_slope, std::string name) {
  return UnaryF32(
      channels, input_stride, output_stride, std::move(name), "leaky relu",
      [&](xnn_operator_t* out) {
        return xnn_create_leaky_relu_nc_f32(channels, input_stride, output_stride, negative_slope,
                                            0, out);
      },
      xnn_setup_leaky_relu_nc_f32);
}

// The remaining ops take no parameter beyond the layout; one helper creates them all.
#define YOLO_XNN_PLAIN_UNARY(method, xnn_op, label)                                           \
  UnaryF32 UnaryF32::method(size_t channels, size_t input_stride, size_t output_stride,       \
                            std::string name) {                                               \
    return UnaryF32(                                                                          \
        channels, input_stride, output_stride, std::move(name), label,                        \
        [&](xnn_operator_t* out) {                                                            \
          return xnn_create_##xnn_op##_nc_f32(channels, input_stride, output_stride, 0, out); \
        },                                                                                    \
        xnn_setup_##xnn_op##_nc_f32);                                                         \
  }

YOLO_XNN_PLAIN_UNARY(hardswish, hardswish, "hardswish")
YOLO_XNN_PLAIN_UNARY(softmax, softmax, "softmax")
YOLO_XNN_PLAIN_UNARY(abs, abs, "abs")
YOLO_XNN_PLAIN_UNARY(negate, negate, "negate")
YOLO_XNN_PLAIN_UNARY(square_root, square_root, "square root")
YOLO_XNN_PLAIN_UNARY(floor, floor, "floor")
YOLO_XNN_PLAIN_UNARY(ceiling, ceiling, "ceiling")

#undef YOLO_XNN_PLAIN_UNARY

CopyX32::CopyX32(size_t channels, size_t input_stride, size_t output_stride, std::string name)
    : RowOperator(
          channels, input_stride, output_stride, std::move(name), "copy",
          [&](xnn_operator_t* out) {
            return xnn_create_copy_nc_x32(channels, input_stride, output_stride, 0, out);
          },
          xnn_setup_copy_nc_x32) {}

ConvertF32ToQS8::ConvertF32ToQS8(size_t channels, size_t input_stride, size_t output_stride,
                                 QuantParams output, std::string name)
    : RowOperator(
          channels, input_stride, output_stride, std::move(name), "float to int8 convert",
          [&](xnn_operator_t* out) {
            return xnn_create_convert_nc_f32_qs8(channels, input_stride, output_stride,
                                                 output.scale, output.zero_point, INT8_MIN,
                                                 INT8_MAX, 0, out);
          },
          xnn_setup_convert_nc_f32_qs8) {}

ConvertQS8ToF32::ConvertQS8ToF32(size_t channels, size_t input_stride, size_t output_stride,
                                 QuantParams input, std::string name)
    : RowOperator(
          channels, input_stride, output_stride, std::move(name), "int8 to float convert",
          [&](xnn_operator_t* out) {
            return xnn_create_convert_nc_qs8_f32(channels, input_stride, output_stride, input.scale,
                                                 input.zero_point, 0, out);
          },
          xnn_setup_convert_nc_qs8_f32) {}

}  // namespace yolo::runtime::xnn
