// SPDX-License-Identifier: Apache-2.0
#pragma once

// The operator registry (after ncnn's layer registry): one OpSpec per ONNX op type, saying how the
// op is checked at load, how its output shapes follow from its inputs, how it computes on
// row-major tensors (constant folding and the plain execution path), which memory layout it runs
// in, which Step executes it, and what the int8 engine (runtime/int8/) and the quantizer
// (runtime/quantize/) know of it.

#include <pthreadpool.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/engine/graph.h"
#include "runtime/kernels/tensor_ref.h"

namespace yolo::runtime::ops {

// Memory layout of a value during run(). NCHW is the ONNX row-major order of the logical shape;
// NHWC applies to 4-D float activations and stores [N, H, W, C] with a pixel stride.
enum class Layout : std::uint8_t { kNchw, kNhwc };

// Where and how a value lives while the engine runs.
struct ValueView {
  DType dtype = DType::kFloat32;
  Shape shape;     // logical (ONNX) shape
  Shape physical;  // the shape in memory order: shape, or [N, H, W, C] for NHWC
  Layout layout = Layout::kNchw;
  void* data = nullptr;
  // NHWC: elements between consecutive pixels (>= C; larger in a channel slice of a wider
  // buffer). 0 for NCHW values, which are always dense.
  std::int64_t pixel_stride = 0;
  // Set when the value is a constant of the graph.
  const Tensor* constant = nullptr;

  // The row-major view of the physical shape; only for values stored densely (NCHW, or NHWC
  // whose pixel stride is its channel count).
  kernels::ConstTensorRef cref() const { return {dtype, physical, data}; }
  kernels::TensorRef ref() const { return {dtype, physical, data}; }
  float* f32() const { return static_cast<float*>(data); }
  std::int64_t pixels() const { return physical[0] * physical[1] * physical[2]; }
  std::int64_t channels() const { return physical[3]; }
};

// What a Step is built from: the node and the final placement of its inputs and outputs (an
// omitted optional input has a null data pointer).
struct StepContext {
  const Graph& graph;
  const Node& node;
  std::vector<ValueView> inputs;
  std::vector<ValueView> outputs;
};

// One executable step of the planned graph. Built at load with fixed pointers into the arena;
// setup() runs at load and whenever the thread pool changes; run() allocates nothing.
class Step {
 public:
  virtual ~Step() = default;
  virtual void setup(pthreadpool_t /*pool*/) {}
  virtual void run(pthreadpool_t pool) = 0;
};

// How a node chooses the layout it runs in.
enum class LayoutRule : std::uint8_t {
  kNchw,         // row-major only: NHWC inputs are converted first
  kNhwc,         // NHWC only (convolutions, pooling, upsample): NCHW inputs are converted first
  kFollow,       // unary float ops: run in their input's layout
  kElementwise,  // broadcasting binary ops: NHWC when an input is NHWC and the rest can follow
  kChannelAxis,  // Concat/Split/Slice along channels of a 4-D tensor: NHWC with channel offsets
};

// What a spec can do in the memory plan: data set once by its constructor, as ncnn's layers set
// their flags in theirs.
struct OpCapabilities {
  // The layout every node of the op runs in, unless the spec's layout_rule() depends on the node.
  LayoutRule layout = LayoutRule::kNchw;
  // In NHWC, the step reads inputs that are channel slices (pixel stride > C).
  bool reads_strided = false;
  // In NHWC, the step can write its output into a channel slice of a wider buffer (a concat's).
  bool writes_strided = false;
};
// Convolutions, pooling and the int8 ops: NHWC only, reading and writing channel slices.
inline constexpr OpCapabilities kNhwcStrided{LayoutRule::kNhwc, true, true};

// How the QDQ lowering (runtime/int8/qdq_lowering.h) turns a node of the op into int8 steps.
enum class Int8Lowering : std::uint8_t {
  kConv,         // QConv, a table that follows fused into it
  kElementwise,  // QLut (a table of the element-wise chain ending here, runtime/int8/qdq_chain.h)
                 // or, for Add, Sub and Mul of two int8 tensors, QBinary
  kConcat,       // Concat of int8 channel slices
  kMaxPool,      // QMaxPool
  kUpsample,     // Resize by a whole factor, nearest: QUpsample
  kSplit,        // Split into int8 channel slices
};

// Which inputs yolo-edge's quantizer (runtime/quantize/quantizer.h) quantizes; every float output
// of the node is quantized with them.
enum class QuantizedInputs : std::uint8_t {
  kNone,   // its files leave the op float (the lowering still runs it int8 in other files)
  kFirst,  // input 0 only (weights, sizes and split lengths stay as they are)
  kAll,    // every input, which must all be activations
};

// What the int8 engine knows of an ai.onnx op, given where the op registers.
struct Int8Support {
  Int8Lowering lowering = Int8Lowering::kElementwise;
  QuantizedInputs quantized_inputs = QuantizedInputs::kNone;
  // Inputs and outputs share one (scale, zero point): pooling, upsampling, concat and split need
  // no requantization.
  bool shares_scale = false;
};

class OpSpec {
 public:
  OpSpec() = default;
  explicit OpSpec(OpCapabilities capabilities) : capabilities_(capabilities) {}
  virtual ~OpSpec() = default;
  // Checks arity, attributes and dtypes at load; throws through graph.fail() naming the node.
  virtual void check(const Graph& graph, const Node& node) const;
  // Sets dtype and shape of every output from the inputs' (all known); may read constant inputs.
  virtual void infer(Graph& graph, const Node& node) const = 0;
  // Whether the op may run at load on constant inputs (through its NCHW step).
  virtual bool foldable() const { return true; }
  // Row-major computation on dense tensors (inputs may be null views for omitted inputs).
  virtual void compute(const Node& node, std::span<const kernels::ConstTensorRef> inputs,
                       std::span<const kernels::TensorRef> outputs) const;
  // What the generic step runs: compute(), or, in ops whose kernels share their work among the
  // engine's threads, an override of this instead.
  virtual void compute_threaded(const Node& node, std::span<const kernels::ConstTensorRef> inputs,
                                std::span<const kernels::TensorRef> outputs,
                                pthreadpool_t /*pool*/) const {
    compute(node, inputs, outputs);
  }
  virtual LayoutRule layout_rule(const Graph& /*graph*/, const Node& /*node*/) const {
    return capabilities_.layout;
  }
  bool reads_strided() const { return capabilities_.reads_strided; }
  bool writes_strided() const { return capabilities_.writes_strided; }
  // The step executing the node; the default runs compute() on the dense views.
  virtual std::unique_ptr<Step> create_step(const StepContext& context) const;

