// SPDX-License-Identifier: Apache-2.0
// Writes the FP32 graph a model file loads as (runtime/fp32_rewrite.h: float16 made float32,
// dynamic-INT8 chains folded): the same network in FP32, which an FP16 file is timed against
// (`yolo-edge bench --model FP16.onnx --baseline TWIN.onnx`). Not a test.
//   fp32_twin IN.onnx OUT.onnx
#include <cstdio>
#include <exception>

#include "runtime/model/fp32_rewrite.h"
#include "runtime/model/onnx_model.h"
#include "runtime/quantize/model_file.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: fp32_twin IN.onnx OUT.onnx\n");
    return 2;
  }
  try {
    yolo::runtime::OnnxModel model = yolo::runtime::OnnxModel::load(argv[1]);
    const auto f16 = yolo::runtime::convert_float16(model.proto(), argv[1]);
    const auto folded =
        yolo::runtime::fold_dynamic_int8(model.proto(), yolo::runtime::DynamicInt8::kFold);
    yolo::runtime::write_model_atomically(model.proto(), argv[2]);
    std::printf("wrote %s: %d float16 tensors made float32, %d dynamic-INT8 chains folded\n",
                argv[2], f16.initializers, folded.total());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fp32_twin: %s\n", e.what());
    return 2;
  }
  return 0;
}
