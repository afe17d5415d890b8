// SPDX-License-Identifier: Apache-2.0
#pragma once

// Models as users bring them, rewritten at load into the FP32 graph the engine plans and the
// quantizer calibrates. Both rewrites work on the parsed file (not the engine's Graph), so the
// quantizer starts from the same FP32 graph the engine runs and keeps the file's dynamic axes.
//   - FP16 exports (Ultralytics `half=True`, onnxconverter's float16 conversion, Cast to and from
//     float16 around a part of the graph): every float16 tensor becomes float32. The arithmetic is
//     FP32 throughout; the input and output the file declares float16 are taken and given as
//     float32 (the conversion at the edges a caller would otherwise do).
//   - Dynamic INT8 (DynamicQuantizeLinear -> ConvInteger/MatMulInteger -> Cast -> Mul (-> Add)):
//     each chain becomes an FP32 Conv (MatMul) with the weights dequantized.

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>

namespace yolo::runtime {

// What convert_float16 changed.
struct Float16Conversion {
  int initializers = 0;  // float16 initializers and Constant/attribute tensors made float32
  int inputs = 0;        // graph inputs declared float16
  int outputs = 0;       // graph outputs declared float16
  int casts = 0;         // Cast nodes to float16, now to float32
  bool any() const { return initializers + inputs + outputs + casts > 0; }
};

// IEEE 754 half precision bits to float (subnormals, infinities and NaN included).
float half_to_float(std::uint16_t bits);

// Makes every float16 of `model` float32: initializers, Constant and attribute tensors, graph
// input/output and value_info types, Cast `to` and `dtype` attributes. Throws ModelError starting
// with `where` (the file) and naming the node when a node computing in float16 is one the runtime
// has no float32 operator for, or holds float16 data it cannot convert (a sparse tensor).
Float16Conversion convert_float16(onnx::ModelProto& model, const std::string& where);

// How a dynamic-INT8 chain is rewritten.
enum class DynamicInt8 {
  // An FP32 Conv on the unquantized input: FP32 speed, the activations' rounding left out.
  kFold,
  // The same Conv on the input as the file rounds it (DynamicQuantizeLinear then
  // DequantizeLinear): the file's arithmetic, for judging other models against it.
  kAsWritten,
};

struct Int8FoldStats {
  int conv = 0;    // DynamicQuantizeLinear -> ConvInteger -> Cast -> Mul (-> Add) chains
  int matmul = 0;  // DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul chains
  int total() const { return conv + matmul; }
};

// Rewrites each dynamic-INT8 chain into an FP32 Conv (or MatMul) with weights
// (w - zero_point) * scale, a following Add of a per-channel constant folded in as its bias; the
// int8 weights and the nodes nothing reads any more are dropped. Chains of another shape are left
// as written (the engine then says which node it cannot run).
Int8FoldStats fold_dynamic_int8(onnx::ModelProto& model, DynamicInt8 mode);

}  // namespace yolo::runtime
