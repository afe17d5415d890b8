// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the QDQ lowering (runtime/int8/qdq_lowering.h) makes of an INT8 model, as data: what
// `yolo-edge inspect` shows (runtime/engine/engine.h: plan_qdq_model) and the engine's load notes.

#include <string>
#include <vector>

namespace yolo::runtime {

struct QdqLoweringStats {
  int conv = 0;      // QConv steps
  int conv_act = 0;  // of which with a fused SiLU / sigmoid table
  int tables = 0;    // QLut steps (element-wise chains, requantization)
  int binary = 0;    // QBinary
  int maxpool = 0;
  int upsample = 0;
  int channel_ops = 0;       // Concat / Split / Slice running on int8
  int quantize = 0;          // float -> int8 converts left (FP32 island exits)
  int dequantize = 0;        // int8 -> float converts left (FP32 island entries)
  bool uint8_input = false;  // the model input is quantized from the uint8 image (xor 0x80)
  // Tables whose chain holds QuantizeLinear nodes of its own, reproduced as the file writes them
  // (ONNX Runtime's SiLU rounds its Sigmoid output before the Mul).
  int chains_as_written = 0;
  int fp32_islands = 0;  // connected groups of layers left in float
};

// What the lowering made of one node of the folded graph (every node but the Q/DQ it consumed).
struct QdqLayer {
  std::string node;
  std::string op;  // as in the file: "Conv", "Mul", ...
  bool int8 = false;
  // How it runs ("int8 QConv + SiLU table") or why it stays float ("kept FP32: no
  // QuantizeLinear on its output").
  std::string note;
  // The node whose int8 step computes this one (a SiLU table fused into a QConv), else empty.
  std::string fused_into;
};

// The per-node plan of a model at precision int8 (runtime/engine/engine.h: plan_qdq_model).
struct QdqPlan {
  std::vector<QdqLayer> layers;
  QdqLoweringStats stats;
};

}  // namespace yolo::runtime
