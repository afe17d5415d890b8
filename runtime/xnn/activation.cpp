#include "runtime/xnn/activation.h"

#include <algorithm>
#include <bit>
#include <cstdint>

namespace yolo::runtime::xnn {

namespace {

// exp(z) for z in [-87, 0]: z = n * ln2 + r with |r| <= ln2 / 2, exp(z) = 2^n * p(r), p the
// degree-6 Taylor polynomial (truncation < 1.2e-7 relative). Branch-free so it vectorises.
[[gnu::always_inline]] inline float exp_nonpositive(float z) {
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
  float p = 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  return p * scale;
}

// sigmoid(x) from e = exp(-|x|), which never overflows: 1 / (1 + e) for x >= 0, e / (1 + e)
// below. Clamping at -87 keeps 2^n a normal float; sigmoid there is < 2e-38 anyway. NaN fails
// every comparison and stays NaN.
[[gnu::always_inline]] inline float sigmoid_of(float x) {
  float z = x < 0.0f ? x : -x;
  z = z < -87.0f ? -87.0f : z;
  const float e = exp_nonpositive(z);
  return (x < 0.0f ? e : 1.0f) / (1.0f + e);
}

// On x86-64 each row kernel is compiled three times and the loader picks the best the CPU runs:
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
  for (size_t i = 0; i < n; ++i) {
    const float x = input[i];
    output[i] = x * sigmoid_of(x);
  }
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
