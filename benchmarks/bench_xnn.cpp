// SPDX-License-Identifier: Apache-2.0
// Micro-benchmarks of the XNNPACK layer and our own kernels on typical YOLO shapes (Google
// Benchmark; not a test, timings are not tests). Run: build/bin/bench_xnn [--benchmark_filter=Conv]
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "runtime/kernels/conv_qc8_vnni.h"
#include "runtime/xnn/activation.h"
#include "runtime/xnn/binary.h"
#include "runtime/xnn/convolution.h"
#include "runtime/xnn/int8.h"
#include "runtime/xnn/unary.h"
#include "runtime/xnn/xnn_operator.h"

namespace {

using namespace yolo::runtime::xnn;

// Random values with the slack XNNPACK may read past the end of an input.
std::vector<float> random_input(size_t n, float lo, float hi) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v;
  v.reserve(n + kExtraInputBytes / sizeof(float));
  v.resize(n);
  for (float& x : v) x = dist(rng);
  return v;
}

ThreadPools& pools() {
  static ThreadPools instance;
  return instance;
}

// One convolution shape from the benchmark's args: input channels, output channels, kernel,
// groups, threads, input size, stride. NHWC, "same" padding. The last shape in the lists is the
// first conv of every YOLO at 640 (3 channels, stride 2).
struct ConvShape {
  explicit ConvShape(const benchmark::State& state)
      : cin(static_cast<size_t>(state.range(0))),
        cout(static_cast<size_t>(state.range(1))),
        kernel(static_cast<uint32_t>(state.range(2))),
        groups(static_cast<uint32_t>(state.range(3))),
        threads(static_cast<int>(state.range(4))),
        size(static_cast<size_t>(state.range(5))),
        stride(static_cast<uint32_t>(state.range(6))) {}

  Conv2dParams params() const {
    return {.window = yolo::runtime::kernels::square_window(kernel, stride, kernel / 2),
            .groups = groups,
            .input_channels = cin,
            .output_channels = cout};
  }
  size_t weights() const { return cout * cin / groups * kernel * kernel; }
  size_t out_size() const { return (size + 2 * (kernel / 2) - kernel) / stride + 1; }
  size_t outputs() const { return out_size() * out_size() * cout; }
  // Multiply-adds count as two operations.
  benchmark::Counter ops_rate() const {
    return benchmark::Counter(2.0 * static_cast<double>(out_size() * out_size() * weights()),
                              benchmark::Counter::kIsIterationInvariantRate,
                              benchmark::Counter::OneK::kIs1000);
  }

  size_t cin, cout;
  uint32_t kernel, groups;
  int threads;
  size_t size;
  uint32_t stride;
};

void conv_args(benchmark::internal::Benchmark* b, bool grouped) {
  b->ArgNames({"cin", "cout", "k", "groups", "threads", "size", "stride"})
      ->Args({128, 128, 3, 1, 1, 80, 1})
      ->Args({128, 128, 3, 1, 2, 80, 1})
      ->Args({128, 64, 1, 1, 1, 80, 1})
      ->Args({3, 16, 3, 1, 1, 640, 2})
      ->UseRealTime();
  if (grouped) b->Args({64, 64, 3, 64, 1, 80, 1});
}

// Times an XNNPACK convolution set up once on `input` (float or int8, as its output), reporting
// its operation rate as `rate_name`.
template <typename Conv, typename T>
void time_xnn_conv(benchmark::State& state, const ConvShape& s, Conv& conv,
                   const std::vector<T>& input, const char* rate_name) {
  std::vector<T> output(s.outputs());
  pthreadpool_t pool = pools().get(s.threads);
  conv.setup(1, s.size, s.size, input.data(), output.data(), pool);
  for (auto _ : state) conv.run(pool);
  state.counters[rate_name] = s.ops_rate();
}

void BM_Conv2dF32(benchmark::State& state) {
  initialize();
  const ConvShape s(state);
  Conv2dF32 conv(s.params(), random_input(s.weights(), -1, 1), random_input(s.cout, -1, 1),
                 "bench");
  time_xnn_conv(state, s, conv, random_input(s.size * s.size * s.cin, -1, 1), "GFLOP/s");
}
BENCHMARK(BM_Conv2dF32)->Apply([](auto* b) { conv_args(b, true); });

