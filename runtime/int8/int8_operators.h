// SPDX-License-Identifier: Apache-2.0
#pragma once

// The ONNX operators the int8 engine runs (as the "yolo" ops of runtime/ops/int8.cpp): the
// ai.onnx ops whose spec in the op registry carries an Int8Support (runtime/ops/op.h), which the
// quantizer (which tensors get Q/DQ), the QDQ lowering (which lowering a node gets) and
// `yolo-edge inspect` read.

#include <string>
#include <string_view>

#include "runtime/ops/op.h"

namespace yolo::runtime {

using ops::Int8Lowering;
using ops::Int8Support;
using ops::QuantizedInputs;

// The int8 support of a default-domain op type, or null when the int8 engine does not run it.
const Int8Support* find_int8_operator(std::string_view op);
// The ops yolo-edge's quantizer writes Q/DQ around, for messages, in the order of their lowerings
// (Int8Lowering) and then by name: "Conv, Add, Mul, Sigmoid, ...".
std::string quantized_operator_list();

}  // namespace yolo::runtime
