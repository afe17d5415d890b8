// SPDX-License-Identifier: Apache-2.0
// Shape and data-movement kernels (shape_ops.h, transpose.h, concat_split.h, slice.h, pad.h,
// expand.h, gather.h, resize.h) against naive per-element references written here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/kernels/concat_split.h"
#include "runtime/kernels/expand.h"
#include "runtime/kernels/gather.h"
#include "runtime/kernels/pad.h"
#include "runtime/kernels/resize.h"
#include "runtime/kernels/shape_ops.h"
#include "runtime/kernels/slice.h"
#include "runtime/kernels/transpose.h"
#include "runtime/xnn/xnn_operator.h"
#include "tests/support/random_tensors.h"

namespace yolo::runtime::kernels {
namespace {

using test::expect_throws_naming;
using test::unravel;
using test::value_at;

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

test::Random rng(99);

// A random axis of a tensor of rank `rank`, as ONNX takes it: a negative one counts from the end.
std::int64_t random_axis(std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  return rng.pick(-r, r - 1);
}

// The dimension `axis` (negative: from the end) names among `rank`.
std::size_t axis_index(std::int64_t axis, std::size_t rank) {
  return static_cast<std::size_t>(axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis);
}

// A tensor whose element i holds i (as the dtype allows), so any misplaced element shows.
Tensor iota_tensor(DType type, Shape shape) {
  Tensor t(type, std::move(shape));
  for (std::int64_t i = 0; i < t.size(); ++i) {
    switch (type) {
      case DType::kFloat32:
        t.data_as<float>()[i] = static_cast<float>(i) + 0.5F;
        break;
      case DType::kInt64:
        t.data_as<std::int64_t>()[i] = i * 1000003;
        break;
      case DType::kInt32:
        t.data_as<std::int32_t>()[i] = static_cast<std::int32_t>(i);
        break;
      default:
        t.data_as<std::uint8_t>()[i] = static_cast<std::uint8_t>(i * 7);
    }
  }
  return t;
}

Shape random_shape(std::size_t min_rank, std::size_t max_rank, bool allow_empty) {
  static const std::int64_t kDims[] = {1, 2, 3, 4, 5, 7, 9, 13};
  Shape s(static_cast<std::size_t>(
      rng.pick(static_cast<std::int64_t>(min_rank), static_cast<std::int64_t>(max_rank))));
  for (auto& d : s) d = kDims[rng.pick(0, 7)];
  if (allow_empty && !s.empty() && rng.pick(0, 7) == 0)
    s[static_cast<std::size_t>(rng.pick(0, s.size() - 1))] = 0;
  return s;
}

std::int64_t ravel(const std::vector<std::int64_t>& idx, std::span<const std::int64_t> shape) {
  std::int64_t off = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) off = off * shape[d] + idx[d];
  return off;
}

// Checks out[i] == in[source(index of i)] for every output element.
void expect_mapping(
    const Tensor& in, const Tensor& out,
    const std::function<std::vector<std::int64_t>(std::vector<std::int64_t>)>& source,
    const std::string& what) {
  for (std::int64_t i = 0; i < out.size(); ++i) {
    const auto src = source(unravel(i, out.shape()));
    ASSERT_EQ(value_at(out, i), value_at(in, ravel(src, in.shape())))
        << what << " at output " << i << " of " << shape_text(out.shape());
  }
}

TEST(ShapeOps, Reshape) {
  EXPECT_EQ(reshape_shape(Shape{2, 3, 4}, Shape{0, -1}, false), (Shape{2, 12}));
  EXPECT_EQ(reshape_shape(Shape{2, 3, 4}, Shape{-1}, false), (Shape{24}));
  EXPECT_EQ(reshape_shape(Shape{0, 3}, Shape{0, 3}, true), (Shape{0, 3}));
  EXPECT_EQ(reshape_shape(Shape{2, 0}, Shape{0, -1}, false), (Shape{2, 0}));
  EXPECT_EQ(reshape_shape(Shape{}, Shape{1, 1}, false), (Shape{1, 1}));
  expect_throws_naming(
      [] {
        reshape_shape(Shape{2, 3}, Shape{4, -1}, false);
      },
      "Reshape: cannot infer");
  expect_throws_naming(
      [] {
        reshape_shape(Shape{2, 3}, Shape{-1, -1}, false);
      },
      "more than one -1");
  expect_throws_naming(
      [] {
        reshape_shape(Shape{2, 3}, Shape{5}, false);
      },
      "Reshape: input [2,3] has 6");
  expect_throws_naming([] { reshape_shape(Shape{0, 3}, Shape{0, -1}, true); }, "allowzero");
}

TEST(ShapeOps, FlattenSqueezeUnsqueeze) {
  EXPECT_EQ(flatten_shape(Shape{2, 3, 4}, 1), (Shape{2, 12}));
  EXPECT_EQ(flatten_shape(Shape{2, 3, 4}, 0), (Shape{1, 24}));
  EXPECT_EQ(flatten_shape(Shape{2, 3, 4}, 3), (Shape{24, 1}));
  EXPECT_EQ(flatten_shape(Shape{2, 3, 4}, -1), (Shape{6, 4}));
  expect_throws_naming([] { flatten_shape(Shape{2, 3}, 3); }, "Flatten: axis 3");
  EXPECT_EQ(squeeze_shape(Shape{1, 3, 1, 2}, {}), (Shape{3, 2}));
  EXPECT_EQ(squeeze_shape(Shape{1, 3, 1, 2}, Shape{-2}), (Shape{1, 3, 2}));
  expect_throws_naming([] { squeeze_shape(Shape{1, 3}, Shape{1}); }, "Squeeze: axis 1 has size 3");
  EXPECT_EQ(unsqueeze_shape(Shape{3, 4}, Shape{0, -1}), (Shape{1, 3, 4, 1}));
  EXPECT_EQ(unsqueeze_shape(Shape{}, Shape{0}), (Shape{1}));
  EXPECT_EQ(unsqueeze_shape(Shape{3}, Shape{2, 0}), (Shape{1, 3, 1}));
  expect_throws_naming(
      [] {
        unsqueeze_shape(Shape{3}, Shape{0, 0});
      },
      "Unsqueeze: axis 0 is repeated");
  expect_throws_naming([] { unsqueeze_shape(Shape{3}, Shape{2}); },
                       "Unsqueeze: axis 2 is out of range");
}

TEST(ShapeOps, ShapeConstantOfShapeAndRange) {
  const Shape s = {1, 3, 640, 480};
  EXPECT_EQ(shape_values(s, std::nullopt, std::nullopt), s);
  EXPECT_EQ(shape_values(s, 2, std::nullopt), (Shape{640, 480}));
  EXPECT_EQ(shape_values(s, -3, -1), (Shape{3, 640}));
  EXPECT_EQ(shape_values(s, 3, 1), Shape{});
  EXPECT_EQ(shape_values(s, -10, 10), s);

  Tensor value(DType::kInt64, {1});
  *value.data_as<std::int64_t>() = 7;
  Tensor out(DType::kInt64, constant_of_shape_shape(Shape{2, 3}));
  fill(value, out);
  for (auto v : out.values<std::int64_t>()) EXPECT_EQ(v, 7);
  expect_throws_naming([] { constant_of_shape_shape(Shape{-1}); }, "ConstantOfShape: negative");

  auto scalar = [](float v) {
    Tensor t(DType::kFloat32, {});
    *t.data_as<float>() = v;
    return t;
  };
  const Tensor start = scalar(1.0F), limit = scalar(-2.0F), delta = scalar(-0.75F);
  Tensor r(DType::kFloat32, range_shape(start, limit, delta));
  ASSERT_EQ(r.shape(), (Shape{4}));
  range(start, delta, r);
  EXPECT_FLOAT_EQ(r.data_as<float>()[3], -1.25F);
  Tensor i0(DType::kInt64, {}), i1(DType::kInt64, {}), i2(DType::kInt64, {});
  *i0.data_as<std::int64_t>() = 10;
  *i1.data_as<std::int64_t>() = 3;
  *i2.data_as<std::int64_t>() = 2;
  EXPECT_EQ(range_shape(i0, i1, i2), (Shape{0}));
  *i2.data_as<std::int64_t>() = 0;
  expect_throws_naming([&] { range_shape(i0, i1, i2); }, "Range: delta is 0");
}

// Transposes `in` by `perm` (empty: the axes reversed, as ONNX's default) and checks that output
// element o came from input element perm^-1(o).
void expect_transpose(const Tensor& in, const std::vector<std::int64_t>& perm,
                      const std::string& what) {
  Tensor out(in.dtype(), transpose_shape(in.shape(), perm));
  transpose(in, perm, out);
  std::vector<std::int64_t> p = perm;
  if (p.empty()) {
    for (std::size_t i = in.shape().size(); i-- > 0;) p.push_back(static_cast<std::int64_t>(i));
  }
  expect_mapping(
      in, out,
      [&](std::vector<std::int64_t> o) {
        std::vector<std::int64_t> src(o.size());
        for (std::size_t i = 0; i < o.size(); ++i) src[static_cast<std::size_t>(p[i])] = o[i];
        return src;
      },
      what);
}

TEST(Transpose, MatchesReferenceForRandomPermutations) {
  for (int trial = 0; trial < 200; ++trial) {
    const Shape shape = random_shape(0, 5, true);
    std::vector<std::int64_t> perm(shape.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng.engine());
    const DType type = trial % 3 == 0   ? DType::kFloat32
                       : trial % 3 == 1 ? DType::kInt64
                                        : DType::kUInt8;
    expect_transpose(iota_tensor(type, shape), perm, "Transpose " + shape_text(perm));
  }
}

TEST(Transpose, LayoutChangesAndDefaultPerm) {
  for (const auto& [shape, perm] : std::vector<std::pair<Shape, Shape>>{
           {{1, 37, 20, 21}, {0, 2, 3, 1}},  // NCHW -> NHWC
           {{2, 20, 21, 37}, {0, 3, 1, 2}},  // NHWC -> NCHW
           {{1, 84, 8400}, {0, 2, 1}},       // YOLO head
           {{4, 2, 33, 65}, {}},             // reversed
       }) {
    expect_transpose(iota_tensor(DType::kFloat32, shape), perm, "Transpose " + shape_text(shape));
  }
  expect_throws_naming([] { transpose_shape(Shape{2, 3}, Shape{0, 0}); }, "Transpose: perm [0,0]");
  expect_throws_naming([] { transpose_shape(Shape{2, 3}, Shape{0}); }, "Transpose: perm [0]");
}

// The batched 2-D transposes on 3 threads: bands of 32 rows, whole and partial, of one and of
// several matrices, each element where the reference puts it; a 3-D permutation stays on the
// calling thread and is right too.
TEST(Transpose, SharedAmongThreads) {
  xnn::ThreadPools pools;
  for (const auto& [shape, perm] : std::vector<std::pair<Shape, Shape>>{
           {{1, 84, 8400}, {0, 2, 1}},       // YOLO head
           {{1, 2, 32, 400}, {0, 1, 3, 2}},  // attention heads
           {{3, 70, 33}, {0, 2, 1}},
           {{4, 5, 6}, {2, 0, 1}},
       }) {
    for (const DType type : {DType::kFloat32, DType::kUInt8}) {
      const Tensor in = iota_tensor(type, shape);
      Tensor one(type, transpose_shape(shape, perm));
      Tensor shared(type, transpose_shape(shape, perm));
      transpose(in, perm, one);
      transpose(in, perm, shared, pools.get(3));
      const auto bytes = static_cast<std::size_t>(one.size()) * dtype_size(type);
      EXPECT_EQ(std::memcmp(one.data(), shared.data(), bytes), 0) << shape_text(shape);
      expect_transpose(in, perm, "Transpose " + shape_text(shape));
    }
  }
}

TEST(ConcatSplit, RoundTripOnEveryAxis) {
  for (int trial = 0; trial < 100; ++trial) {
    const Shape base = random_shape(1, 4, false);
    const std::int64_t axis = random_axis(base.size());
    const std::size_t a = axis_index(axis, base.size());
    const int parts = static_cast<int>(rng.pick(1, 4));
    std::vector<Tensor> inputs;
    std::vector<Shape> shapes;
    for (int p = 0; p < parts; ++p) {
      Shape s = base;
      s[a] = rng.pick(0, 4);
      inputs.push_back(iota_tensor(DType::kInt32, s));
      shapes.push_back(s);
    }
    std::vector<ConstTensorRef> refs(inputs.begin(), inputs.end());
    Tensor out(DType::kInt32, concat_shape(shapes, axis));
    concat(refs, axis, out);
    // Reference: walk the output, find the input owning each coordinate along axis.
    for (std::int64_t i = 0; i < out.size(); ++i) {
      auto idx = unravel(i, out.shape());
      std::size_t p = 0;
      while (idx[a] >= shapes[p][a]) idx[a] -= shapes[p++][a];
      ASSERT_EQ(value_at(out, i), value_at(inputs[p], ravel(idx, shapes[p])));
    }
    std::vector<std::int64_t> sizes;
    for (const auto& s : shapes) sizes.push_back(s[a]);
    std::vector<Tensor> parts_out;
    for (const auto& s :
         split_shapes(out.shape(), axis, split_sizes(out.shape(), axis, sizes, 0, false))) {
      parts_out.emplace_back(DType::kInt32, s);
    }
    std::vector<TensorRef> out_refs(parts_out.begin(), parts_out.end());
    split(out, axis, out_refs);
    for (std::size_t p = 0; p < inputs.size(); ++p) {
      for (std::int64_t i = 0; i < inputs[p].size(); ++i) {
        ASSERT_EQ(value_at(parts_out[p], i), value_at(inputs[p], i));
      }
    }
  }
  expect_throws_naming(
      [] {
        concat_shape(std::vector<Shape>{{2, 3}, {3, 3}}, 1);
      },
      "Concat: input 1 has shape [3,3]");
  expect_throws_naming([] { concat_shape(std::vector<Shape>{{2, 3}}, 2); }, "Concat: axis 2");
}

TEST(ConcatSplit, SplitSizesForEveryOpset) {
  EXPECT_EQ(split_sizes(Shape{4, 6}, 1, {}, 3, false), (std::vector<std::int64_t>{2, 2, 2}));
  EXPECT_EQ(split_sizes(Shape{4, 7}, -1, {}, 3, true), (std::vector<std::int64_t>{3, 3, 1}));
  EXPECT_EQ(split_sizes(Shape{4, 6}, 1, Shape{1, 5}, 0, false), (std::vector<std::int64_t>{1, 5}));
  expect_throws_naming([] { split_sizes(Shape{4, 7}, 1, {}, 3, false); }, "Split: axis 1 of [4,7]");
  expect_throws_naming(
      [] {
        split_sizes(Shape{4, 6}, 1, Shape{1, 4}, 0, false);
      },
      "Split: split [1,4] sums to 5");
  expect_throws_naming([] { split_sizes(Shape{4, 6}, 2, {}, 2, false); }, "Split: axis 2");
}

TEST(Slice, MatchesReferenceForRandomArguments) {
  for (int trial = 0; trial < 300; ++trial) {
    const Shape shape = random_shape(1, 4, true);
    const auto rank = static_cast<std::int64_t>(shape.size());
    std::vector<std::int64_t> axes, starts, ends, steps;
    for (std::int64_t d = 0; d < rank; ++d) {
      if (rng.pick(0, 2) == 0) continue;
      axes.push_back(rng.pick(0, 1) ? d : d - rank);
      const std::int64_t dim = shape[static_cast<std::size_t>(d)];
      const std::int64_t choices[] = {rng.pick(-dim - 2, dim + 2), kMax, kMin, 0, -1};
      starts.push_back(choices[rng.pick(0, 4)]);
      ends.push_back(choices[rng.pick(0, 4)]);
      steps.push_back(rng.pick(0, 1) ? rng.pick(1, 3) : -rng.pick(1, 3));
    }
    const SliceRange r = resolve_slice(shape, starts, ends, axes, steps);
    const Tensor in = iota_tensor(DType::kInt64, shape);
    Tensor out(DType::kInt64, r.shape);
    slice(in, r, out);
    // Reference: numpy-like index lists per dim, built from the spec's clamping rules.
    std::vector<std::vector<std::int64_t>> picks(shape.size());
    for (std::size_t d = 0; d < shape.size(); ++d) {
      for (std::int64_t i = 0; i < shape[d]; ++i) picks[d].push_back(i);
    }
    for (std::size_t i = 0; i < axes.size(); ++i) {
      const std::size_t d = axis_index(axes[i], shape.size());
      const std::int64_t dim = shape[d];
      std::int64_t s = starts[i], e = ends[i];
      if (s < 0) s = s == kMin ? -1 : std::max<std::int64_t>(s + dim, -1);
      if (e < 0) e = e == kMin ? -1 : std::max<std::int64_t>(e + dim, -1);
      picks[d].clear();
      if (steps[i] > 0) {
        for (std::int64_t k = std::clamp<std::int64_t>(s, 0, dim); k < std::min(e, dim);
             k += steps[i])
          picks[d].push_back(k);
      } else if (dim > 0) {
        for (std::int64_t k = std::clamp<std::int64_t>(s, 0, dim - 1);
             k > std::max<std::int64_t>(e, -1); k += steps[i]) {
          picks[d].push_back(k);
        }
      }
      ASSERT_EQ(static_cast<std::int64_t>(picks[d].size()), r.shape[d])
          << "dim " << d << " of " << shape_text(shape) << " start " << starts[i] << " end "
          << ends[i] << " step " << steps[i];
    }
    expect_mapping(
        in, out,
        [&](std::vector<std::int64_t> o) {
          for (std::size_t d = 0; d < o.size(); ++d)
            o[d] = picks[d][static_cast<std::size_t>(o[d])];
          return o;
        },
        "Slice");
  }
}

TEST(Slice, KnownCasesAndErrors) {
  const Tensor in = iota_tensor(DType::kFloat32, {5});
  const std::int64_t axes[] = {0};
  const std::int64_t rev_start[] = {kMax}, rev_end[] = {kMin}, rev_step[] = {-1};
  const SliceRange rev = resolve_slice(in.shape(), rev_start, rev_end, axes, rev_step);
  ASSERT_EQ(rev.shape, (Shape{5}));
  Tensor out(DType::kFloat32, rev.shape);
  slice(in, rev, out);
  EXPECT_EQ(out.data_as<float>()[0], 4.5F);
  EXPECT_EQ(out.data_as<float>()[4], 0.5F);
  const std::int64_t tail_start[] = {-2}, tail_end[] = {kMax};
  EXPECT_EQ(resolve_slice(in.shape(), tail_start, tail_end, {}, {}).shape, (Shape{2}));
  const std::int64_t zero_step[] = {0};
  expect_throws_naming([&] { resolve_slice(in.shape(), tail_start, tail_end, axes, zero_step); },
                       "Slice: step 0");
  const std::int64_t bad_axis[] = {1};
  expect_throws_naming([&] { resolve_slice(in.shape(), tail_start, tail_end, bad_axis, {}); },
                       "Slice: axis 1");
  const std::int64_t two[] = {0, 1};
  expect_throws_naming([&] { resolve_slice(in.shape(), two, tail_end, {}, {}); },
                       "Slice: starts [0,1]");
}

TEST(Pad, MatchesReferenceInEveryMode) {
  for (int trial = 0; trial < 200; ++trial) {
    const Shape shape = random_shape(1, 3, false);
    const std::size_t r = shape.size();
    const PadMode mode = static_cast<PadMode>(rng.pick(0, 3));
    std::vector<std::int64_t> pads(2 * r);
    for (std::size_t d = 0; d < r; ++d) {
      // Crop up to half of the dim on each side; pad up to 3 (reflect: less than what is left).
      pads[d] = rng.pick(-shape[d] / 2, 3);
      pads[d + r] = rng.pick(-shape[d] / 2, 3);
      const std::int64_t left =
          shape[d] - std::max<std::int64_t>(0, -pads[d]) - std::max<std::int64_t>(0, -pads[d + r]);
      if (mode == PadMode::kReflect) {
        pads[d] = std::min(pads[d], std::max<std::int64_t>(left - 1, 0));
        pads[d + r] = std::min(pads[d + r], std::max<std::int64_t>(left - 1, 0));
      }
    }
    const Tensor in = iota_tensor(DType::kFloat32, shape);
    Tensor out(DType::kFloat32, pad_shape(shape, pads));
    pad(in, pads, mode, -1.0, out);
    for (std::int64_t i = 0; i < out.size(); ++i) {
      auto idx = unravel(i, out.shape());
      bool constant = false;
      for (std::size_t d = 0; d < r; ++d) {
        // Reference: crop the negative pads away, then pad the remaining [lo, hi).
        const std::int64_t lo = std::max<std::int64_t>(0, -pads[d]);
        const std::int64_t hi = shape[d] - std::max<std::int64_t>(0, -pads[d + r]);
        const std::int64_t n = hi - lo;
        std::int64_t k = idx[d] - std::max<std::int64_t>(0, pads[d]);
        if (k < 0 || k >= n) {
          if (mode == PadMode::kConstant) constant = true;
          if (mode == PadMode::kEdge) k = k < 0 ? 0 : n - 1;
          if (mode == PadMode::kWrap) k = ((k % n) + n) % n;
          if (mode == PadMode::kReflect) k = k < 0 ? -k : 2 * (n - 1) - k;
        }
        idx[d] = k + lo;
      }
      const double want = constant ? -1.0 : value_at(in, ravel(idx, shape));
      ASSERT_EQ(value_at(out, i), want) << "mode " << static_cast<int>(mode) << " pads "
                                        << shape_text(pads) << " on " << shape_text(shape);
    }
  }
  EXPECT_EQ(expand_pads(3, Shape{1, 2}, Shape{-1}), (std::vector<std::int64_t>{0, 0, 1, 0, 0, 2}));
  EXPECT_EQ(pad_mode_from_string("edge"), PadMode::kEdge);
  expect_throws_naming([] { pad_mode_from_string("mirror"); }, "Pad: unknown mode 'mirror'");
  expect_throws_naming([] { pad_shape(Shape{2}, Shape{-2, -1}); }, "Pad: pads [-2,-1] crop dim 0");
  {
    const Tensor two = iota_tensor(DType::kFloat32, {2});
    Tensor four(DType::kFloat32, {4});
    expect_throws_naming(
        [&] {
          pad(two, Shape{-3, 5}, PadMode::kConstant, 0.0, four);
        },
        "Pad: pads [-3,5] crop more than dim 0");
  }
  const Tensor in = iota_tensor(DType::kFloat32, {3});
  Tensor out(DType::kFloat32, {9});
  expect_throws_naming(
      [&] {
        pad(in, Shape{3, 3}, PadMode::kReflect, 0.0, out);
      },
      "Pad: reflect pads [3,3]");
}

TEST(ExpandTile, MatchReference) {
  for (int trial = 0; trial < 100; ++trial) {
    const Shape target = random_shape(0, 4, true);
    Shape in_shape(target.begin() + rng.pick(0, static_cast<std::int64_t>(target.size())),
                   target.end());
    for (auto& d : in_shape) {
      if (rng.pick(0, 1)) d = 1;
    }
    const Tensor in = iota_tensor(DType::kUInt8, in_shape);
    Tensor out(DType::kUInt8, expand_shape(in_shape, target));
    expand(in, out);
    expect_mapping(
        in, out,
        [&](std::vector<std::int64_t> o) {
          const std::size_t lead = o.size() - in_shape.size();
          std::vector<std::int64_t> src(in_shape.size());
          for (std::size_t d = 0; d < in_shape.size(); ++d)
            src[d] = in_shape[d] == 1 ? 0 : o[lead + d];
          return src;
        },
        "Expand");

    std::vector<std::int64_t> repeats(in_shape.size());
    for (auto& rep : repeats) rep = rng.pick(0, 3);
    Tensor tiled(DType::kUInt8, tile_shape(in_shape, repeats));
    tile(in, tiled);
    expect_mapping(
        in, tiled,
        [&](std::vector<std::int64_t> o) {
          for (std::size_t d = 0; d < o.size(); ++d) o[d] %= in_shape[d];
          return o;
        },
        "Tile");
  }
  EXPECT_EQ(expand_shape(Shape{3, 1}, Shape{2, 1, 4}), (Shape{2, 3, 4}));
  expect_throws_naming([] { expand_shape(Shape{3}, Shape{4}); }, "Expand: shapes [3] and [4]");
  expect_throws_naming([] { tile_shape(Shape{3}, Shape{1, 2}); }, "Tile: repeats [1,2]");
}

TEST(Gather, MatchesReferenceWithNegativeIndices) {
  for (int trial = 0; trial < 150; ++trial) {
    const Shape data_shape = random_shape(1, 4, false);
    const std::int64_t axis = random_axis(data_shape.size());
    const std::size_t a = axis_index(axis, data_shape.size());
    const std::int64_t dim = data_shape[a];
    const Shape index_shape = random_shape(0, 2, true);
    const DType index_type = trial % 2 ? DType::kInt64 : DType::kInt32;
    Tensor indices(index_type, index_shape);
    for (std::int64_t i = 0; i < indices.size(); ++i) {
      const std::int64_t v = rng.pick(-dim, dim - 1);
      if (index_type == DType::kInt64) indices.data_as<std::int64_t>()[i] = v;
      if (index_type == DType::kInt32)
        indices.data_as<std::int32_t>()[i] = static_cast<std::int32_t>(v);
    }
    const Tensor data = iota_tensor(DType::kFloat32, data_shape);
    Tensor out(DType::kFloat32, gather_shape(data_shape, index_shape, axis));
    gather(data, indices, axis, out);
    expect_mapping(
        data, out,
        [&](std::vector<std::int64_t> o) {
          std::vector<std::int64_t> src(o.begin(), o.begin() + static_cast<std::ptrdiff_t>(a));
          std::vector<std::int64_t> at(
              o.begin() + static_cast<std::ptrdiff_t>(a),
              o.begin() + static_cast<std::ptrdiff_t>(a + index_shape.size()));
          std::int64_t k = static_cast<std::int64_t>(value_at(indices, ravel(at, index_shape)));
          src.push_back(k < 0 ? k + dim : k);
          src.insert(src.end(), o.begin() + static_cast<std::ptrdiff_t>(a + index_shape.size()),
                     o.end());
          return src;
        },
        "Gather");
  }
  const Tensor data = iota_tensor(DType::kFloat32, {3, 2});
  Tensor idx(DType::kInt64, {1});
  *idx.data_as<std::int64_t>() = 3;
  Tensor out(DType::kFloat32, {1, 2});
  expect_throws_naming([&] { gather(data, idx, 0, out); }, "Gather: index 3 is out of range");
  expect_throws_naming([&] { gather_shape(data.shape(), idx.shape(), -3); }, "Gather: axis -3");
}

TEST(GatherElements, MatchesReference) {
  for (int trial = 0; trial < 150; ++trial) {
    const Shape data_shape = random_shape(1, 4, false);
    const std::int64_t axis = random_axis(data_shape.size());
    const std::size_t a = axis_index(axis, data_shape.size());
    Shape index_shape = data_shape;
    for (std::size_t d = 0; d < index_shape.size(); ++d) {
      index_shape[d] = d == a ? rng.pick(0, 6) : rng.pick(1, data_shape[d]);
    }
    Tensor indices(DType::kInt64, index_shape);
    for (auto& v : indices.values<std::int64_t>()) v = rng.pick(-data_shape[a], data_shape[a] - 1);
    const Tensor data = iota_tensor(DType::kInt64, data_shape);
    Tensor out(DType::kInt64, gather_elements_shape(data_shape, index_shape, axis));
    gather_elements(data, indices, axis, out);
    expect_mapping(
        data, out,
        [&](std::vector<std::int64_t> o) {
          const std::int64_t k = indices.data_as<std::int64_t>()[ravel(o, index_shape)];
          o[a] = k < 0 ? k + data_shape[a] : k;
          return o;
        },
        "GatherElements");
  }
  expect_throws_naming(
      [] {
        gather_elements_shape(Shape{2, 3}, Shape{2, 4}, 0);
      },
      "GatherElements: indices [2,4]");
}

TEST(NonZero, ListsCoordinatesInRowMajorOrder) {
  Tensor in(DType::kFloat32, {2, 3});
  const float values[] = {0, 1, 0, 2, 0, 3};
  std::copy(values, values + 6, in.data_as<float>());
  ASSERT_EQ(nonzero_count(in), 3);
  Tensor out(DType::kInt64, {2, 3});
  nonzero(in, out);
  EXPECT_EQ(std::vector<std::int64_t>(out.values<std::int64_t>().begin(),
                                      out.values<std::int64_t>().end()),
            (std::vector<std::int64_t>{0, 1, 1, 1, 0, 2}));
}

// The ONNX formula for one nearest Resize coordinate, evaluated in float like ONNX Runtime (in
// double some coordinates land just below an integer that float rounds onto).
std::int64_t reference_nearest(std::int64_t x, float scale, std::int64_t in_len,
                               std::int64_t out_len, CoordinateTransform t, NearestMode m) {
  if (scale == 1.0F && in_len == out_len) return x;  // ONNX Runtime leaves unscaled dims alone
  const auto xf = static_cast<float>(x);
  float c = 0;
  switch (t) {
    case CoordinateTransform::kHalfPixel:
      c = (xf + 0.5F) / scale - 0.5F;
      break;
    case CoordinateTransform::kAsymmetric:
      c = xf / scale;
      break;
    case CoordinateTransform::kAlignCorners:
      c = out_len == 1 ? 0 : xf * static_cast<float>(in_len - 1) / static_cast<float>(out_len - 1);
      break;
    case CoordinateTransform::kPytorchHalfPixel:
      c = out_len > 1 ? (xf + 0.5F) / scale - 0.5F : 0;
      break;
    case CoordinateTransform::kTfHalfPixelForNn:
      c = (xf + 0.5F) / scale;
      break;
  }
  float r = 0;
  const bool half = c - std::floor(c) == 0.5F;
  switch (m) {
    case NearestMode::kFloor:
      r = std::floor(c);
      break;
    case NearestMode::kCeil:
      r = std::ceil(c);
      break;
    case NearestMode::kRoundPreferFloor:
      r = half ? std::floor(c) : std::round(c);
      break;
    case NearestMode::kRoundPreferCeil:
      r = half ? std::ceil(c) : std::round(c);
      break;
  }
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(r), 0, in_len - 1);
}

