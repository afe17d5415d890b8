// SPDX-License-Identifier: Apache-2.0
#include "runtime/xnn/activation.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>

namespace yolo::runtime::xnn {

namespace {

// exp(z) for z in [-87, 87]: z = n * ln2 + r with |r| <= ln2 / 2, exp(z) = 2^n (1 + r + r^2 q(r))
// with q a cubic fitted for minimal relative error (1.05e-7 on that interval), 2^n a normal
// float. Branch-free so it vectorises.
[[gnu::always_inline]] inline float exp_limited(float z) {
  // 1.5 * 2^23 + 127: adding it rounds z * log2(e) to an integer n and leaves n + 127 in the
  // low mantissa bits, which shifted into the exponent field give 2^n.
  constexpr float kMagic = 12583039.0f;
  constexpr float kLog2e = 1.44269504088896341f;
  // ln 2 split so that n * kLn2Hi is exact for |n| <= 127.
  constexpr float kLn2Hi = 0.693145751953125f;
  constexpr float kLn2Lo = 1.42860682030941723212e-6f;
  const float biased = z * kLog2e + kMagic;
  const float scale = std::bit_cast<float>(std::bit_cast<uint32_t>(biased) << 23);
  const float n = biased - kMagic;
  float r = z - n * kLn2Hi;
  r = r - n * kLn2Lo;
  float p = 0.008312524959287904f;
  p = p * r + 0.04189011454492716f;
  p = p * r + 0.16667114469806368f;
  p = p * r + 0.4999923178208886f;
  p = p * r + 1.0f;
  return p * (r * scale) + scale;
}

// silu(x) = x / (1 + exp(-x)), with -x clamped to [-87, 87] so exp stays finite and normal:
// for x >= 87 that is x / (1 + 1.6e-38) = x; for x <= -87 the x in the numerator takes the same
// clamp, giving -87 / 6e37, a tiny negative, instead of -inf / inf or -3e38 / 6e37 = -5.
// NaN skips the clamp and propagates. Every select is arithmetic on the bit patterns: a float
// compare-and-select lets GCC split the loop into branches it cannot if-convert without AVX-512
// masks, and then nothing vectorises. A true division measured faster here than reciprocal +
// Newton steps (it runs beside the multiply-adds).
[[gnu::always_inline]] inline float silu_of(float x) {
  constexpr int32_t kLimit = std::bit_cast<int32_t>(87.0f);
  constexpr int32_t kInfinity = std::bit_cast<int32_t>(std::numeric_limits<float>::infinity());
  const int32_t bits = std::bit_cast<int32_t>(x);
  const int32_t magnitude = bits & INT32_MAX;
  const int32_t is_nan = (kInfinity - magnitude) >> 31;  // all ones for NaN
  const int32_t clamped = std::min(magnitude, kLimit) | (magnitude & is_nan);
  const int32_t sign = bits & INT32_MIN;
  const int32_t negative = bits >> 31;  // all ones for a set sign bit
  const float minus_x = std::bit_cast<float>(clamped | (sign ^ INT32_MIN));
  const float numerator = std::bit_cast<float>((bits & ~negative) | ((clamped | sign) & negative));
  return numerator / (1.0f + exp_limited(minus_x));
}

// sigmoid(x) = 1 / (1 + exp(-x)) with the same clamp: exactly 1 from 87 up, 1.6e-38 from -87
// down; NaN propagates.
[[gnu::always_inline]] inline float sigmoid_of(float x) {
  constexpr int32_t kLimit = std::bit_cast<int32_t>(87.0f);
  constexpr int32_t kInfinity = std::bit_cast<int32_t>(std::numeric_limits<float>::infinity());
  const int32_t bits = std::bit_cast<int32_t>(x);
  const int32_t magnitude = bits & INT32_MAX;
  const int32_t is_nan = (kInfinity - magnitude) >> 31;
  const int32_t clamped = std::min(magnitude, kLimit) | (magnitude & is_nan);
  const float minus_x = std::bit_cast<float>(clamped | ((bits & INT32_MIN) ^ INT32_MIN));
  return 1.0f / (1.0f + exp_limited(minus_x));
}

// On x86-64 the row kernels are compiled three times and the loader picks the best the CPU runs:
// x86-64-v4 (AVX-512) and x86-64-v3 (AVX2 with FMA; plain "avx2" would leave FMA off) and the
// SSE2 baseline. aarch64 has NEON and FMA in its baseline, so one version serves the Pi.
#if defined(__x86_64__)
#define YOLO_XNN_MULTIVERSION \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define YOLO_XNN_MULTIVERSION
#endif

// No __restrict: in-place calls are allowed, and the loop reads element i before writing it.
YOLO_XNN_MULTIVERSION void silu_row(const float* input, float* output, size_t n) {
  for (size_t i = 0; i < n; ++i) output[i] = silu_of(input[i]);
}

YOLO_XNN_MULTIVERSION void sigmoid_row(const float* input, float* output, size_t n) {
  for (size_t i = 0; i < n; ++i) output[i] = sigmoid_of(input[i]);
}

using RowKernel = void (*)(const float*, float*, size_t);

struct Job {
  RowKernel kernel;
  const float* input;
  float* output;
  size_t channels;
  size_t input_stride;
  size_t output_stride;
};

// Values per task: big enough to amortise the task dispatch, small enough to balance threads.
constexpr size_t kMinValuesPerTask = 4096;

void run_contiguous(void* context, size_t start, size_t count) {
  const Job& job = *static_cast<const Job*>(context);
  job.kernel(job.input + start, job.output + start, count);
}

void run_rows(void* context, size_t start, size_t count) {
  const Job& job = *static_cast<const Job*>(context);
  for (size_t row = start; row < start + count; ++row) {
    job.kernel(job.input + row * job.input_stride, job.output + row * job.output_stride,
               job.channels);
  }
}

size_t tile_for(size_t range, size_t values_per_item, pthreadpool_t pool) {
  const size_t threads = pthreadpool_get_threads_count(pool);
  // About four tasks per thread, each of at least kMinValuesPerTask values.
  const size_t balanced = (range + 4 * threads - 1) / (4 * threads);
  const size_t minimum = (kMinValuesPerTask + values_per_item - 1) / values_per_item;
  return std::max<size_t>({balanced, minimum, 1});
}

void apply(RowKernel kernel, size_t pixels, size_t channels, const float* input,
           size_t input_stride, float* output, size_t output_stride, pthreadpool_t pool) {
  if (pixels == 0 || channels == 0) return;
  Job job{kernel, input, output, channels, input_stride, output_stride};
  const bool contiguous = input_stride == channels && output_stride == channels;
  const size_t total = pixels * channels;
  if (pool == nullptr || total <= 2 * kMinValuesPerTask) {
    if (contiguous) {
      run_contiguous(&job, 0, total);
    } else {
      run_rows(&job, 0, pixels);
    }
  } else if (contiguous) {
    pthreadpool_parallelize_1d_tile_1d(pool, run_contiguous, &job, total, tile_for(total, 1, pool),
                                       0);
  } else {
    pthreadpool_parallelize_1d_tile_1d(pool, run_rows, &job, pixels,
                                       tile_for(pixels, channels, pool), 0);
  }
}

}  // namespace

void silu_f32(size_t pixels, size_t channels, const float* input, size_t input_stride,
              float* output, size_t output_stride, pthreadpool_t pool) {
  apply(silu_row, pixels, channels, input, input_stride, output, output_stride, pool);
}

void sigmoid_f32(size_t pixels, size_t channels, const float* input, size_t input_stride,
                 float* output, size_t output_stride, pthreadpool_t pool) {
  apply(sigmoid_row, pixels, channels, input, input_stride, output, output_stride, pool);
}

}  // namespace yolo::runtime::xnn
