#pragma once

// Static post-training quantization of an FP32 YOLO ONNX model into a QDQ ONNX file.
//
// THE FILE FORMAT (the contract with the INT8 engine; ONNX Runtime loads it as any QDQ model):
// - Default-domain opset >= 13. Opset-12 inputs are raised to 13 (raise_to_opset13): Split's
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

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/calibration.h"
#include "runtime/engine.h"
#include "runtime/model_metadata.h"
#include "runtime/onnx_model.h"

namespace yolo::runtime {

// Bad input to the quantizer (no frames, already quantized, not a detector, unwritable output):
// the message says what and where, and what to do. The CLI maps it to exit status 2.
class QuantizeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class KeepFp32Mode {
  kAuto,  // the detection tail, plus the final convs that measurement finds sensitive
  kNone,  // quantize every quantizable node
  kList,  // exactly the nodes named in QuantizeOptions::keep_nodes (plus nothing else)
};

// Writes the next calibration frame into `dst` (3 * width * height floats, RGB / 255, letterboxed
// as detection does) in `layout` (kNchwFloat or kNhwcFloat); false when there are no more.
using FrameProvider =
    std::function<bool(InputLayout layout, int width, int height, std::span<float> dst)>;

struct QuantizeOptions {
  CalibrationMethod method = CalibrationMethod::kMinMax;
  double percentile = 99.99;
  // At most this many frames are calibrated.
  int frames = 256;
  KeepFp32Mode keep = KeepFp32Mode::kAuto;
  std::vector<std::string> keep_nodes;
  // Input size for models with dynamic axes (0: the model's own).
  int imgsz = 0;
  // Progress lines (frames calibrated, layers kept).
  std::function<void(const std::string&)> log;
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

// The whole job: checks, calibration, sensitivity, QDQ rewrite, atomic write to `out`.
// Throws QuantizeError or ModelError.
QuantizeResult quantize_model(const std::filesystem::path& fp32_model,
                              const std::filesystem::path& out, const QuantizeOptions& options,
                              const FrameProvider& frames);

// Refuses models the quantizer must not take: already quantized (any kind), or an Ultralytics
// task other than "detect".
void check_quantizable(const OnnxModel& model);
// Refuses an output path whose folder is missing or not writable (checked by creating and
// removing a file there), before any time is spent calibrating. `option` names the path in the
// message ("--out", "--report").
void check_writable(const std::filesystem::path& out, const std::string& option = "--out");
// Serializes to a temporary file beside `out`, then renames it over `out`: a reader never sees a
// half-written model, and a failure leaves no file behind.
void write_model_atomically(const onnx::ModelProto& model, const std::filesystem::path& out);

// The structural analysis of a YOLO graph that `auto` starts from.
struct GraphRegions {
  // Nodes after the last real Conv of each branch: DFL (Softmax -> Conv), box decode, final
  // Concat/Sigmoid, TopK/Gather tails.
  std::set<std::string> tail;
  // The last real Conv of each detection branch (box and class convs): sensitivity candidates.
  std::vector<std::string> final_convs;
};
GraphRegions find_regions(const onnx::GraphProto& graph);

// Measured noise differs between machines: their float kernels round differently, which moves
// calibrated scales by ~1e-6 and flips rare ties in the fake-quant runs that measure the noise,
// and over ~90 layers those flips move a prefix's noise by 0.5 dB and more (docs/quantization.md).
// `auto` changes a choice only on a difference larger than this margin.
inline constexpr double kDecisionMarginDb = 1.0;

// The stem `auto` keeps FP32, from the noise at the final convs with the first k convs kept FP32
// (prefix_noise[k]; [0]: none kept): starting from none, a longer prefix replaces the choice so far
// only when its noise is lower by more than kDecisionMarginDb. Returns the number of convs kept.
std::size_t choose_stem_prefix(const std::vector<double>& prefix_noise);

// The float activation tensors a QDQ rewrite with this keep set quantizes (model input included).
std::vector<std::string> quantized_tensors(const onnx::GraphProto& graph,
                                           const std::set<std::string>& keep_fp32);

// Gives every unnamed node a name ("Op_<index>"): keep lists and reports name nodes.
void name_unnamed_nodes(onnx::GraphProto& graph);

// Raises an opset < 13 model to 13 as described above; `ranks` holds the rank of each Softmax
// (LogSoftmax, Hardmax) input, observed during calibration. Throws QuantizeError naming the node
// it cannot raise.
void raise_to_opset13(onnx::ModelProto& model, const std::map<std::string, std::size_t>& ranks);

// Narrows calibrated ranges where the consumers make part of a range irrelevant, and returns
// why, per tensor changed:
// - a tensor read only by a SiLU (Sigmoid(t) and Mul(t, Sigmoid(t))): below the x where |SiLU(x)|
//   is half a step of the SiLU output's int8 scale, every input gives the same int8 output, so the
//   range starts there. Early conv outputs reach -100 where SiLU is 0: those ranges shrink 2-4x.
// - a Sigmoid output: [0, 1], its exact range (a calibrated 0.99 would clip).
std::map<std::string, std::string> refine_ranges(const onnx::GraphProto& graph,
                                                 std::map<std::string, ActivationRange>& ranges);

// The QDQ rewrite described above, of a model at opset >= 13 with named nodes. `ranges` must hold
// every tensor of quantized_tensors() except the model input; nodes named in `keep_fp32` stay
// float. Throws QuantizeError when a range is missing or the opset is below 13.
onnx::ModelProto build_qdq_model(const onnx::ModelProto& fp32,
                                 const std::map<std::string, ActivationRange>& ranges,
                                 const std::set<std::string>& keep_fp32);

}  // namespace yolo::runtime
