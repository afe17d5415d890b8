// SPDX-License-Identifier: Apache-2.0
#include "runtime/kernels/matmul.h"

#include <Eigen/Core>
#include <algorithm>
#include <string>

#include "runtime/kernels/detail.h"
#include "runtime/kernels/elementwise.h"

namespace yolo::runtime::kernels {

using detail::fail;

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const RowMatrix>;
using Map = Eigen::Map<RowMatrix>;

// MatMul's operand shapes with 1-D promoted: [K] -> [1, K] for A, [K] -> [K, 1] for B.
Shape promote(std::span<const std::int64_t> s, bool left) {
  Shape out(s.size() == 1 ? 2 : s.size(), 1);
  const std::size_t at = left && s.size() == 1 ? 1 : 0;
  std::ranges::copy(s, out.begin() + static_cast<std::ptrdiff_t>(at));
  return out;
}

// One row-major product c[rows, n] = a[rows, k] * b[k, n], its rows split into pool tasks.
struct Product {
  const float* a;
  const float* b;
  float* c;
  std::size_t rows, n, k;
  SgemmIsa isa;
};

void product_rows(void* context, std::size_t first, std::size_t count) {
  const Product& p = *static_cast<const Product*>(context);
  const float* a = p.a + first * p.k;
  float* c = p.c + first * p.n;
  if (p.isa == SgemmIsa::kBaseline) {
    const auto rows = static_cast<Eigen::Index>(count);
    const auto n = static_cast<Eigen::Index>(p.n);
    const auto k = static_cast<Eigen::Index>(p.k);
    Map(c, rows, n).noalias() = ConstMap(a, rows, k) * ConstMap(p.b, k, n);
  } else {
    sgemm_x86(p.isa, a, p.b, c, count, p.n, p.k);
  }
}

void multiply(Product p, pthreadpool_t pool) {
  // About four tasks per thread, in multiples of 24 rows (whole tiles of both kernels' 6 and 8).
  const std::size_t threads = pool == nullptr ? 1 : pthreadpool_get_threads_count(pool);
  const std::size_t per_task = (p.rows + 4 * threads - 1) / (4 * threads);
  const std::size_t tile = std::max<std::size_t>(24, (per_task + 23) / 24 * 24);
  pthreadpool_parallelize_1d_tile_1d(pool, product_rows, &p, p.rows, tile, 0);
}

}  // namespace

Shape matmul_shape(std::span<const std::int64_t> a, std::span<const std::int64_t> b) {
  if (a.empty() || b.empty())
    fail("MatMul", "inputs must have rank >= 1, got " + shape_text(a) + " and " + shape_text(b));
  const Shape sa = promote(a, true);
  const Shape sb = promote(b, false);
  const std::int64_t k = sa.back();
  if (sb[sb.size() - 2] != k) {
    fail("MatMul", "inner dims differ: " + shape_text(a) + " x " + shape_text(b));
  }
  Shape out = broadcast_shape(std::span(sa).first(sa.size() - 2),
                              std::span(sb).first(sb.size() - 2), "MatMul");
  if (a.size() > 1) out.push_back(sa[sa.size() - 2]);
  if (b.size() > 1) out.push_back(sb.back());
  return out;
}

