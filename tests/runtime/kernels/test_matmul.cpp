// SPDX-License-Identifier: Apache-2.0
// MatMul and Gemm (runtime/kernels/matmul.h) against a triple-loop reference in double.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/kernels/matmul.h"
#include "runtime/xnn/xnn_operator.h"
#include "tests/support/random_tensors.h"

namespace yolo::runtime::kernels {
namespace {

using test::expect_throws_naming;
using test::unravel;

test::Random rng(5);

Tensor random_tensor(Shape shape) {
  return rng.floats(std::move(shape), -1.0F, 1.0F);
}

// numpy.matmul by definition: promote 1-D operands, broadcast batch dims, sum over K.
std::vector<double> reference_matmul(const Tensor& a, const Tensor& b, const Shape& out_shape) {
  Shape sa = a.shape(), sb = b.shape();
  if (sa.size() == 1) sa.insert(sa.begin(), 1);
  if (sb.size() == 1) sb.push_back(1);
  const std::int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
  const std::size_t batch_rank = std::max(sa.size(), sb.size()) - 2;
  std::vector<double> out(static_cast<std::size_t>(element_count(out_shape)));
  std::int64_t batch_count = 1;
  Shape batch(batch_rank);
  for (std::size_t d = 0; d < batch_rank; ++d) {
    auto dim_of = [&](const Shape& s) {
      const std::size_t lead = batch_rank - (s.size() - 2);
      return d < lead ? 1 : s[d - lead];
    };
    batch[d] = std::max(dim_of(sa), dim_of(sb));
    batch_count *= batch[d];
  }
  auto offset = [&](const Shape& s, const std::vector<std::int64_t>& bi) {
    const std::size_t own = s.size() - 2, lead = batch_rank - own;
    std::int64_t off = 0;
    for (std::size_t d = 0; d < own; ++d) off = off * s[d] + (s[d] == 1 ? 0 : bi[lead + d]);
    return off;
  };
  for (std::int64_t bt = 0; bt < batch_count; ++bt) {
    const auto bi = unravel(bt, batch);
    const float* pa = a.data_as<float>() + offset(sa, bi) * m * k;
    const float* pb = b.data_as<float>() + offset(sb, bi) * k * n;
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (std::int64_t p = 0; p < k; ++p) acc += double(pa[i * k + p]) * pb[p * n + j];
        out[static_cast<std::size_t>((bt * m + i) * n + j)] = acc;
      }
    }
  }
  return out;
}

TEST(MatMul, MatchesReferenceWithBatchBroadcasting) {
  for (int trial = 0; trial < 150; ++trial) {
    const std::int64_t m = rng.pick(1, 9), k = rng.pick(0, 17), n = rng.pick(1, 13);
    Shape batch(static_cast<std::size_t>(rng.pick(0, 3)));
    for (auto& d : batch) d = rng.pick(1, 3);
    Shape sa(batch.begin() + rng.pick(0, static_cast<std::int64_t>(batch.size())), batch.end());
    Shape sb(batch.begin() + rng.pick(0, static_cast<std::int64_t>(batch.size())), batch.end());
    for (auto& d : sa) {
      if (rng.pick(0, 2) == 0) d = 1;
    }
    for (auto& d : sb) {
      if (rng.pick(0, 2) == 0) d = 1;
    }
    sa.push_back(m);
    sa.push_back(k);
    sb.push_back(k);
    sb.push_back(n);
    if (rng.pick(0, 5) == 0) sa = {k};  // 1-D left operand
    if (rng.pick(0, 5) == 0) sb = {k};  // 1-D right operand
    const Tensor a = random_tensor(sa);
    const Tensor b = random_tensor(sb);
    Tensor out(DType::kFloat32, matmul_shape(sa, sb));
    matmul(a, b, out);
    const auto want = reference_matmul(a, b, out.shape());
    for (std::int64_t i = 0; i < out.size(); ++i) {
      ASSERT_NEAR(out.data_as<float>()[i], want[static_cast<std::size_t>(i)], 1e-4)
          << shape_text(sa) << " x " << shape_text(sb) << " at " << i;
    }
  }
}

