// SPDX-License-Identifier: Apache-2.0
#include "runtime/kernels/conv_qc8_vnni.h"

#include <cpuinfo.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "runtime/kernels/conv_qc8_vnni_kernels.h"

namespace yolo::runtime::kernels {

namespace {

using qc8_vnni::kBlock;
using qc8_vnni::kMaxRowPiece;
using qc8_vnni::kVector;

void require(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument("int8 convolution: " + message);
}

}  // namespace

bool ConvQC8Vnni::available() {
#if defined(__x86_64__)
  return cpuinfo_initialize() && cpuinfo_has_x86_avx512bw() && cpuinfo_has_x86_avx512vl() &&
         cpuinfo_has_x86_avx512vnni() && cpuinfo_has_x86_avx512vbmi();
#else
  return false;
#endif
}

ConvQC8Vnni::ConvQC8Vnni(const ConvQC8Geometry& geometry, const ConvQC8Quant& quant,
                         std::span<const std::int8_t> weights, std::span<const float> weight_scales,
                         std::span<const std::int32_t> bias,
                         std::optional<std::array<std::int8_t, 256>> table)
    : g_(geometry), q_(quant), table_(table) {
  if (!available()) {
    throw std::runtime_error(
        "int8 convolution: this CPU has no AVX-512 VNNI; use the XNNPACK int8 convolution");
  }
  ConvQC8Geometry& g = g_;
  require(g.window.kernel_height >= 1 && g.window.kernel_width >= 1, "kernel size must be >= 1");
  require(g.window.stride_height >= 1 && g.window.stride_width >= 1, "strides must be >= 1");
  require(g.window.dilation_height >= 1 && g.window.dilation_width >= 1, "dilations must be >= 1");
  require(g.input_channels >= 1 && g.output_channels >= 1, "channel counts must be >= 1");
  if (g.input_pixel_stride == 0) g.input_pixel_stride = g.input_channels;
  if (g.output_pixel_stride == 0) g.output_pixel_stride = g.output_channels;
  require(g.input_pixel_stride >= g.input_channels && g.output_pixel_stride >= g.output_channels,
          "a pixel stride is smaller than its channel count");
  const std::size_t cin = g.input_channels, cout = g.output_channels;
  const std::size_t kernel =
      static_cast<std::size_t>(g.window.kernel_height) * g.window.kernel_width;
  require(weights.size() == cout * cin * kernel, "weights hold " + std::to_string(weights.size()) +
                                                     " values, expected " +
                                                     std::to_string(cout * cin * kernel));
  require(weight_scales.size() == cout, "weight scales hold " +
                                            std::to_string(weight_scales.size()) +
                                            " values, expected " + std::to_string(cout));
  require(bias.empty() || bias.size() == cout, "bias holds " + std::to_string(bias.size()) +
                                                   " values, expected " + std::to_string(cout) +
                                                   " or none");
  require(q_.input_scale > 0.0F && q_.output_scale > 0.0F, "scales must be positive");
  require(q_.output_min < q_.output_max, "int8 clamp min must be below max");

  const std::size_t piece = g.window.kernel_width * cin;
  kernel_rows_ = cin % 4 != 0 && g.window.kernel_width > 1 && piece <= kMaxRowPiece &&
                 g.window.dilation_width == 1 && g.input_pixel_stride == cin;
  taps_ = kernel_rows_ ? g.window.kernel_height : kernel;
  groups_ = (kernel_rows_ ? piece + 3 : cin + 3) / 4;
  const std::size_t blocks = (cout + kBlock - 1) / kBlock;
  const std::size_t padded_cout = (cout + kVector - 1) / kVector * kVector;

  // The weight of reduction index k of tap `tap` for output channel o, or 0 past the real
  // values. A kernel-row tap is row ky = tap, with k = kx * channels + c.
  const auto weight = [&](std::size_t o, std::size_t tap, std::size_t k) -> std::int8_t {
    if (o >= cout) return 0;
    if (kernel_rows_) {
      if (k >= piece) return 0;
      return weights[(o * cin + k % cin) * kernel + tap * g.window.kernel_width + k / cin];
    }
    if (k >= cin) return 0;
    return weights[(o * cin + k) * kernel + tap];
  };
  for (std::size_t b = 0; b < blocks; ++b) {
    block_offset_.push_back(packed_.size());
    const std::size_t vectors = (std::min(kBlock, cout - b * kBlock) + kVector - 1) / kVector;
    for (std::size_t tap = 0; tap < taps_; ++tap) {
      for (std::size_t group = 0; group < groups_; ++group) {
        for (std::size_t lane = 0; lane < vectors * kVector; ++lane) {
          for (std::size_t i = 0; i < 4; ++i) {
            packed_.push_back(weight(b * kBlock + lane, tap, group * 4 + i));
          }
        }
      }
    }
  }

  // sum((x - zx) * w) = sum((x + 128) * w) - (zx + 128) * sum(w): the kernel feeds x + 128.
  bias_.assign(padded_cout, 0);
  scale_.assign(padded_cout, 0.0F);
  const std::int32_t offset = q_.input_zero_point + 128;
  for (std::size_t o = 0; o < cout; ++o) {
    std::int32_t sum = 0;
    for (std::size_t i = 0; i < cin * kernel; ++i) sum += weights[o * cin * kernel + i];
    bias_[o] = (bias.empty() ? 0 : bias[o]) - offset * sum;
    require(weight_scales[o] > 0.0F,
            "weight scale of output channel " + std::to_string(o) + " is not positive");
    // The same float expression as XNNPACK's QC8 operator, so both give the same bytes.
    scale_[o] = q_.input_scale * weight_scales[o] / q_.output_scale;
  }
  zero_pixel_.assign(std::max<std::size_t>(cin, 4), q_.input_zero_point);
}

std::size_t ConvQC8Vnni::output_height(std::size_t input_height) const {
  return window_output_height(g_.window, input_height);
}

std::size_t ConvQC8Vnni::output_width(std::size_t input_width) const {
  return window_output_width(g_.window, input_width);
}

void ConvQC8Vnni::run(std::size_t batch, std::size_t height, std::size_t width,
                      const std::int8_t* input, std::int8_t* output, pthreadpool_t pool) const {
#if defined(__x86_64__)
  if (batch * height * width == 0) return;
  const std::size_t run_step = g_.window.stride_width * g_.input_pixel_stride;
  qc8_vnni::Job job{
      .g = &g_,
      .q = &q_,
      .kernel_rows = kernel_rows_,
      .narrow = qc8_vnni::narrow_load(g_, kernel_rows_, groups_, run_step),
      .taps = taps_,
      .groups = groups_,
      .blocks = block_offset_.size(),
      .run_step = run_step,
      .in_h = height,
      .in_w = width,
      .out_h = output_height(height),
      .out_w = output_width(width),
      .input = input,
      .input_bytes = ((batch * height * width - 1) * g_.input_pixel_stride) + g_.input_channels,
      .output = output,
      .packed = packed_.data(),
      .block_offset = block_offset_.data(),
      .bias = bias_.data(),
      .scale = scale_.data(),
      .zero_pixel = zero_pixel_.data(),
      .table = table_ ? table_->data() : nullptr};
  const std::size_t pixels = batch * job.out_h * job.out_w;
  if (pixels == 0) return;
  // 48 pixels is a whole number of micro-kernel rows for every block shape (6 and 8).
  constexpr std::size_t kPixelsPerTask = 48;
  pthreadpool_parallelize_1d_tile_1d(pool, qc8_vnni::conv_task, &job, pixels, kPixelsPerTask, 0);
#else
  (void)batch, (void)height, (void)width, (void)input, (void)output, (void)pool;
  throw std::runtime_error("int8 convolution: AVX-512 VNNI kernels exist only on x86-64");
#endif
}

}  // namespace yolo::runtime::kernels