void matmul(ConstTensorRef a, ConstTensorRef b, TensorRef out, pthreadpool_t pool, SgemmIsa isa) {
  check_dtype(a, DType::kFloat32, "MatMul", "A");
  check_dtype(b, DType::kFloat32, "MatMul", "B");
  check_dtype(out, DType::kFloat32, "MatMul", "output");
  check_shape(out, matmul_shape(a.shape, b.shape), "MatMul", "output");
  const Shape sa = promote(a.shape, true);
  const Shape sb = promote(b.shape, false);
  const std::int64_t m = sa[sa.size() - 2];
  const std::int64_t k = sa.back();
  const std::int64_t n = sb.back();
  const std::span<const std::int64_t> batch_a = std::span(sa).first(sa.size() - 2);
  const std::span<const std::int64_t> batch_b = std::span(sb).first(sb.size() - 2);
  const float* pa = a.as<float>();
  const float* pb = b.as<float>();
  float* po = out.as<float>();
  if (out.size() == 0) return;
  const auto product = [&](const float* xa, const float* xb, float* xo, std::int64_t rows) {
    multiply({xa, xb, xo, static_cast<std::size_t>(rows), static_cast<std::size_t>(n),
              static_cast<std::size_t>(k), isa},
             pool);
  };
  // b shared by every batch of a (b has no batch dims of size > 1): one [batch*M, K] x [K, N].
  if (element_count(batch_b) == 1) {
    product(pa, pb, po, element_count(batch_a) * m);
    return;
  }
  const Shape batch = broadcast_shape(batch_a, batch_b, "MatMul");
  const std::span<const std::int64_t> shapes[] = {batch_a, batch_b};
  const auto plan = detail::make_broadcast_plan(shapes, batch);
  std::int64_t index = 0;
  detail::for_each_row(plan, [&](const std::int64_t* offs, std::int64_t count,
                                 const std::int64_t* st, std::int64_t) {
    for (std::int64_t i = 0; i < count; ++i) {
      const float* xa = pa + (offs[0] + i * st[0]) * m * k;
      const float* xb = pb + (offs[1] + i * st[1]) * k * n;
      product(xa, xb, po + index * m * n, m);
      ++index;
    }
  });
}

Shape gemm_shape(std::span<const std::int64_t> a, std::span<const std::int64_t> b, bool trans_a,
                 bool trans_b) {
  if (a.size() != 2 || b.size() != 2) {
    fail("Gemm", "A and B must be 2-D, got " + shape_text(a) + " and " + shape_text(b));
  }
  const std::int64_t m = trans_a ? a[1] : a[0];
  const std::int64_t ka = trans_a ? a[0] : a[1];
  const std::int64_t kb = trans_b ? b[1] : b[0];
  const std::int64_t n = trans_b ? b[0] : b[1];
  if (ka != kb) {
    fail("Gemm", "inner dims differ: " + shape_text(a) + (trans_a ? "^T" : "") + " x " +
                     shape_text(b) + (trans_b ? "^T" : ""));
  }
  return {m, n};
}

void gemm(ConstTensorRef a, ConstTensorRef b, std::optional<ConstTensorRef> c, float alpha,
          float beta, bool trans_a, bool trans_b, TensorRef out) {
  check_dtype(a, DType::kFloat32, "Gemm", "A");
  check_dtype(b, DType::kFloat32, "Gemm", "B");
  check_dtype(out, DType::kFloat32, "Gemm", "output");
  const Shape shape = gemm_shape(a.shape, b.shape, trans_a, trans_b);
  check_shape(out, shape, "Gemm", "output");
  const std::int64_t m = shape[0];
  const std::int64_t n = shape[1];
  const std::int64_t k = trans_a ? a.shape[0] : a.shape[1];
  Map y(out.as<float>(), m, n);
  if (c && beta != 0.0F) {
    check_dtype(*c, DType::kFloat32, "Gemm", "C");
    if (broadcast_shape(c->shape, shape, "Gemm") != shape) {
      fail("Gemm", "C " + shape_text(c->shape) + " does not broadcast to " + shape_text(shape));
    }
    const std::span<const std::int64_t> shapes[] = {c->shape};
    const auto plan = detail::make_broadcast_plan(shapes, shape);
    const float* pc = c->as<float>();
    float* py = out.as<float>();
    detail::for_each_row(plan, [&](const std::int64_t* offs, std::int64_t count,
                                   const std::int64_t* st, std::int64_t o) {
      for (std::int64_t i = 0; i < count; ++i) py[o + i] = beta * pc[offs[0] + i * st[0]];
    });
  } else {
    y.setZero();
  }
  if (m == 0 || n == 0) return;
  const ConstMap ma(a.as<float>(), a.shape[0], a.shape[1]);
  const ConstMap mb(b.as<float>(), b.shape[0], b.shape[1]);
  if (k == 0) return;
  if (trans_a && trans_b) {
    y.noalias() += alpha * (ma.transpose() * mb.transpose());
  } else if (trans_a) {
    y.noalias() += alpha * (ma.transpose() * mb);
  } else if (trans_b) {
    y.noalias() += alpha * (ma * mb.transpose());
  } else {
    y.noalias() += alpha * (ma * mb);
  }
}

}  // namespace yolo::runtime::kernels