std::vector<int8_t> random_int8(size_t n) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> dist(-127, 127);
  std::vector<int8_t> v;
  v.reserve(n + kExtraInputBytes);
  v.resize(n);
  for (int8_t& x : v) x = static_cast<int8_t>(dist(rng));
  return v;
}

// The same convolutions in int8 (per-channel weights): XNNPACK's QC8 operator, and our AVX-512
// VNNI kernel where the CPU has it (groups 1 only).
void BM_Conv2dQC8Xnnpack(benchmark::State& state) {
  initialize();
  const ConvShape s(state);
  Conv2dQC8Params p;
  p.geometry = s.params();
  p.input = {0.02F, -3};
  p.output = {0.5F, 1};
  Conv2dQC8 conv(p, random_int8(s.weights()), std::vector<float>(s.cout, 0.01F),
                 std::vector<int32_t>(s.cout, 5), "bench");
  time_xnn_conv(state, s, conv, random_int8(s.size * s.size * s.cin), "GOP/s");
}
BENCHMARK(BM_Conv2dQC8Xnnpack)->Apply([](auto* b) { conv_args(b, false); });

void BM_Conv2dQC8Vnni(benchmark::State& state) {
  using yolo::runtime::kernels::ConvQC8Vnni;
  if (!ConvQC8Vnni::available()) {
    state.SkipWithError("this CPU has no AVX-512 VNNI");
    return;
  }
  const ConvShape s(state);
  const Conv2dParams p = s.params();
  const yolo::runtime::kernels::ConvQC8Geometry g{
      .window = p.window, .input_channels = s.cin, .output_channels = s.cout};
  const ConvQC8Vnni conv(g, {0.02F, -3, 0.5F, 1}, random_int8(s.weights()),
                         std::vector<float>(s.cout, 0.01F), std::vector<int32_t>(s.cout, 5));
  const auto input = random_int8(s.size * s.size * s.cin);
  std::vector<int8_t> output(s.outputs());
  pthreadpool_t pool = pools().get(s.threads);
  for (auto _ : state) conv.run(1, s.size, s.size, input.data(), output.data(), pool);
  state.counters["GOP/s"] = s.ops_rate();
}
BENCHMARK(BM_Conv2dQC8Vnni)->Apply([](auto* b) { conv_args(b, false); });

// Our single-pass SiLU against XNNPACK's sigmoid followed by multiply. Args: pixels, channels.
void BM_SiluOurs(benchmark::State& state) {
  initialize();
  const auto pixels = static_cast<size_t>(state.range(0));
  const auto channels = static_cast<size_t>(state.range(1));
  const auto input = random_input(pixels * channels, -8, 8);
  std::vector<float> output(pixels * channels);
  for (auto _ : state) {
    silu_f32(pixels, channels, input.data(), channels, output.data(), channels, nullptr);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(pixels * channels));
}
BENCHMARK(BM_SiluOurs)->Args({6400, 64})->Args({400, 256});

void BM_SiluXnnSigmoidMultiply(benchmark::State& state) {
  initialize();
  const auto pixels = static_cast<size_t>(state.range(0));
  const auto channels = static_cast<size_t>(state.range(1));
  const auto input = random_input(pixels * channels, -8, 8);
  auto temp = random_input(pixels * channels, 0, 1);
  std::vector<float> output(pixels * channels);
  UnaryF32 sigmoid = UnaryF32::sigmoid(channels, channels, channels, "sigmoid");
  BinaryF32 multiply(BinaryOp::kMultiply, "multiply");
  const size_t shape[] = {pixels, channels};
  sigmoid.setup(pixels, input.data(), temp.data(), nullptr);
  multiply.setup(shape, shape, input.data(), temp.data(), output.data(), nullptr);
  for (auto _ : state) {
    sigmoid.run(nullptr);
    multiply.run(nullptr);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(pixels * channels));
}
BENCHMARK(BM_SiluXnnSigmoidMultiply)->Args({6400, 64})->Args({400, 256});

}  // namespace

BENCHMARK_MAIN();