TEST(Resize, NearestMatchesReferenceInEveryMode) {
  const Shape in_shape = {1, 3, 5, 6};
  const Tensor in = iota_tensor(DType::kFloat32, in_shape);
  for (int t = 0; t < 5; ++t) {
    for (int m = 0; m < 4; ++m) {
      const auto transform = static_cast<CoordinateTransform>(t);
      const auto mode = static_cast<NearestMode>(m);
      for (const auto& sizes : std::vector<Shape>{{1, 3, 10, 12},
                                                  {1, 3, 15, 18},
                                                  {1, 3, 3, 4},
                                                  {1, 3, 7, 13},
                                                  {1, 3, 1, 1},
                                                  {1, 3, 5, 12}}) {
        const Shape out_shape = resize_shape(in_shape, {}, sizes);
        const auto scales = resize_scales(in_shape, out_shape, {});
        Tensor out(DType::kFloat32, out_shape);
        resize_nearest(in, scales, transform, mode, out);
        expect_mapping(
            in, out,
            [&](std::vector<std::int64_t> o) {
              for (std::size_t d = 0; d < 4; ++d) {
                o[d] =
                    reference_nearest(o[d], scales[d], in_shape[d], out_shape[d], transform, mode);
              }
              return o;
            },
            "Resize t" + std::to_string(t) + " m" + std::to_string(m) + " " + shape_text(sizes));
      }
    }
  }
  const float scales[] = {1.0F, 1.0F, 2.0F, 2.0F};
  EXPECT_EQ(resize_shape(in_shape, scales, {}), (Shape{1, 3, 10, 12}));
  expect_throws_naming(
      [&] {
        resize_shape(in_shape, scales, Shape{1, 3, 10, 12});
      },
      "Resize: exactly one");
  expect_throws_naming([] { coordinate_transform_from_string("tf_crop_and_resize"); },
                       "Resize: unsupported coordinate_transformation_mode");
  EXPECT_EQ(nearest_mode_from_string("ceil"), NearestMode::kCeil);
}

