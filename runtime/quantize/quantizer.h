// SPDX-License-Identifier: Apache-2.0
#pragma once

// Static post-training quantization of an FP32 YOLO ONNX model into a QDQ ONNX file.
//
// THE FILE FORMAT (the contract with the INT8 engine; ONNX Runtime loads it as any QDQ model):
// - Default-domain opset >= 13. Opset-12 inputs are raised to 13 (quantize/opset13.h): Split's
//   `split` attribute, Squeeze/Unsqueeze/ReduceSum `axes` attributes become int64 initializer
//   inputs; a Softmax, LogSoftmax or Hardmax whose axis is not the last one is refused (its
//   meaning changed at 13).
// - All Q/DQ are int8 (never uint8). Every quantized activation tensor `t` (number k in
//   quantized_tensors() order) is followed by exactly one pair, both per tensor (scalar float32
//   scale `qdq:s<k>`, scalar int8 zero point `qdq:z<k>`; Q/DQ nodes are unnamed):
//     producer -> qdq:f<k> -> QuantizeLinear -> qdq:q<k> -> DequantizeLinear -> t -> consumers
//   so every consumer, quantized or not, reads the dequantized value under t's original name (a
//   float consumer is an FP32 island whose border is that DequantizeLinear). The graph input and
//   graph outputs keep their names and float values instead: QuantizeLinear reads t itself, the
//   DequantizeLinear writes qdq:d<k>, and the consumers read that. The prefix gains leading '_'
//   until no name of the model starts with it. (Short names keep the file small: names derived
//   from Ultralytics' long tensor names cost ~7% of an INT8 file.)
// - The model input (e.g. `images`) has scale 1/255 and zero point -128, so q = uint8 pixel - 128
//   exactly: the engine may quantize straight from the letterboxed uint8 image.
// - Quantized activations, all from calibration: every input and output of every quantized Conv,
//   Sigmoid, SiLU Mul (Sigmoid(x) * x), Add of two activations, Concat, MaxPool, Resize (input 0
//   only) and Split. SiLU is `Conv -> Q/DQ -> Sigmoid -> Q/DQ -> Mul -> Q/DQ` with the conv output
//   feeding both Sigmoid and Mul through its one DQ, so it can become a 256-entry table from the
//   conv output's (scale, zero point) to the Mul output's. The Q/DQ on the Sigmoid output records
//   its range only: the engine's table skips that rounding for files carrying the metadata below
//   (QdqLoweringOptions::one_table_chains), where a file from another tool runs as written.
// - Shared scales: the inputs and output of a quantized Concat, and the input and outputs of a
//   quantized MaxPool, Resize and Split, have identical (scale, zero point), the union of their
//   ranges: concat, pooling, upsampling and split need no requantization.
// - Conv weights (the c-th distinct weight initializer W): int8 initializer `qdq:w<c>` with
//   symmetric per-output-channel scales `qdq:ws<c>` (float32 [O], scale = max|w_o| / 127, 1 for an
//   all-zero channel) through `DequantizeLinear(axis=0)` with NO zero point input (0 by default)
//   -> `qdq:wd<c>`. The float W is removed unless a kept-FP32 node still reads it.
// - Conv biases (the b-th quantized bias): when the conv input is quantized, int32 `qdq:b<b>` =
//   round(bias / (s_x * s_w[o])) through `DequantizeLinear(axis=0)` with scale `qdq:bs<b>` = s_x *
//   s_w[o] (float32 [O]) and no zero point -> `qdq:bd<b>` (ONNX Runtime's convention); otherwise
//   (input not quantized, or a bias beyond int32 at that scale) the bias stays float.
// - FP32 islands: nodes kept in float (the detection tail, --keep-fp32 names) get no Q/DQ of their
//   own and keep float weights; their inputs may still come through a DequantizeLinear.
// - metadata_props: every entry of the FP32 file, plus "yolo_edge_quantization", a JSON object:
//   {"method", "frames", "keep_fp32": [node names], "format": "qdq-int8-v1"}.
//
// runtime/ knows nothing of images: calibration frames come from the caller, already letterboxed.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/engine/input_size.h"
#include "runtime/model/fp32_rewrite.h"
#include "runtime/model/model_metadata.h"
#include "runtime/model/onnx_model.h"
#include "runtime/quantize/calibrate.h"
#include "runtime/quantize/calibration.h"
#include "runtime/quantize/error.h"
#include "runtime/quantize/noise_meter.h"
#include "runtime/quantize/weight_plan.h"

namespace yolo::runtime {

enum class KeepFp32Mode {
  kAuto,  // the detection tail, plus the final convs that measurement finds sensitive
  kNone,  // quantize every quantizable node
  kList,  // exactly the nodes named in QuantizeOptions::keep_nodes (plus nothing else)
};

struct QuantizeOptions {
  CalibrationMethod method = CalibrationMethod::kMse;
  double percentile = 99.99;
  // At most this many frames are calibrated.
  int frames = 256;
  // How weights round to int8, and whether biases correct the mean shift the rounding leaves.
  WeightRounding rounding = WeightRounding::kNearest;
  bool bias_correction = true;
  KeepFp32Mode keep = KeepFp32Mode::kAuto;
  std::vector<std::string> keep_nodes;
  // Input size to calibrate at (models with dynamic axes take others than their own).
  InputSize imgsz;
  // Progress lines (frames calibrated, layers kept).
  std::function<void(const std::string&)> log;
  // Makes the judge of detections `auto` reports each FP32 choice's agreement with (the caller
  // decodes); unset: noise and time only.
  std::function<std::unique_ptr<OutputJudge>()> judge;
  // Called with the FP32 model's first output shape before calibration; throws to refuse a model
  // whose output no decoder reads (the caller knows the decoders, runtime/ does not).
  std::function<void(const Shape& output_shape, const ModelMetadata& metadata)> check_output;
};

struct QuantizeResult {
  int frames = 0;
  std::uintmax_t fp32_bytes = 0;
  std::uintmax_t int8_bytes = 0;
  std::vector<std::string> kept_fp32;
  // What --report writes: per-layer ranges, kept layers and why, sizes, phase times.
  nlohmann::json report;
};

// The whole job, one phase per file of runtime/quantize/: checks, calibration (calibrate.h),
// weights (weight_plan.h), the convs around widely spread tensors (channel_spread.h), sensitivity
// of the final convs (sensitivity.h) and the FP32 trades of the first convs (fp32_trade.h), the
// QDQ rewrite
// (qdq_rewrite.h), atomic write to `out` (model_file.h), report (report.h).
// Throws QuantizeError or ModelError.
QuantizeResult quantize_model(const std::filesystem::path& fp32_model,
                              const std::filesystem::path& out, const QuantizeOptions& options,
                              const FrameProvider& frames);

// What the quantizer starts from: FP32 files as they are, FP16 exports converted to FP32, and
// dynamic-INT8 files from the FP32 graph their ConvInteger chains fold into
// (runtime/model/fp32_rewrite.h: the graph the engine runs them as).
struct QuantizeSource {
  onnx::ModelProto model;
  Float16Conversion float16;
  Int8FoldStats dynamic;
  // One line saying what the file was and what the quantizer starts from.
  std::string describe() const;
};

// Refuses models the quantizer must not take: static INT8 already (QDQ or QOperator; the message
// names the first quantized node), or an Ultralytics task other than "detect"; otherwise the FP32
// graph to start from.
QuantizeSource quantize_source(const OnnxModel& model);

}  // namespace yolo::runtime
