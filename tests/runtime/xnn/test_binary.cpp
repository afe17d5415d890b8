// SPDX-License-Identifier: Apache-2.0
// BinaryF32 against a naive numpy-broadcasting reference, for every op, ranks 0 to 6.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "runtime/xnn/binary.h"
#include "tests/support/random_tensors.h"

namespace yolo::runtime::xnn {
namespace {

using test::xnn_input;

using Shape = std::vector<size_t>;

size_t volume(const Shape& shape) {
  size_t n = 1;
  for (size_t d : shape) n *= d;
  return n;
}

float apply(BinaryOp op, float a, float b) {
  switch (op) {
    case BinaryOp::kAdd:
      return a + b;
    case BinaryOp::kSubtract:
      return a - b;
    case BinaryOp::kMultiply:
      return a * b;
    case BinaryOp::kDivide:
      return a / b;
    case BinaryOp::kMinimum:
      return std::min(a, b);
    case BinaryOp::kMaximum:
      return std::max(a, b);
  }
  return 0.0f;
}

// Numpy broadcasting by walking the output index and mapping it back to each input.
std::vector<float> reference(BinaryOp op, const Shape& a_shape, const std::vector<float>& a,
                             const Shape& b_shape, const std::vector<float>& b, Shape& out_shape,
                             float lo, float hi) {
  const size_t rank = std::max(a_shape.size(), b_shape.size());
  Shape ap(rank - a_shape.size(), 1), bp(rank - b_shape.size(), 1);
  ap.insert(ap.end(), a_shape.begin(), a_shape.end());
  bp.insert(bp.end(), b_shape.begin(), b_shape.end());
  out_shape.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) out_shape[i] = std::max(ap[i], bp[i]);
  std::vector<float> out(volume(out_shape));
  std::vector<size_t> index(rank, 0);
  for (size_t flat = 0; flat < out.size(); ++flat) {
    size_t ia = 0, ib = 0;
    for (size_t d = 0; d < rank; ++d) {
      ia = ia * ap[d] + (ap[d] == 1 ? 0 : index[d]);
      ib = ib * bp[d] + (bp[d] == 1 ? 0 : index[d]);
    }
    out[flat] = std::clamp(apply(op, a[ia], b[ib]), lo, hi);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < out_shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

constexpr BinaryOp kAllOps[] = {BinaryOp::kAdd,    BinaryOp::kSubtract, BinaryOp::kMultiply,
                                BinaryOp::kDivide, BinaryOp::kMinimum,  BinaryOp::kMaximum};

void check(BinaryOp op, const Shape& a_shape, const Shape& b_shape, std::mt19937& rng,
           ThreadPools& pools, float lo = -std::numeric_limits<float>::infinity(),
           float hi = std::numeric_limits<float>::infinity()) {
  SCOPED_TRACE(testing::Message() << "op " << int(op) << " shapes "
                                  << testing::PrintToString(a_shape) << " and "
                                  << testing::PrintToString(b_shape));
  std::uniform_real_distribution<float> dist(0.5f, 2.0f);  // keeps division well conditioned
  std::vector<float> a = xnn_input<float>(volume(a_shape));
  std::vector<float> b = xnn_input<float>(volume(b_shape));
  for (float& v : a) v = rng() % 2 ? dist(rng) : -dist(rng);
  for (float& v : b) v = rng() % 2 ? dist(rng) : -dist(rng);
  Shape out_shape;
  const std::vector<float> want = reference(op, a_shape, a, b_shape, b, out_shape, lo, hi);
  BinaryF32 binary(op, "binary_under_test", lo, hi);
  for (int threads : {1, 2}) {
    std::vector<float> out(want.size(), -999.0f);
    binary.setup(a_shape, b_shape, a.data(), b.data(), out.data(), pools.get(threads));
    binary.run(pools.get(threads));
    for (size_t i = 0; i < out.size(); ++i) {
      ASSERT_NEAR(out[i], want[i], 1e-6f * std::max(1.0f, std::fabs(want[i])))
          << "threads " << threads << " index " << i;
    }
  }
}

TEST(BinaryF32, EveryOpWithYoloBroadcasts) {
  std::mt19937 rng(31);
  ThreadPools pools;
  for (BinaryOp op : kAllOps) {
    check(op, {1, 20, 20, 64}, {1, 20, 20, 64}, rng, pools);  // same shape
    check(op, {1, 8400, 4}, {1, 1, 4}, rng, pools);           // row vector
    check(op, {1, 2, 8400}, {1, 1, 8400}, rng, pools);        // anchors broadcast
    check(op, {3, 5, 7}, {}, rng, pools);                     // scalar as rank 0
    check(op, {1}, {2, 3}, rng, pools);                       // scalar as [1]
    check(op, {4, 1, 3}, {1, 5, 1}, rng, pools);              // both sides broadcast
  }
}

TEST(BinaryF32, RandomShapesUpToRankSix) {
  std::mt19937 rng(32);
  ThreadPools pools;
  for (int trial = 0; trial < 120; ++trial) {
    const size_t rank = rng() % 7;
    Shape full(rank);
    for (size_t& d : full) d = 1 + rng() % 4;
    Shape a = full, b = full;
    for (size_t i = 0; i < rank; ++i) {
      if (rng() % 3 == 0) a[i] = 1;
      if (rng() % 3 == 0) b[i] = 1;
    }
    // Drop leading axes of one side sometimes: ranks may differ.
    if (rank > 0 && rng() % 2) b.erase(b.begin(), b.begin() + rng() % rank);
    check(kAllOps[trial % 6], a, b, rng, pools);
  }
}

TEST(BinaryF32, ClampedOutput) {
  std::mt19937 rng(33);
  ThreadPools pools;
  check(BinaryOp::kAdd, {2, 9, 9}, {9}, rng, pools, 0.0f, 6.0f);
  check(BinaryOp::kMultiply, {2, 9, 9}, {2, 1, 9}, rng, pools, -1.0f, 1.0f);
  EXPECT_THROW(BinaryF32(BinaryOp::kMaximum, "max", 0.0f), std::invalid_argument);
}

TEST(BinaryF32, SetupAgainWithNewShapes) {
  std::mt19937 rng(34);
  BinaryF32 add(BinaryOp::kAdd, "add");
  for (size_t n : {3u, 17u, 1u}) {
    std::vector<float> a = xnn_input<float>(n * 4, 1.5f);
    std::vector<float> b = xnn_input<float>(4);
    std::vector<float> out(n * 4);
    for (size_t i = 0; i < 4; ++i) b[i] = float(i);
    const size_t a_shape[] = {n, 4};
    const size_t b_shape[] = {4};
    add.setup(a_shape, b_shape, a.data(), b.data(), out.data(), nullptr);
    add.run(nullptr);
    for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], 1.5f + float(i % 4));
  }
}

TEST(BinaryF32, RejectsBadShapesNamingTheNode) {
  BinaryF32 mul(BinaryOp::kMultiply, "/model.22/Mul_2");
  std::vector<float> buffer(64);
  const size_t a[] = {2, 3};
  const size_t b[] = {4};
  try {
    mul.setup(a, b, buffer.data(), buffer.data(), buffer.data(), nullptr);
    FAIL() << "expected a throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("/model.22/Mul_2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[2,3] and [4]"), std::string::npos) << e.what();
  }
  const size_t rank7[] = {1, 1, 1, 1, 1, 1, 2};
  EXPECT_THROW(mul.setup(rank7, b, buffer.data(), buffer.data(), buffer.data(), nullptr),
               std::invalid_argument);
}

}  // namespace
}  // namespace yolo::runtime::xnn
