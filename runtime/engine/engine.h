// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/engine/input_size.h"
#include "runtime/engine/precision.h"
#include "runtime/engine/tensor.h"
#include "runtime/int8/qdq_plan.h"
#include "runtime/model/fp32_rewrite.h"
#include "runtime/model/model_lint.h"
#include "runtime/model/model_metadata.h"

namespace yolo::runtime {

namespace xnn {
class ThreadPools;
}
// Thread pools (one per thread count, runtime/xnn/xnn_operator.h) that several engines share: the
// daemon builds a new engine beside the running one, and two engines must not double the threads.
using SharedThreadPools = std::shared_ptr<xnn::ThreadPools>;
SharedThreadPools make_thread_pools();

// What a model file says about how it runs, read without planning it: for callers deciding what
// to load (the daemon's model manager, bench) and for Engine::input_for.
struct ModelFile {
  std::filesystem::path path;
  // What kFile runs it at: kInt8 for a static (QDQ) INT8 file, else kFp32.
  Precision precision = Precision::kFp32;
  // The image input's shape as declared, -1 for dynamic dims (empty when the file has no single
  // 4-D input: Engine::load says what is wrong).
  Shape input;
  ModelMetadata metadata;

  // The input `request` gives this model, as Engine::load plans it: a fixed-shape file its shape
  // (kAuto included), a dynamic one the size asked for, checked against its stride. Throws
  // ModelError naming the file and `key` (how the user wrote the setting: "--imgsz",
  // "model.imgsz") for a size it cannot take.
  InputSize input_for(const InputSize& request, const std::string& key) const;
};
// Throws ModelError when the file cannot be read as ONNX.
ModelFile read_model_file(const std::filesystem::path& model);
// Whether `model` is a static (QDQ) INT8 file; false when it cannot be read (loading it says why):
// for config checks, where model.path may name one instead of needing model.int8_path.
bool is_static_int8_file(const std::filesystem::path& model);
// RGB; float = value / 255.
enum class InputLayout { kNchwFloat, kNhwcFloat, kNhwcUint8 };

// Where precision int8 looks for the quantized model of an FP32 file: beside it, with ".int8"
// before the extension (yolov8n.onnx -> yolov8n.int8.onnx), the name `yolo-edge quantize` suggests.
std::filesystem::path int8_sibling(const std::filesystem::path& model);

// The per-node plan Engine::load follows for `model` at precision int8 (`imgsz` as in
// EngineOptions): it shares every step before the lowering with Engine::load, so the plan cannot
// drift from what runs. Throws ModelError as Engine::load does.
QdqPlan plan_qdq_model(const std::filesystem::path& model, const InputSize& imgsz);

// What stops Engine::load from running `model` at precision fp32, in its words (an op or attribute
// the runtime does not take, a QOperator node, a shape it cannot infer, an input that is not one
// image); nullopt when it would load. The same steps as Engine::load up to planning, nothing
// allocated or packed. `imgsz` as in EngineOptions; a dynamic-axes file with none given nor
// recorded in its metadata is checked at 640 x 640 (its size is the user's to choose).
std::optional<std::string> load_refusal(const std::filesystem::path& model, const InputSize& imgsz);

struct EngineOptions {
  Precision precision = Precision::kFile;
  int threads = 1;
  // Input size (models exported with dynamic axes take others than their own).
  InputSize imgsz;
  // How the option or key that set imgsz is spelled where the user wrote it ("--imgsz",
  // "model.imgsz"), for messages.
  std::string imgsz_key = "--imgsz";
  // Dynamic-INT8 chains: folded into FP32 convolutions (FP32 speed), or run as the file writes
  // them (activations rounded on every run: what `compare` judges against).
  DynamicInt8 dynamic_int8 = DynamicInt8::kFold;
  // Load-time notes, e.g. "folded 64 ConvInteger chains into FP32 Conv ...".
  std::function<void(const std::string&)> log;
  // Time every step of run().
  bool profile = false;
  // Pools to run on; null: the engine makes its own.
  SharedThreadPools pools;
};

struct OpProfile {
  std::string node;
  std::string op;
  double total_ms = 0;
  std::int64_t calls = 0;
};

// Our ONNX executor: loads a detection model, plans it once (constant folding, static shapes,
// fusions, NHWC layout, one memory arena, XNNPACK operators with packed weights) and runs it
// without allocating.
class Engine {
 public:
  // Throws ModelError naming the file (and node/op where there is one) and what to do.
  static std::unique_ptr<Engine> load(const std::filesystem::path& model,
                                      const EngineOptions& options);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  const ModelMetadata& metadata() const;
  // What runs: kFp32 or kInt8 (kFile resolved from the file).
  Precision precision() const;
  // How the file was written, as runtime/model/fp32_rewrite.h rewrote it at load: float16
  // converted, dynamic-INT8 chains folded.
  const Float16Conversion& float16() const;
  // The input `request` gives for this model, as load() would resolve it; throws ModelError as
  // load() does (a size the model cannot take). For callers telling whether frames of a new size
  // need another engine (InputSize::kAuto).
  InputSize input_for(const InputSize& request) const;
  // What `yolo-edge inspect --lint` finds in the file loaded (the INT8 sibling when precision
  // int8 chose it): for callers to show as warnings.
  const std::vector<LintFinding>& lint_findings() const;
  // FP32 engines take NHWC float (the first convolution reads it directly); INT8 engines whose
  // input quantizes with scale 1/255 and zero point -128 take the letterboxed uint8 image.
  InputLayout input_layout() const;
  int input_width() const;
  int input_height() const;
  // The caller writes the preprocessed image here, in input_layout(), before run().
  void* input_data();
  void run();
  std::size_t output_count() const;
  const std::string& output_name(std::size_t i) const;
  // float32, the model's logical (ONNX) shape, e.g. [1,84,8400].
  const Tensor& output(std::size_t i) const;
  // Between runs; one thread pool per count, created lazily.
  void set_threads(int n);
  int threads() const;
  // Per step of run(), in execution order (empty unless options.profile).
  std::vector<OpProfile> profile() const;

  // Planning facts for reports and tests.
  struct Stats {
    std::int64_t arena_bytes = 0;
    std::int64_t unshared_bytes = 0;
    int steps = 0;
    int folded_nodes = 0;
    // Dynamic-INT8 chains rewritten into FP32 Conv/MatMul at load.
    int int8_chains = 0;
    int fused_silu = 0;
    int layout_conversions = 0;
    int concat_inputs_in_place = 0;
    int concat_inputs_copied = 0;
    // INT8 models: int8 convolutions, and the converts at the borders of FP32 islands.
    int int8_convs = 0;
    int int8_quantize = 0;
    int int8_dequantize = 0;
  };
  const Stats& stats() const;

 private:
  struct Impl;
  explicit Engine(std::unique_ptr<Impl> impl);
  static std::unique_ptr<Engine> load_model(const std::filesystem::path& model,
                                            const EngineOptions& options);
  std::unique_ptr<Impl> impl_;
};

}  // namespace yolo::runtime
