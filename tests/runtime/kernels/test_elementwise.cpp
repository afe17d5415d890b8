// SPDX-License-Identifier: Apache-2.0
// Elementwise kernels (runtime/kernels/elementwise.h, unary.h) against naive references written
// here: every output element is recomputed from its multi-index.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/unary.h"
#include "tests/support/random_tensors.h"

namespace yolo::runtime::kernels {
namespace {

using test::expect_throws_naming;
using test::unravel;
using test::value_at;

test::Random rng(1234);

// Random values, kept away from zero so Div/Mod have valid divisors.
Tensor random_tensor(DType type, Shape shape, bool nonzero = false) {
  Tensor t(type, std::move(shape));
  for (std::int64_t i = 0; i < t.size(); ++i) {
    std::int64_t v = rng.pick(-9, 9);
    if (nonzero && v == 0) v = 3;
    switch (type) {
      case DType::kFloat32:
        t.data_as<float>()[i] = static_cast<float>(v) * 0.75F + (nonzero ? 0.0F : 0.1F);
        break;
      case DType::kInt64:
        t.data_as<std::int64_t>()[i] = v;
        break;
      case DType::kInt32:
        t.data_as<std::int32_t>()[i] = static_cast<std::int32_t>(v);
        break;
      default:
        t.data_as<std::uint8_t>()[i] = static_cast<std::uint8_t>(v > 0);
    }
  }
  return t;
}

// An output shape of rank 0..4 with odd sizes, sometimes an empty dim.
Shape random_shape(bool allow_empty) {
  static const std::int64_t kDims[] = {1, 1, 2, 3, 5, 7, 9, 17};
  Shape s(static_cast<std::size_t>(rng.pick(0, 4)));
  for (auto& d : s) d = kDims[rng.pick(0, 7)];
  if (allow_empty && !s.empty() && rng.pick(0, 9) == 0)
    s[static_cast<std::size_t>(rng.pick(0, s.size() - 1))] = 0;
  return s;
}

// A shape that broadcasts to out: leading dims dropped and some dims set to 1.
Shape broadcastable_to(const Shape& out) {
  Shape s(out.begin() + rng.pick(0, static_cast<std::int64_t>(out.size())), out.end());
  for (auto& d : s) {
    if (rng.pick(0, 2) == 0) d = 1;
  }
  return s;
}

// Flat offset in `in` of the output multi-index idx under numpy broadcasting.
std::int64_t broadcast_offset(const std::vector<std::int64_t>& idx, const Shape& in) {
  std::int64_t off = 0;
  const std::size_t lead = idx.size() - in.size();
  for (std::size_t d = 0; d < in.size(); ++d) off = off * in[d] + (in[d] == 1 ? 0 : idx[lead + d]);
  return off;
}

// The reference result of op in double precision (integers: exact, as they are small).
double reference(BinaryOp op, double x, double y, bool integer) {
  switch (op) {
    case BinaryOp::kAdd:
      return x + y;
    case BinaryOp::kSub:
      return x - y;
    case BinaryOp::kMul:
      return x * y;
    case BinaryOp::kDiv:
      return integer ? std::trunc(x / y)
                     : static_cast<double>(static_cast<float>(x) / static_cast<float>(y));
    case BinaryOp::kPow:
      return integer ? std::pow(x, y)
                     : static_cast<double>(std::pow(static_cast<float>(x), static_cast<float>(y)));
    case BinaryOp::kMin:
      return std::min(x, y);
    case BinaryOp::kMax:
      return std::max(x, y);
    case BinaryOp::kMod:
      return x - y * std::floor(x / y);
    case BinaryOp::kFmod:
      return std::fmod(x, y);
    case BinaryOp::kEqual:
      return x == y;
    case BinaryOp::kLess:
      return x < y;
    case BinaryOp::kLessOrEqual:
      return x <= y;
    case BinaryOp::kGreater:
      return x > y;
    case BinaryOp::kGreaterOrEqual:
      return x >= y;
    case BinaryOp::kAnd:
      return x != 0 && y != 0;
    case BinaryOp::kOr:
      return x != 0 || y != 0;
    case BinaryOp::kXor:
      return (x != 0) != (y != 0);
  }
  return 0;
}

// Equal within a relative 1e-5, with NaN matching NaN and infinities matching exactly.
bool close(double got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= 1e-5 * (1 + std::fabs(want));
}

TEST(BroadcastShape, FollowsNumpyRulesInEveryDirection) {
  EXPECT_EQ(broadcast_shape(Shape{2, 1, 4}, Shape{3, 1}, "Add"), (Shape{2, 3, 4}));
  EXPECT_EQ(broadcast_shape(Shape{}, Shape{5}, "Add"), (Shape{5}));
  EXPECT_EQ(broadcast_shape(Shape{1, 5}, Shape{}, "Add"), (Shape{1, 5}));
  EXPECT_EQ(broadcast_shape(Shape{0, 1}, Shape{1, 3}, "Add"), (Shape{0, 3}));
  const Shape all[] = {Shape{4, 1, 1}, Shape{1, 6, 1}, Shape{7}};
  EXPECT_EQ(broadcast_shapes(all, "Max"), (Shape{4, 6, 7}));
  expect_throws_naming(
      [] {
        broadcast_shape(Shape{2, 3}, Shape{4}, "Mul");
      },
      "Mul: shapes [2,3] and [4]");
}

TEST(Binary, MatchesReferenceOverRandomBroadcasts) {
  const BinaryOp ops[] = {BinaryOp::kAdd,     BinaryOp::kSub,           BinaryOp::kMul,
                          BinaryOp::kDiv,     BinaryOp::kPow,           BinaryOp::kMin,
                          BinaryOp::kMax,     BinaryOp::kMod,           BinaryOp::kFmod,
                          BinaryOp::kEqual,   BinaryOp::kLess,          BinaryOp::kLessOrEqual,
                          BinaryOp::kGreater, BinaryOp::kGreaterOrEqual};
  const DType types[] = {DType::kFloat32, DType::kInt64, DType::kInt32};
  for (auto op : ops) {
    for (auto type : types) {
      if (op == BinaryOp::kMod && type == DType::kFloat32) continue;
      for (int trial = 0; trial < 30; ++trial) {
        const Shape out_shape = random_shape(true);
        const bool divisor = op == BinaryOp::kDiv || op == BinaryOp::kMod || op == BinaryOp::kFmod;
        Tensor a = random_tensor(type, broadcastable_to(out_shape));
        Tensor b = random_tensor(type, broadcastable_to(out_shape), divisor);
        if (op == BinaryOp::kPow && type != DType::kFloat32) {
          for (std::int64_t i = 0; i < b.size(); ++i) {  // small non-negative integer exponents
            if (type == DType::kInt64) b.data_as<std::int64_t>()[i] = rng.pick(0, 3);
            if (type == DType::kInt32)
              b.data_as<std::int32_t>()[i] = static_cast<std::int32_t>(rng.pick(0, 3));
          }
        }
        const Shape shape = broadcast_shape(a.shape(), b.shape(), "test");
        Tensor out(binary_result_dtype(op, type, type), shape);
        binary(op, a, b, out);
        for (std::int64_t i = 0; i < out.size(); ++i) {
          const auto idx = unravel(i, shape);
          const double x = value_at(a, broadcast_offset(idx, a.shape()));
          const double y = value_at(b, broadcast_offset(idx, b.shape()));
          const double want = reference(op, x, y, type != DType::kFloat32);
          ASSERT_TRUE(close(value_at(out, i), want))
              << value_at(out, i) << " vs " << want << ": " << binary_op_name(op) << " "
              << dtype_name(type) << " " << shape_text(a.shape()) << " x " << shape_text(b.shape())
              << " at " << i << ": " << x << ", " << y;
        }
      }
    }
  }
}

TEST(Binary, ModSignsFollowOnnx) {
  Tensor a(DType::kInt64, {4});
  Tensor b(DType::kInt64, {4});
  const std::int64_t av[] = {-7, 7, -7, 7};
  const std::int64_t bv[] = {3, -3, -3, 3};
  std::copy(av, av + 4, a.data_as<std::int64_t>());
  std::copy(bv, bv + 4, b.data_as<std::int64_t>());
  Tensor mod(DType::kInt64, {4});
  binary(BinaryOp::kMod, a, b, mod);
  EXPECT_EQ(std::vector<std::int64_t>(mod.values<std::int64_t>().begin(),
                                      mod.values<std::int64_t>().end()),
            (std::vector<std::int64_t>{2, -2, -1, 1}));
  binary(BinaryOp::kFmod, a, b, mod);
  EXPECT_EQ(std::vector<std::int64_t>(mod.values<std::int64_t>().begin(),
                                      mod.values<std::int64_t>().end()),
            (std::vector<std::int64_t>{-1, 1, -1, 1}));
}

TEST(Binary, IntegerEdgeCasesAreDefined) {
  Tensor a(DType::kInt64, {});
  Tensor b(DType::kInt64, {});
  Tensor out(DType::kInt64, {});
  *a.data_as<std::int64_t>() = std::numeric_limits<std::int64_t>::min();
  *b.data_as<std::int64_t>() = -1;
  binary(BinaryOp::kDiv, a, b, out);
  EXPECT_EQ(*out.data_as<std::int64_t>(), std::numeric_limits<std::int64_t>::min());
  binary(BinaryOp::kMod, a, b, out);
  EXPECT_EQ(*out.data_as<std::int64_t>(), 0);
  *b.data_as<std::int64_t>() = 0;
  expect_throws_naming([&] { binary(BinaryOp::kDiv, a, b, out); }, "Div: integer division by zero");
  expect_throws_naming([&] { binary(BinaryOp::kMod, a, b, out); }, "Mod: integer division by zero");
}

TEST(Binary, PowTakesAnExponentOfAnotherType) {
  Tensor base = random_tensor(DType::kFloat32, {3, 5});
  Tensor exponent(DType::kInt64, {5});
  for (std::int64_t i = 0; i < 5; ++i) exponent.data_as<std::int64_t>()[i] = i - 1;
  ASSERT_EQ(binary_result_dtype(BinaryOp::kPow, DType::kFloat32, DType::kInt64), DType::kFloat32);
  Tensor out(DType::kFloat32, {3, 5});
  binary(BinaryOp::kPow, base, exponent, out);
  for (std::int64_t i = 0; i < 15; ++i) {
    const double want =
        std::pow(static_cast<double>(base.data_as<float>()[i]), static_cast<double>(i % 5 - 1));
    EXPECT_NEAR(out.data_as<float>()[i], want, 1e-5 * (1 + std::fabs(want)));
  }
}

TEST(Binary, LogicalOpsOnBool) {
  for (auto op : {BinaryOp::kAnd, BinaryOp::kOr, BinaryOp::kXor, BinaryOp::kEqual}) {
    Tensor a = random_tensor(DType::kBool, {3, 1});
    Tensor b = random_tensor(DType::kBool, {4});
    Tensor out(DType::kBool, {3, 4});
    binary(op, a, b, out);
    for (std::int64_t i = 0; i < 12; ++i) {
      EXPECT_EQ(value_at(out, i), reference(op, value_at(a, i / 4), value_at(b, i % 4), true));
    }
  }
}

TEST(Binary, OutputMayAliasAnInputOfTheOutputShape) {
  Tensor a = random_tensor(DType::kFloat32, {4, 6});
  Tensor b = random_tensor(DType::kFloat32, {6});
  Tensor expected(DType::kFloat32, {4, 6});
  binary(BinaryOp::kSub, a, b, expected);
  binary(BinaryOp::kSub, a, b, a);
  for (std::int64_t i = 0; i < 24; ++i)
    EXPECT_EQ(a.data_as<float>()[i], expected.data_as<float>()[i]);
}

TEST(Binary, RejectsBadTypesAndShapes) {
  Tensor f = random_tensor(DType::kFloat32, {2});
  Tensor i = random_tensor(DType::kInt64, {2});
  Tensor out(DType::kFloat32, {2});
  expect_throws_naming([&] { binary(BinaryOp::kAdd, f, i, out); },
                       "Add: inputs have different dtypes");
  expect_throws_naming(
      [&] { binary_result_dtype(BinaryOp::kMod, DType::kFloat32, DType::kFloat32); },
      "Mod: fmod=0");
  expect_throws_naming([&] { binary_result_dtype(BinaryOp::kAnd, DType::kInt64, DType::kInt64); },
                       "And");
  Tensor wrong(DType::kFloat32, {3});
  expect_throws_naming([&] { binary(BinaryOp::kMul, f, f, wrong); }, "Mul: output has shape [3]");
  Tensor wrong_type(DType::kInt64, {2});
  expect_throws_naming([&] { binary(BinaryOp::kLess, f, f, wrong_type); },
                       "Less: output has dtype int64");
}

TEST(Variadic, FoldsAnyNumberOfBroadcastInputs) {
  Tensor a = random_tensor(DType::kFloat32, {2, 1, 3});
  Tensor b = random_tensor(DType::kFloat32, {4, 1});
  Tensor c = random_tensor(DType::kFloat32, {3});
  const ConstTensorRef inputs[] = {a, b, c};
  Tensor out(DType::kFloat32, {2, 4, 3});
  variadic(BinaryOp::kMax, inputs, out);
  for (std::int64_t i = 0; i < out.size(); ++i) {
    const auto idx = unravel(i, out.shape());
    const double want = std::max({value_at(a, broadcast_offset(idx, a.shape())),
                                  value_at(b, broadcast_offset(idx, b.shape())),
                                  value_at(c, broadcast_offset(idx, c.shape()))});
    EXPECT_EQ(value_at(out, i), want);
  }
  Tensor single(DType::kFloat32, {3});
  variadic(BinaryOp::kMin, std::span<const ConstTensorRef>(inputs + 2, 1), single);
  EXPECT_EQ(single.data_as<float>()[2], c.data_as<float>()[2]);
  expect_throws_naming([&] { variadic(BinaryOp::kMin, {}, single); },
                       "Min: needs at least one input");
}

TEST(Where, SelectsWithThreeWayBroadcasting) {
  for (int trial = 0; trial < 50; ++trial) {
    const Shape shape = random_shape(true);
    for (auto type : {DType::kFloat32, DType::kInt64, DType::kBool}) {
      Tensor c = random_tensor(DType::kBool, broadcastable_to(shape));
      Tensor x = random_tensor(type, broadcastable_to(shape));
      Tensor y = random_tensor(type, broadcastable_to(shape));
      const Shape shapes[] = {c.shape(), x.shape(), y.shape()};
      Tensor out(type, broadcast_shapes(shapes, "Where"));
      where(c, x, y, out);
      for (std::int64_t i = 0; i < out.size(); ++i) {
        const auto idx = unravel(i, out.shape());
        const double want = value_at(c, broadcast_offset(idx, c.shape())) != 0
                                ? value_at(x, broadcast_offset(idx, x.shape()))
                                : value_at(y, broadcast_offset(idx, y.shape()));
        ASSERT_EQ(value_at(out, i), want);
      }
    }
  }
  Tensor x = random_tensor(DType::kFloat32, {2});
  Tensor out(DType::kFloat32, {2});
  expect_throws_naming([&] { where(x, x, x, out); }, "Where: condition has dtype float32");
}

TEST(Unary, FloatOpsMatchTheStandardLibrary) {
  struct Case {
    UnaryOp op;
    double (*f)(double);
  };
  const Case cases[] = {
      {UnaryOp::kSigmoid, [](double x) { return 1 / (1 + std::exp(-x)); }},
      {UnaryOp::kRelu, [](double x) { return std::max(x, 0.0); }},
      {UnaryOp::kHardSwish, [](double x) { return x * std::min(1.0, std::max(0.0, x / 6 + 0.5)); }},
      {UnaryOp::kExp, [](double x) { return std::exp(x); }},
      {UnaryOp::kLog, [](double x) { return std::log(std::fabs(x) + 0.5); }},
      {UnaryOp::kSqrt, [](double x) { return std::sqrt(std::fabs(x)); }},
      {UnaryOp::kTanh, [](double x) { return std::tanh(x); }},
      {UnaryOp::kErf, [](double x) { return std::erf(x); }},
      {UnaryOp::kFloor, [](double x) { return std::floor(x); }},
      {UnaryOp::kCeil, [](double x) { return std::ceil(x); }},
      {UnaryOp::kReciprocal, [](double x) { return 1 / x; }},
      {UnaryOp::kNeg, [](double x) { return -x; }},
      {UnaryOp::kAbs, [](double x) { return std::fabs(x); }},
      {UnaryOp::kSign, [](double x) { return static_cast<double>((x > 0) - (x < 0)); }},
  };
  for (const auto& c : cases) {
    Tensor in(DType::kFloat32, {3, 7});
    for (std::int64_t i = 0; i < in.size(); ++i) {
      float v = static_cast<float>(i - 10) * 0.37F;
      if (c.op == UnaryOp::kLog) v = std::fabs(v) + 0.5F;
      if (c.op == UnaryOp::kSqrt) v = std::fabs(v);
      in.data_as<float>()[i] = v;
    }
    Tensor out(DType::kFloat32, {3, 7});
    unary(c.op, in, out);
    for (std::int64_t i = 0; i < in.size(); ++i) {
      double x = in.data_as<float>()[i];
      if (c.op == UnaryOp::kLog) x = std::fabs(x) - 0.5;
      const double want = c.f(x);
      ASSERT_TRUE(close(out.data_as<float>()[i], want))
          << out.data_as<float>()[i] << " vs " << want << ": " << unary_op_name(c.op) << " at "
          << x;
    }
  }
}

TEST(Unary, IntegerAndBoolOps) {
  Tensor in(DType::kInt32, {5});
  const std::int32_t values[] = {-3, -1, 0, 2, std::numeric_limits<std::int32_t>::min()};
  std::copy(values, values + 5, in.data_as<std::int32_t>());
  Tensor out(DType::kInt32, {5});
  unary(UnaryOp::kAbs, in, out);
  EXPECT_EQ(out.data_as<std::int32_t>()[0], 3);
  EXPECT_EQ(out.data_as<std::int32_t>()[4], std::numeric_limits<std::int32_t>::min());
  unary(UnaryOp::kRelu, in, out);
  EXPECT_EQ(out.data_as<std::int32_t>()[0], 0);
  EXPECT_EQ(out.data_as<std::int32_t>()[3], 2);
  unary(UnaryOp::kNeg, in, in);
  EXPECT_EQ(in.data_as<std::int32_t>()[0], 3);
  Tensor flags(DType::kBool, {2});
  flags.data_as<std::uint8_t>()[0] = 1;
  flags.data_as<std::uint8_t>()[1] = 0;
  unary(UnaryOp::kNot, flags, flags);
  EXPECT_EQ(flags.data_as<std::uint8_t>()[0], 0);
  EXPECT_EQ(flags.data_as<std::uint8_t>()[1], 1);
  Tensor i64(DType::kInt64, {1});
  expect_throws_naming([&] { unary(UnaryOp::kExp, i64, i64); }, "Exp: unsupported dtype int64");
  Tensor f(DType::kFloat32, {2});
  expect_throws_naming([&] { unary(UnaryOp::kSigmoid, f, out); },
                       "Sigmoid: output has dtype int32");
}

TEST(Unary, ParameterisedActivations) {
  Tensor in = random_tensor(DType::kFloat32, {2, 9});
  Tensor out(DType::kFloat32, {2, 9});
  leaky_relu(in, 0.1F, out);
  for (std::int64_t i = 0; i < in.size(); ++i) {
    const float x = in.data_as<float>()[i];
    EXPECT_FLOAT_EQ(out.data_as<float>()[i], x >= 0 ? x : 0.1F * x);
  }
  hard_sigmoid(in, 0.2F, 0.5F, out);
  for (std::int64_t i = 0; i < in.size(); ++i) {
    const float x = in.data_as<float>()[i];
    EXPECT_FLOAT_EQ(out.data_as<float>()[i], std::max(0.0F, std::min(1.0F, 0.2F * x + 0.5F)));
  }
  clip(in, -1.0, std::nullopt, out);
  for (std::int64_t i = 0; i < in.size(); ++i) {
    EXPECT_FLOAT_EQ(out.data_as<float>()[i], std::max(in.data_as<float>()[i], -1.0F));
  }
  Tensor ints = random_tensor(DType::kInt64, {11});
  Tensor clipped(DType::kInt64, {11});
  clip(ints, -2.0, 4.0, clipped);
  for (std::int64_t i = 0; i < 11; ++i) {
    EXPECT_EQ(clipped.data_as<std::int64_t>()[i],
              std::clamp<std::int64_t>(ints.data_as<std::int64_t>()[i], -2, 4));
  }
  Tensor b(DType::kBool, {11});
  expect_throws_naming([&] { clip(b, 0.0, 1.0, b); }, "Clip: unsupported dtype bool");
}

TEST(Cast, ConvertsLikeNumpyAndOnnxRuntime) {
  Tensor in(DType::kFloat32, {7});
  const float values[] = {2.7F, -2.7F, 300.5F, -1.5F, 0.0F, std::nanf(""), 1e30F};
  std::copy(values, values + 7, in.data_as<float>());
  Tensor i64(DType::kInt64, {7});
  cast(in, i64);
  EXPECT_EQ(i64.data_as<std::int64_t>()[0], 2);
  EXPECT_EQ(i64.data_as<std::int64_t>()[1], -2);
  EXPECT_EQ(i64.data_as<std::int64_t>()[2], 300);
  EXPECT_EQ(i64.data_as<std::int64_t>()[5], 0);
  EXPECT_EQ(i64.data_as<std::int64_t>()[6], std::numeric_limits<std::int64_t>::max());
  Tensor u8(DType::kUInt8, {7});
  cast(in, u8);
  EXPECT_EQ(u8.data_as<std::uint8_t>()[2], 44);   // 300 wraps mod 256
  EXPECT_EQ(u8.data_as<std::uint8_t>()[3], 255);  // -1 wraps
  Tensor i8(DType::kInt8, {7});
  cast(i64, i8);
  EXPECT_EQ(i8.data_as<std::int8_t>()[2], 44);
  EXPECT_EQ(i8.data_as<std::int8_t>()[1], -2);
  Tensor flags(DType::kBool, {7});
  cast(in, flags);
  EXPECT_EQ(flags.data_as<std::uint8_t>()[0], 1);
  EXPECT_EQ(flags.data_as<std::uint8_t>()[4], 0);
  EXPECT_EQ(flags.data_as<std::uint8_t>()[5], 1);  // NaN is non-zero
  Tensor back(DType::kFloat32, {7});
  cast(flags, back);
  EXPECT_EQ(back.data_as<float>()[0], 1.0F);
  EXPECT_EQ(back.data_as<float>()[4], 0.0F);
  Tensor i32(DType::kInt32, {7});
  cast(i64, i32);
  EXPECT_EQ(i32.data_as<std::int32_t>()[1], -2);
  cast(i32, back);
  EXPECT_EQ(back.data_as<float>()[2], 300.0F);
  Tensor wrong(DType::kInt32, {6});
  expect_throws_naming([&] { cast(in, wrong); }, "Cast: output has shape [6]");
}

}  // namespace
}  // namespace yolo::runtime::kernels
