// SPDX-License-Identifier: Apache-2.0
#pragma once

// The ONNX operators the int8 engine runs (as the "yolo" ops of runtime/ops/int8.cpp), the one
// list that the quantizer (which tensors get Q/DQ), the QDQ lowering (which lowering a node gets)
// and `yolo-edge inspect` read.

#include <span>
#include <string>
#include <string_view>

namespace yolo::runtime {

// How the QDQ lowering (runtime/int8/qdq_lowering.h) turns the op into int8 steps.
enum class Int8Lowering {
  kConv,         // QConv, a table that follows fused into it
  kElementwise,  // QLut (a table of the element-wise chain ending here, runtime/int8/qdq_chain.h)
                 // or, for Add, Sub and Mul of two int8 tensors, QBinary
  kMaxPool,   // QMaxPool
  kUpsample,  // Resize by a whole factor, nearest: QUpsample
  kConcat,    // Concat of int8 channel slices
  kSplit,     // Split into int8 channel slices
};

// Which inputs yolo-edge's quantizer (runtime/quantize/quantizer.h) quantizes; every float output
// of the node is quantized with them.
enum class QuantizedInputs {
  kNone,   // its files leave the op float (the lowering still runs it int8 in other files)
  kFirst,  // input 0 only (weights, sizes and split lengths stay as they are)
  kAll,    // every input, which must all be activations
};

struct Int8Operator {
  // Default-domain ONNX op type.
  std::string_view op;
  Int8Lowering lowering;
  QuantizedInputs quantized_inputs;
  // Inputs and outputs share one (scale, zero point): pooling, upsampling, concat and split need
  // no requantization.
  bool shares_scale;
};

// Every operator, in the order the docs list them.
std::span<const Int8Operator> int8_operators();
// The entry of a default-domain op type, or null when the int8 engine does not run it.
const Int8Operator* find_int8_operator(std::string_view op);
// The ops yolo-edge's quantizer writes Q/DQ around, for messages: "Conv, Sigmoid, ...".
std::string quantized_operator_list();

}  // namespace yolo::runtime