TEST(Resize, NhwcUpsampleWithChannelSlices) {
  NhwcUpsample p;
  p.batch = 2;
  p.height = 3;
  p.width = 5;
  p.channels = 7;
  p.factor_h = 2;
  p.factor_w = 3;
  p.in_pixel_stride = 10;   // reads channels [0, 7) of 10-channel pixels
  p.out_pixel_stride = 12;  // writes channels [0, 7) of 12-channel pixels
  const Tensor in = iota_tensor(DType::kFloat32, {2, 3, 5, 10});
  Tensor out(DType::kFloat32, {2, 6, 15, 12});
  std::fill_n(out.data_as<float>(), out.size(), -1.0F);
  upsample_nearest_nhwc(p, in.data_as<float>(), out.data_as<float>());
  for (std::int64_t i = 0; i < out.size(); ++i) {
    const auto o = unravel(i, out.shape());
    const double want =
        o[3] < 7 ? value_at(in, ravel({o[0], o[1] / 2, o[2] / 3, o[3]}, in.shape())) : -1.0;
    ASSERT_EQ(value_at(out, i), want) << "at " << i;
  }
  p.in_pixel_stride = 3;
  expect_throws_naming([&] { upsample_nearest_nhwc(p, in.data_as<float>(), out.data_as<float>()); },
                       "Resize: invalid NHWC upsample");
}

}  // namespace
}  // namespace yolo::runtime::kernels