// Every kernel this CPU runs (Eigen, AVX2, AVX-512), on products with whole and partial row
// tiles, whole and partial column vectors and fewer columns than a vector, on 1 and 3 threads,
// against double sums (a float sum of k terms of size 1 is within about k * 1e-7 of them).
TEST(MatMul, EveryKernelMatchesReferenceOnTilesAndTails) {
  xnn::ThreadPools pools;
  const Shape sizes[] = {{1, 1, 1},   {7, 5, 3},     {8, 32, 16},  {13, 45, 37}, {48, 64, 0},
                         {49, 17, 9}, {100, 48, 33}, {6, 400, 32}, {2, 64, 400}, {400, 31, 8}};
  for (const SgemmIsa isa : sgemm_isas()) {
    for (const Shape& mnk : sizes) {
      for (const int threads : {1, 3}) {
        const std::int64_t m = mnk[0], n = mnk[1], k = mnk[2];
        const Tensor a = random_tensor({2, m, k});
        // Shared by both batches on 3 threads (one taller product), one per batch on 1.
        const Tensor b = random_tensor(threads == 3 ? Shape{k, n} : Shape{2, k, n});
        Tensor out(DType::kFloat32, {2, m, n});
        matmul(a, b, out, pools.get(threads), isa);
        const auto want = reference_matmul(a, b, out.shape());
        for (std::int64_t i = 0; i < out.size(); ++i) {
          ASSERT_NEAR(out.data_as<float>()[i], want[static_cast<std::size_t>(i)], 1e-5 * (k + 1))
              << sgemm_isa_name(isa) << " " << m << "x" << k << " * " << k << "x" << n << " on "
              << threads << " threads, at " << i;
        }
      }
    }
  }
}

TEST(MatMul, ShapesAndErrors) {
  EXPECT_EQ(matmul_shape(Shape{3}, Shape{3}), Shape{});
  EXPECT_EQ(matmul_shape(Shape{3}, Shape{2, 3, 4}), (Shape{2, 4}));
  EXPECT_EQ(matmul_shape(Shape{2, 1, 5, 3}, Shape{4, 3, 6}), (Shape{2, 4, 5, 6}));
  EXPECT_EQ(matmul_shape(Shape{1, 2, 400, 32}, Shape{1, 2, 32, 400}), (Shape{1, 2, 400, 400}));
  expect_throws_naming(
      [] {
        matmul_shape(Shape{2, 3}, Shape{4, 5});
      },
      "MatMul: inner dims differ: [2,3] x [4,5]");
  expect_throws_naming(
      [] {
        matmul_shape(Shape{2, 2, 3}, Shape{3, 3, 5});
      },
      "MatMul: shapes [2] and [3]");
  expect_throws_naming([] { matmul_shape(Shape{}, Shape{3}); },
                       "MatMul: inputs must have rank >= 1");
}

TEST(Gemm, MatchesReferenceForEveryTransposeAndBias) {
  for (int trial = 0; trial < 80; ++trial) {
    const std::int64_t m = rng.pick(1, 9), k = rng.pick(1, 11), n = rng.pick(1, 10);
    const bool ta = rng.pick(0, 1) == 1, tb = rng.pick(0, 1) == 1;
    const Tensor a = random_tensor(ta ? Shape{k, m} : Shape{m, k});
    const Tensor b = random_tensor(tb ? Shape{n, k} : Shape{k, n});
    const Shape c_shapes[] = {Shape{m, n}, Shape{n}, Shape{1, n}, Shape{m, 1}, Shape{}};
    const Shape c_shape = c_shapes[rng.pick(0, 4)];
    const Tensor c = random_tensor(c_shape);
    const bool with_c = rng.pick(0, 3) != 0;
    const float alpha = 0.5F, beta = with_c ? 2.0F : 0.0F;
    Tensor out(DType::kFloat32, gemm_shape(a.shape(), b.shape(), ta, tb));
    gemm(a, b, with_c ? std::optional<ConstTensorRef>(c) : std::nullopt, alpha, beta, ta, tb, out);
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (std::int64_t p = 0; p < k; ++p) {
          const double av = a.data_as<float>()[ta ? p * m + i : i * k + p];
          const double bv = b.data_as<float>()[tb ? j * k + p : p * n + j];
          acc += av * bv;
        }
        double bias = 0;
        if (with_c) {
          std::int64_t ci = 0;
          if (c_shape.size() == 2)
            ci = (c_shape[0] == 1 ? 0 : i) * c_shape[1] + (c_shape[1] == 1 ? 0 : j);
          if (c_shape.size() == 1) ci = j;
          bias = beta * c.data_as<float>()[ci];
        }
        ASSERT_NEAR(out.data_as<float>()[i * n + j], alpha * acc + bias, 1e-4);
      }
    }
  }
  expect_throws_naming(
      [] {
        gemm_shape(Shape{2, 3}, Shape{2, 3}, false, false);
      },
      "Gemm: inner dims differ");
  const Tensor a = random_tensor({2, 3}), b = random_tensor({3, 4}), bad_c = random_tensor({3});
  Tensor out(DType::kFloat32, {2, 4});
  expect_throws_naming([&] { gemm(a, b, bad_c, 1.0F, 1.0F, false, false, out); },
                       "Gemm: shapes [3] and [2,4]");
}

}  // namespace
}  // namespace yolo::runtime::kernels
