// SPDX-License-Identifier: Apache-2.0
#pragma once

// INT8 models in the QOperator format, which the runtime refuses: what they are and what to do
// instead (the QDQ format, runtime/int8/qdq_lowering.h, runs).

#include <string>

#include "runtime/engine/graph.h"

namespace yolo::runtime {

// QOperator-format INT8 operators (onnxruntime quantize_static with quant_format=QOperator):
// QLinearConv, QLinearMatMul, QGemm and the com.microsoft QLinear* ops. The runtime does not run
// them.
bool is_qoperator(const std::string& domain, const std::string& op_type);
// What to do with a QOperator model instead: quantize the FP32 model to QDQ.
std::string qoperator_advice();
// Throws ModelError naming the first QOperator node (and how many there are) with that advice.
void reject_qoperator(const Graph& graph);

}  // namespace yolo::runtime
