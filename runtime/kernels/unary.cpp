// SPDX-License-Identifier: Apache-2.0
#include "runtime/kernels/unary.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "runtime/kernels/detail.h"

namespace yolo::runtime::kernels {
namespace {

using detail::fail;

bool accepts_integers(UnaryOp op) {
  return op == UnaryOp::kRelu || op == UnaryOp::kNeg || op == UnaryOp::kAbs || op == UnaryOp::kSign;
}

void check_same(ConstTensorRef in, TensorRef out, const char* op) {
  check_dtype(out, in.dtype, op, "output");
  check_shape(out, in.shape, op, "output");
}

template <typename T, typename F>
void map(ConstTensorRef in, TensorRef out, F f) {
  const T* x = in.as<T>();
  T* y = out.as<T>();
  const std::int64_t n = in.size();
  for (std::int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
}

template <typename T>
void run_integer_unary(UnaryOp op, ConstTensorRef in, TensorRef out) {
  using U = std::make_unsigned_t<T>;
  switch (op) {
    case UnaryOp::kRelu:
      return map<T>(in, out, [](T x) { return std::max(x, T{0}); });
    case UnaryOp::kNeg:
      return map<T>(in, out, [](T x) { return static_cast<T>(U{0} - U(x)); });
    case UnaryOp::kAbs:
      return map<T>(in, out, [](T x) { return x < 0 ? static_cast<T>(U{0} - U(x)) : x; });
    case UnaryOp::kSign:
      return map<T>(in, out, [](T x) { return static_cast<T>((x > 0) - (x < 0)); });
    default:
      fail(unary_op_name(op), "not implemented for integers");
  }
}

// Saturating float -> int64 truncation (NaN -> 0), so out-of-range values are defined behaviour.
std::int64_t float_to_int64(float x) {
  if (std::isnan(x)) return 0;
  if (x >= 9.2233720368547758e18F) return std::numeric_limits<std::int64_t>::max();
  if (x <= -9.2233720368547758e18F) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(x);
}

template <typename From, typename To>
To convert(From x) {
  if constexpr (std::is_same_v<From, To>) {
    return x;
  } else if constexpr (std::is_same_v<To, float>) {
    return static_cast<float>(x);
  } else if constexpr (std::is_same_v<From, float>) {
    // numpy's astype: truncate, then wrap to the narrower width.
    return static_cast<To>(
        static_cast<std::make_unsigned_t<To>>(static_cast<std::uint64_t>(float_to_int64(x))));
  } else {
    return static_cast<To>(static_cast<std::make_unsigned_t<To>>(x));
  }
}

// Calls use(f) with the float function of op (a lambda, so the kernel's loop inlines it); not
// for kNot.
template <typename Use>
void with_float_function(UnaryOp op, Use&& use) {
  switch (op) {
    case UnaryOp::kSigmoid:
      return use([](float x) { return 1.0F / (1.0F + std::exp(-x)); });
    case UnaryOp::kRelu:
      return use([](float x) { return std::max(x, 0.0F); });
    case UnaryOp::kHardSwish:
      return use([](float x) { return x * hard_sigmoid_of(x, 1.0F / 6.0F, 0.5F); });
    case UnaryOp::kExp:
      return use([](float x) { return std::exp(x); });
    case UnaryOp::kLog:
      return use([](float x) { return std::log(x); });
    case UnaryOp::kSqrt:
      return use([](float x) { return std::sqrt(x); });
    case UnaryOp::kTanh:
      return use([](float x) { return std::tanh(x); });
    case UnaryOp::kErf:
      return use([](float x) { return std::erf(x); });
    case UnaryOp::kFloor:
      return use([](float x) { return std::floor(x); });
    case UnaryOp::kCeil:
      return use([](float x) { return std::ceil(x); });
    case UnaryOp::kReciprocal:
      return use([](float x) { return 1.0F / x; });
    case UnaryOp::kNeg:
      return use([](float x) { return -x; });
    case UnaryOp::kAbs:
      return use([](float x) { return std::fabs(x); });
    case UnaryOp::kSign:
      return use([](float x) { return static_cast<float>((x > 0) - (x < 0)); });
    case UnaryOp::kNot:
      break;
  }
}

}  // namespace

const char* unary_op_name(UnaryOp op) {
  switch (op) {
    case UnaryOp::kSigmoid:
      return "Sigmoid";
    case UnaryOp::kRelu:
      return "Relu";
    case UnaryOp::kHardSwish:
      return "HardSwish";
    case UnaryOp::kExp:
      return "Exp";
    case UnaryOp::kLog:
      return "Log";
    case UnaryOp::kSqrt:
      return "Sqrt";
    case UnaryOp::kTanh:
      return "Tanh";
    case UnaryOp::kErf:
      return "Erf";
    case UnaryOp::kFloor:
      return "Floor";
    case UnaryOp::kCeil:
      return "Ceil";
    case UnaryOp::kReciprocal:
      return "Reciprocal";
    case UnaryOp::kNeg:
      return "Neg";
    case UnaryOp::kAbs:
      return "Abs";
    case UnaryOp::kSign:
      return "Sign";
    case UnaryOp::kNot:
      return "Not";
  }
  return "?";
}

void check_unary_dtype(UnaryOp op, DType dtype) {
  bool ok = dtype == DType::kFloat32;
  if (op == UnaryOp::kNot) ok = dtype == DType::kBool;
  if (accepts_integers(op) && (dtype == DType::kInt64 || dtype == DType::kInt32)) ok = true;
  if (!ok) fail(unary_op_name(op), std::string("unsupported dtype ") + dtype_name(dtype));
}

void unary(UnaryOp op, ConstTensorRef in, TensorRef out) {
  const char* name = unary_op_name(op);
  check_unary_dtype(op, in.dtype);
  check_same(in, out, name);
  if (op == UnaryOp::kNot) {
    return map<std::uint8_t>(in, out, [](std::uint8_t x) -> std::uint8_t { return x == 0; });
  }
  if (in.dtype == DType::kInt64) return run_integer_unary<std::int64_t>(op, in, out);
  if (in.dtype == DType::kInt32) return run_integer_unary<std::int32_t>(op, in, out);
  with_float_function(op, [&](auto f) { map<float>(in, out, f); });
}

std::function<float(float)> unary_function(UnaryOp op) {
  std::function<float(float)> function;
  with_float_function(op, [&](auto f) { function = f; });
  return function;
}

void leaky_relu(ConstTensorRef in, float alpha, TensorRef out) {
  check_dtype(in, DType::kFloat32, "LeakyRelu", "input");
  check_same(in, out, "LeakyRelu");
  map<float>(in, out, [alpha](float x) { return leaky_relu_of(x, alpha); });
}

void hard_sigmoid(ConstTensorRef in, float alpha, float beta, TensorRef out) {
  check_dtype(in, DType::kFloat32, "HardSigmoid", "input");
  check_same(in, out, "HardSigmoid");
  map<float>(in, out, [alpha, beta](float x) { return hard_sigmoid_of(x, alpha, beta); });
}

void clip(ConstTensorRef in, std::optional<double> min, std::optional<double> max, TensorRef out) {
  check_same(in, out, "Clip");
  detail::dispatch_numeric(in.dtype, "Clip", [&](auto tag) {
    using T = decltype(tag);
    const T lo = min ? static_cast<T>(*min) : std::numeric_limits<T>::lowest();
    const T hi = max ? static_cast<T>(*max) : std::numeric_limits<T>::max();
    map<T>(in, out, [lo, hi](T x) { return std::min(std::max(x, lo), hi); });
  });
}

void cast(ConstTensorRef in, TensorRef out) {
  check_shape(out, in.shape, "Cast", "output");
  const std::int64_t n = in.size();
  if (out.dtype == DType::kBool) {
    detail::dispatch_all(in.dtype, [&](auto tag) {
      using From = decltype(tag);
      const From* x = in.as<From>();
      auto* y = out.as<std::uint8_t>();
      for (std::int64_t i = 0; i < n; ++i) y[i] = x[i] != From{0};
    });
    return;
  }
  // bool is stored as uint8 0/1, so reading it as uint8 gives the 0 or 1 ONNX wants.
  detail::dispatch_all(in.dtype, [&](auto from_tag) {
    detail::dispatch_all(out.dtype, [&](auto to_tag) {
      using From = decltype(from_tag);
      using To = decltype(to_tag);
      const From* x = in.as<From>();
      To* y = out.as<To>();
      for (std::int64_t i = 0; i < n; ++i) y[i] = convert<From, To>(x[i]);
    });
  });
}

}  // namespace yolo::runtime::kernels