  // The op's int8 support, or null when the int8 engine does not run it.
  const Int8Support* int8() const { return int8_ ? &*int8_ : nullptr; }
  void set_int8(Int8Support support) { int8_ = support; }
  // An element-wise float op as a function of one element, for the node (its attributes, its
  // constant inputs in `graph`), computed as the op's FP32 kernel computes it: the int8 lowering
  // evaluates it on the 256 values of an int8 tensor to make the op's table. Empty for the
  // others.
  virtual std::function<float(float)> unary_function(const Graph& /*graph*/,
                                                     const Node& /*node*/) const {
    return {};
  }
  // The same for an element-wise op of two inputs.
  virtual std::function<float(float, float)> binary_function() const { return {}; }

 private:
  OpCapabilities capabilities_;
  std::optional<Int8Support> int8_;
};

// The spec for an op type in a domain ("" for ai.onnx, "yolo" for the engine's internal ops), or
// nullptr when unsupported.
const OpSpec* find_op(const std::string& domain, const std::string& op_type);

// Every supported ai.onnx op type, comma-separated, for messages.
std::string supported_ops();

// The ai.onnx op types the int8 engine runs, by name, with their specs.
std::vector<std::pair<std::string, const OpSpec*>> ops_with_int8();

// Runs f(); a kernel's std::invalid_argument becomes the graph's ModelError naming the node.
template <typename F>
auto or_fail(const Graph& graph, const Node& node, F&& f) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    graph.fail(node, e.what());
  }
}

// Runs compute() of the node's op on dense views (the generic Step).
std::unique_ptr<Step> make_compute_step(const OpSpec& spec, const StepContext& context);

}  // namespace yolo::runtime::ops
