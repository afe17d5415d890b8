// SPDX-License-Identifier: Apache-2.0
// Reductions, ArgMax/ArgMin, Softmax and TopK (reduce.h, softmax.h, topk.h) against naive
// references written here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/kernels/reduce.h"
#include "runtime/kernels/softmax.h"
#include "runtime/kernels/topk.h"
#include "runtime/xnn/xnn_operator.h"
#include "tests/support/random_tensors.h"

namespace yolo::runtime::kernels {
namespace {

using test::expect_throws_naming;
using test::unravel;
using test::value_at;

test::Random rng(7);

// Small integers (as the dtype) so sums are exact and ties are frequent.
Tensor random_tensor(DType type, Shape shape) {
  Tensor t(type, std::move(shape));
  for (std::int64_t i = 0; i < t.size(); ++i) {
    const std::int64_t v = rng.pick(-6, 6);
    if (type == DType::kFloat32) t.data_as<float>()[i] = static_cast<float>(v) * 0.5F;
    if (type == DType::kInt64) t.data_as<std::int64_t>()[i] = v;
    if (type == DType::kInt32) t.data_as<std::int32_t>()[i] = static_cast<std::int32_t>(v);
  }
  return t;
}

Shape random_shape(std::size_t min_rank, std::size_t max_rank) {
  static const std::int64_t kDims[] = {1, 2, 3, 4, 5, 7, 9, 13};
  Shape s(static_cast<std::size_t>(
      rng.pick(static_cast<std::int64_t>(min_rank), static_cast<std::int64_t>(max_rank))));
  for (auto& d : s) d = kDims[rng.pick(0, 7)];
  return s;
}

// A random shape of rank min_rank..max_rank, a random axis of it (negative half the time) and
// that axis as an index.
struct ShapeAxis {
  Shape shape;
  std::int64_t axis;
  std::size_t index;
};
ShapeAxis random_axis(std::size_t min_rank, std::size_t max_rank) {
  Shape shape = random_shape(min_rank, max_rank);
  const auto rank = static_cast<std::int64_t>(shape.size());
  const std::int64_t axis = rng.pick(-rank, rank - 1);
  const auto index = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
  return {std::move(shape), axis, index};
}

TEST(Reduce, MatchesReferenceOverRandomAxes) {
  const ReduceOp ops[] = {ReduceOp::kMax, ReduceOp::kMin, ReduceOp::kSum, ReduceOp::kMean,
                          ReduceOp::kProd};
  for (int trial = 0; trial < 300; ++trial) {
    const ReduceOp op = ops[trial % 5];
    const DType type = trial % 3 == 0   ? DType::kFloat32
                       : trial % 3 == 1 ? DType::kInt64
                                        : DType::kInt32;
    Shape shape = random_shape(0, 4);
    if (!shape.empty() && rng.pick(0, 9) == 0)
      shape[static_cast<std::size_t>(rng.pick(0, shape.size() - 1))] = 0;
    const auto rank = static_cast<std::int64_t>(shape.size());
    std::vector<std::int64_t> axes;
    for (std::int64_t d = 0; d < rank; ++d) {
      if (rng.pick(0, 1)) axes.push_back(rng.pick(0, 1) ? d : d - rank);
    }
    const bool noop = rng.pick(0, 3) == 0;
    const bool keepdims = rng.pick(0, 1) == 1;
    const auto norm = reduce_axes(op, rank, axes, noop);
    const Tensor in = random_tensor(type, shape);
    Tensor out(type, reduce_shape(shape, norm, keepdims));
    reduce(op, in, norm, out);
    // Reference: fold every input element into the output slot it projects to.
    Shape kept = reduce_shape(shape, norm, true);
    std::vector<double> acc(static_cast<std::size_t>(out.size()));
    std::vector<std::int64_t> count(acc.size(), 0);
    for (std::int64_t i = 0; i < in.size(); ++i) {
      auto idx = unravel(i, shape);
      std::int64_t o = 0;
      for (std::size_t d = 0; d < shape.size(); ++d) o = o * kept[d] + (kept[d] == 1 ? 0 : idx[d]);
      const double v = value_at(in, i);
      auto& a = acc[static_cast<std::size_t>(o)];
      if (count[static_cast<std::size_t>(o)]++ == 0) {
        a = v;
      } else if (op == ReduceOp::kMax) {
        a = std::max(a, v);
      } else if (op == ReduceOp::kMin) {
        a = std::min(a, v);
      } else if (op == ReduceOp::kProd) {
        a *= v;
      } else {
        a += v;
      }
    }
    for (std::size_t o = 0; o < acc.size(); ++o) {
      double want = acc[o];
      if (op == ReduceOp::kMean && count[o] > 0) {
        want = type == DType::kFloat32 ? want / static_cast<double>(count[o])
                                       : std::trunc(want / static_cast<double>(count[o]));
      }
      if (count[o] == 0) continue;  // empty reductions are checked below
      ASSERT_NEAR(value_at(out, static_cast<std::int64_t>(o)), want, 1e-4)
          << reduce_op_name(op) << " " << dtype_name(type) << " " << shape_text(shape) << " axes "
          << shape_text(norm) << " at " << o;
    }
  }
}

TEST(Reduce, EmptySetsAndArguments) {
  const Tensor empty(DType::kFloat32, {0, 3});
  const std::int64_t axis0[] = {0};
  Tensor out(DType::kFloat32, {3});
  reduce(ReduceOp::kMax, empty, axis0, out);
  EXPECT_EQ(out.data_as<float>()[0], -std::numeric_limits<float>::infinity());
  reduce(ReduceOp::kSum, empty, axis0, out);
  EXPECT_EQ(out.data_as<float>()[1], 0.0F);
  EXPECT_TRUE(reduce_axes(ReduceOp::kSum, 3, {}, true).empty());
  EXPECT_EQ(reduce_axes(ReduceOp::kSum, 3, {}, false), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(reduce_shape(Shape{2, 3, 4}, std::vector<std::int64_t>{0, 2}, false), (Shape{3}));
  expect_throws_naming([] { reduce_axes(ReduceOp::kMax, 2, Shape{2}, false); },
                       "ReduceMax: axis 2 is out of range");
  expect_throws_naming(
      [] {
        reduce_axes(ReduceOp::kSum, 2, Shape{1, -1}, false);
      },
      "ReduceSum: axis -1 is repeated");
  Tensor wrong(DType::kFloat32, {2});
  expect_throws_naming([&] { reduce(ReduceOp::kMean, empty, axis0, wrong); },
                       "ReduceMean: output [2]");
}

TEST(ArgReduce, FirstOrLastExtreme) {
  for (int trial = 0; trial < 150; ++trial) {
    const auto [shape, axis, a] = random_axis(1, 4);
    const bool last = rng.pick(0, 1) == 1;
    const ArgOp op = rng.pick(0, 1) ? ArgOp::kArgMax : ArgOp::kArgMin;
    const Tensor in = random_tensor(DType::kFloat32, shape);
    Tensor out(DType::kInt64, arg_reduce_shape(shape, axis, true));
    arg_reduce(op, in, axis, last, out);
    Shape kept = out.shape();
    for (std::int64_t o = 0; o < out.size(); ++o) {
      auto idx = unravel(o, kept);
      std::int64_t best = -1;
      double best_v = 0;
      for (std::int64_t k = 0; k < shape[a]; ++k) {
        idx[a] = k;
        std::int64_t flat = 0;
        for (std::size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + idx[d];
        const double v = value_at(in, flat);
        const bool better =
            best < 0 || (op == ArgOp::kArgMax ? v > best_v : v < best_v) || (last && v == best_v);
        if (better) {
          best = k;
          best_v = v;
        }
      }
      ASSERT_EQ(out.data_as<std::int64_t>()[o], best) << shape_text(shape) << " axis " << axis;
    }
  }
  EXPECT_EQ(arg_reduce_shape(Shape{2, 3}, -1, false), (Shape{2}));
  const Tensor in(DType::kFloat32, {2, 0});
  Tensor out(DType::kInt64, {2});
  expect_throws_naming([&] { arg_reduce(ArgOp::kArgMin, in, 1, false, out); },
                       "ArgMin: axis 1 of [2,0] is empty");
}

TEST(Softmax, MatchesReferenceOnEveryAxis) {
  for (int trial = 0; trial < 100; ++trial) {
    const Shape shape = random_shape(1, 4);
    const auto rank = static_cast<std::int64_t>(shape.size());
    const bool coerced = rng.pick(0, 1) == 1;
    const std::int64_t axis = coerced ? rng.pick(-rank, rank) : rng.pick(-rank, rank - 1);
    const auto a = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
    Tensor in = random_tensor(DType::kFloat32, shape);
    for (auto& v : in.values<float>()) v *= 7.0F;  // wide range: stability matters
    Tensor out(DType::kFloat32, shape);
    if (coerced) {
      softmax_coerced(in, axis, out);
    } else {
      softmax(in, axis, out);
    }
    // Reference: group elements by the coordinates outside the normalized axes, in double.
    const std::int64_t n = in.size();
    std::vector<std::int64_t> group(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      auto idx = unravel(i, shape);
      std::int64_t g = 0;
      for (std::size_t d = 0; d < shape.size(); ++d) {
        const bool normalized = coerced ? d >= a : d == a;
        g = g * shape[d] + (normalized ? 0 : idx[d]);
      }
      group[static_cast<std::size_t>(i)] = g;
    }
    std::vector<double> peak(static_cast<std::size_t>(n), -1e300),
        sum(static_cast<std::size_t>(n), 0);
    for (std::int64_t i = 0; i < n; ++i) {
      auto& p = peak[static_cast<std::size_t>(group[static_cast<std::size_t>(i)])];
      p = std::max(p, value_at(in, i));
    }
    for (std::int64_t i = 0; i < n; ++i) {
      const auto g = static_cast<std::size_t>(group[static_cast<std::size_t>(i)]);
      sum[g] += std::exp(value_at(in, i) - peak[g]);
    }
    for (std::int64_t i = 0; i < n; ++i) {
      const auto g = static_cast<std::size_t>(group[static_cast<std::size_t>(i)]);
      ASSERT_NEAR(out.data_as<float>()[i], std::exp(value_at(in, i) - peak[g]) / sum[g], 1e-6)
          << shape_text(shape) << " axis " << axis << (coerced ? " (coerced)" : "");
    }
  }
  const Tensor in(DType::kFloat32, {2, 3});
  Tensor out(DType::kFloat32, {2, 3});
  expect_throws_naming([&] { softmax(in, 2, out); }, "Softmax: axis 2 is out of range");
  expect_throws_naming([&] { softmax_coerced(in, 3, out); }, "Softmax: axis 3 is out of range");
}

// Rows longer than the 16 lanes the float max and min keep (yolo26n: 80 class scores per anchor),
// with NaN, which a sequential std::max fold skips, and infinities.
TEST(Reduce, FloatMaxAndMinOverLongRowsMatchASequentialFold) {
  for (const std::int64_t len : {16, 37, 80, 131}) {
    Tensor in = random_tensor(DType::kFloat32, {5, len});
    float* x = in.data_as<float>();
    x[3] = std::numeric_limits<float>::quiet_NaN();
    x[len + 20 % len] = INFINITY;
    x[2 * len + 1] = -INFINITY;
    const std::int64_t axes[] = {1};
    for (const ReduceOp op : {ReduceOp::kMax, ReduceOp::kMin}) {
      Tensor out(DType::kFloat32, {5, 1});
      reduce(op, in, axes, out);
      for (std::int64_t r = 0; r < 5; ++r) {
        float want = op == ReduceOp::kMax ? -INFINITY : INFINITY;
        for (std::int64_t i = 0; i < len; ++i) {
          want = op == ReduceOp::kMax ? std::max(want, x[r * len + i])
                                      : std::min(want, x[r * len + i]);
        }
        EXPECT_EQ(out.data_as<float>()[r], want)
            << reduce_op_name(op) << " of row " << r << " of " << len;
      }
    }
  }
}

// Long rows (attention) and an axis that is not innermost over more columns than one task takes
// (the DFL's 16 bins over thousands of anchors): on 3 threads, in place, the same bits as on one.
TEST(Softmax, SharedAmongThreadsAndInPlaceGivesTheSameBits) {
  xnn::ThreadPools pools;
  const std::pair<Shape, std::int64_t> cases[] = {
      {{2, 3, 700}, -1}, {{1, 16, 1100}, 1}, {{2, 4, 16, 530}, 2}, {{3, 5}, 0}};
  for (const auto& [shape, axis] : cases) {
    Tensor in = random_tensor(DType::kFloat32, shape);
    for (auto& v : in.values<float>()) v *= 7.0F;
    Tensor one(DType::kFloat32, shape);
    softmax(in, axis, one);
    Tensor shared(DType::kFloat32, shape);
    std::ranges::copy(in.values<float>(), shared.data_as<float>());
    softmax(shared, axis, shared, pools.get(3));
    for (std::int64_t i = 0; i < in.size(); ++i) {
      ASSERT_EQ(shared.data_as<float>()[i], one.data_as<float>()[i])
          << shape_text(shape) << " axis " << axis << " at " << i;
    }
    // Each vector sums to 1.
    const auto a = static_cast<std::size_t>(axis < 0 ? axis + std::ssize(shape) : axis);
    const std::int64_t len = shape[a];
    const std::int64_t inner = element_count(std::span(shape).subspan(a + 1));
    for (std::int64_t o = 0; o < in.size() / (len * inner); ++o) {
      for (std::int64_t i = 0; i < inner; ++i) {
        double total = 0;
        for (std::int64_t k = 0; k < len; ++k)
          total += one.data_as<float>()[(o * len + k) * inner + i];
        ASSERT_NEAR(total, 1.0, 1e-5) << shape_text(shape) << " axis " << axis;
      }
    }
  }
}

TEST(Softmax, MaskedAndExtremeInputs) {
  // -inf (masked attention) gives 0; large values do not overflow; a one-element axis gives 1.
  Tensor in(DType::kFloat32, {2, 3});
  const float values[] = {0.0F, -INFINITY, 1.0F, 1000.0F, 999.0F, -1000.0F};
  std::copy(values, values + 6, in.data_as<float>());
  Tensor out(DType::kFloat32, {2, 3});
  softmax(in, 1, out);
  const double e = std::exp(1.0);
  EXPECT_NEAR(out.data_as<float>()[0], 1.0 / (1.0 + e), 1e-6);
  EXPECT_NEAR(out.data_as<float>()[1], 0.0, 1e-30);
  EXPECT_NEAR(out.data_as<float>()[2], e / (1.0 + e), 1e-6);
  EXPECT_NEAR(out.data_as<float>()[3], e / (1.0 + e), 1e-6);
  EXPECT_NEAR(out.data_as<float>()[5], 0.0, 1e-30);
  Tensor single(DType::kFloat32, {4, 1});
  std::fill_n(single.data_as<float>(), 4, 5.0F);
  softmax(single, -1, single);
  for (float v : single.values<float>()) EXPECT_FLOAT_EQ(v, 1.0F);
}

TEST(TopK, MatchesStableSortReference) {
  for (int trial = 0; trial < 200; ++trial) {
    const auto [shape, axis, a] = random_axis(1, 3);
    const std::int64_t k = rng.pick(0, shape[a]);
    const bool largest = rng.pick(0, 1) == 1;
    const DType type = trial % 3 == 0   ? DType::kFloat32
                       : trial % 3 == 1 ? DType::kInt64
                                        : DType::kInt32;
    const Tensor in = random_tensor(type, shape);
    const Shape out_shape = topk_shape(shape, k, axis);
    Tensor values(type, out_shape);
    Tensor indices(DType::kInt64, out_shape);
    topk(in, k, axis, largest, values, indices);
    for (std::int64_t o = 0; o < values.size(); ++o) {
      auto idx = unravel(o, out_shape);
      const std::int64_t rank_in_row = idx[a];
      // Reference: stable sort of the row by value, best first; ties keep the lower index.
      std::vector<std::pair<double, std::int64_t>> row;
      for (std::int64_t j = 0; j < shape[a]; ++j) {
        idx[a] = j;
        std::int64_t flat = 0;
        for (std::size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + idx[d];
        row.emplace_back(value_at(in, flat), j);
      }
      std::stable_sort(row.begin(), row.end(), [largest](const auto& x, const auto& y) {
        return largest ? x.first > y.first : x.first < y.first;
      });
      const auto& want = row[static_cast<std::size_t>(rank_in_row)];
      ASSERT_EQ(value_at(values, o), want.first);
      ASSERT_EQ(indices.data_as<std::int64_t>()[o], want.second)
          << shape_text(shape) << " axis " << axis << " k " << k;
    }
  }
  expect_throws_naming([] { topk_shape(Shape{3, 4}, 5, 1); }, "TopK: k 5 is outside [0, 4]");
  expect_throws_naming([] { topk_shape(Shape{3, 4}, 1, 2); }, "TopK: axis 2");
}

TEST(TopK, EndToEndDetectionSize) {
  // yolo26n end2end: the best 300 of 8400 x 80 class scores (flattened).
  Tensor scores(DType::kFloat32, {1, 8400 * 80});
  std::uniform_real_distribution<float> dist(0.0F, 1.0F);
  for (auto& v : scores.values<float>()) v = dist(rng.engine());
  Tensor values(DType::kFloat32, {1, 300});
  Tensor indices(DType::kInt64, {1, 300});
  topk(scores, 300, -1, true, values, indices);
  std::vector<float> sorted(scores.values<float>().begin(), scores.values<float>().end());
  std::partial_sort(sorted.begin(), sorted.begin() + 300, sorted.end(), std::greater<>());
  for (std::int64_t i = 0; i < 300; ++i)
    ASSERT_EQ(values.data_as<float>()[i], sorted[static_cast<std::size_t>(i)]);
}

}  // namespace
}  // namespace yolo::runtime::kernels
