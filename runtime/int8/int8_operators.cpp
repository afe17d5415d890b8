// SPDX-License-Identifier: Apache-2.0
#include "runtime/int8/int8_operators.h"

#include <algorithm>
#include <array>

namespace yolo::runtime {

namespace {

using enum Int8Lowering;
using enum QuantizedInputs;

// The quantizer writes Q/DQ on a Conv with float weights that is not the DFL's, and on a Mul that
// is a SiLU's (runtime/quantize/graph_index.h); the element-wise chain ops have their float
// definitions in runtime/int8/qdq_chain.cpp.
constexpr std::array<Int8Operator, 24> kOperators = {{
    {"Conv", kConv, kFirst, false},
    {"Sigmoid", kElementwise, kFirst, false},
    {"Mul", kElementwise, kAll, false},
    {"Add", kElementwise, kAll, false},
    {"Concat", kConcat, kAll, true},
    {"MaxPool", kMaxPool, kFirst, true},
    {"Resize", kUpsample, kFirst, true},
    {"Split", kSplit, kFirst, true},
    {"Sub", kElementwise, kNone, false},
    {"Div", kElementwise, kNone, false},
    {"Min", kElementwise, kNone, false},
    {"Max", kElementwise, kNone, false},
    {"HardSigmoid", kElementwise, kNone, false},
    {"HardSwish", kElementwise, kNone, false},
    {"Relu", kElementwise, kNone, false},
    {"LeakyRelu", kElementwise, kNone, false},
    {"Clip", kElementwise, kNone, false},
    {"Tanh", kElementwise, kNone, false},
    {"Softplus", kElementwise, kNone, false},
    {"Elu", kElementwise, kNone, false},
    {"Neg", kElementwise, kNone, false},
    {"Abs", kElementwise, kNone, false},
    {"Exp", kElementwise, kNone, false},
    {"Identity", kElementwise, kNone, false},
}};

}  // namespace

std::span<const Int8Operator> int8_operators() {
  return kOperators;
}

const Int8Operator* find_int8_operator(std::string_view op) {
  const auto it = std::find_if(kOperators.begin(), kOperators.end(),
                               [&](const Int8Operator& o) { return o.op == op; });
  return it == kOperators.end() ? nullptr : &*it;
}

std::string quantized_operator_list() {
  std::string list;
  for (const auto& o : kOperators) {
    if (o.quantized_inputs == QuantizedInputs::kNone) continue;
    if (!list.empty()) list += ", ";
    list += o.op;
  }
  return list;
}

}  // namespace yolo::runtime
