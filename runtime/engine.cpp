// SPDX-License-Identifier: Apache-2.0
#include "runtime/engine.h"

#include <chrono>
#include <cstring>
#include <new>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "runtime/graph.h"
#include "runtime/graph_passes.h"
#include "runtime/kernels/unary.h"
#include "runtime/memory_plan.h"
#include "runtime/model_error.h"
#include "runtime/onnx_model.h"
#include "runtime/ops/op.h"
#include "runtime/qdq_lowering.h"
#include "runtime/xnn/xnn_operator.h"

namespace yolo::runtime {

namespace {

std::string mib(std::int64_t bytes) {
  std::ostringstream s;
  s.precision(1);
  s << std::fixed << static_cast<double>(bytes) / (1024.0 * 1024.0) << " MiB";
  return s.str();
}

// Fixes the input's dynamic dims: batch 1, channels 3, height and width from imgsz.
void resolve_input_shape(Graph& graph, const ModelMetadata& metadata, int imgsz) {
  if (graph.inputs.size() != 1) {
    throw ModelError(graph.where + ": the model has " + std::to_string(graph.inputs.size()) +
                     " inputs; a detection model has exactly one image input");
  }
  auto& in = graph.value(graph.inputs[0]);
  if (in.dtype != DType::kFloat32 || in.shape.size() != 4) {
    throw ModelError(graph.where + ": input '" + in.name + "' is " + dtype_name(in.dtype) + " " +
                     shape_string(in.shape) +
                     "; expected a float32 NCHW image tensor [1,3,height,width]");
  }
  auto& s = in.shape;
  if (s[0] < 0) s[0] = 1;
  if (s[1] < 0) s[1] = 3;
  const bool dynamic = s[2] < 0 || s[3] < 0;
  if (dynamic) {
    std::int64_t h = imgsz, w = imgsz;
    if (imgsz <= 0 && metadata.imgsz.size() == 2) {
      h = metadata.imgsz[0];
      w = metadata.imgsz[1];
    }
    if (h <= 0 || w <= 0) {
      throw ModelError(graph.where + ": input '" + in.name + "' has dynamic height/width " +
                       "and the model's metadata gives no imgsz; pass --imgsz (or set " +
                       "model.imgsz in the config)");
    }
    if (s[2] < 0) s[2] = h;
    if (s[3] < 0) s[3] = w;
  } else if (imgsz > 0 && (s[2] != imgsz || s[3] != imgsz)) {
    throw ModelError(graph.where + ": the model's input is fixed at " + std::to_string(s[3]) + "x" +
                     std::to_string(s[2]) + ", not " + std::to_string(imgsz) +
                     "; drop --imgsz or re-export the model with dynamic axes");
  }
  if (s[0] != 1) {
    throw ModelError(graph.where + ": input batch is " + std::to_string(s[0]) +
                     "; the runtime runs batch 1, re-export with batch 1");
  }
  check_tensor_size(s, in.dtype, graph.where + ": input '" + in.name + "'");
  in.has_shape = true;
}

// XNNPACK packed the weights and biases of convolutions into its own buffers when their steps
// were made; constants read by nothing else (or by nothing at all any more, like the int8 weights
// of folded chains) are dropped so the model's weights are not held twice.
void release_packed_weights(Graph& graph) {
  const auto consumers = graph.consumers();
  for (std::size_t id = 0; id < graph.values.size(); ++id) {
    auto& v = graph.values[id];
    if (!v.constant || v.graph_output) continue;
    bool packed_only = true;
    for (int n : consumers[id]) {
      const Node& node = graph.nodes[static_cast<std::size_t>(n)];
      const bool conv =
          node.domain.empty() && (node.op_type == "Conv" || node.op_type == "ConvTranspose");
      if (!conv || node.input(0) == static_cast<int>(id)) packed_only = false;
    }
    if (packed_only) v.constant.reset();
  }
}

// The graph as the engine plans it up to (for precision int8) the QDQ lowering. Engine::load and
// plan_qdq_model both start here, so the plan `inspect` shows is the one that runs.
struct PreparedGraph {
  std::filesystem::path path;  // the file loaded: the INT8 sibling when precision int8 chose it
  ModelMetadata metadata;
  Graph graph;
  int folded_nodes = 0;
  Int8FoldStats dynamic;
  QdqLoweringStats qdq;
  std::vector<LintFinding> lint;
};

bool is_dynamic_int8(const Graph& graph) {
  for (const auto& node : graph.nodes) {
    if (node.op_type == "DynamicQuantizeLinear") return true;
  }
  return false;
}

PreparedGraph prepare_graph(const std::filesystem::path& model_path, const EngineOptions& options,
                            std::vector<QdqLayer>* layers) {
  PreparedGraph prepared;
  prepared.path = model_path;
  Graph& graph = prepared.graph;
  {
    // The parsed file is dropped as soon as the graph holds its own copy of the weights.
    OnnxModel model = OnnxModel::load(model_path);
    prepared.metadata = read_metadata(model.proto());
    graph = Graph::from_onnx(model.proto(), model_path.string());
    prepared.lint = lint_model(model.proto());
  }
  reject_qoperator(graph);
  resolve_input_shape(graph, prepared.metadata, options.imgsz);
  const bool int8 = options.precision == Precision::kInt8;
  QuantizedWeights quantized_weights;
  if (int8) {
    if (!is_qdq_model(graph)) {
      const auto sibling = int8_sibling(model_path);
      if (is_dynamic_int8(graph)) {
        throw ModelError(model_path.string() +
                         ": precision int8 needs a static (QDQ) INT8 model and this one is "
                         "dynamic INT8, which quantizes every activation at run time and is "
                         "slower than FP32 on CPUs; quantize the FP32 model it was exported from "
                         "with `yolo-edge quantize --model FP32.onnx --calib SRC --out " +
                         sibling.filename().string() + "`, or run with precision fp32");
      }
      std::error_code error;
      if (std::filesystem::is_regular_file(sibling, error)) {
        if (options.log) {
          options.log("precision int8: " + model_path.string() +
                      " is FP32; running its INT8 sibling " + sibling.string());
        }
        return prepare_graph(sibling, options, layers);
      }
      throw ModelError(
          model_path.string() +
          ": precision int8 needs a quantized (QDQ) model; this one is FP32 and has no INT8 "
          "sibling " +
          sibling.string() + "; make it with `yolo-edge quantize --model " + model_path.string() +
          " --calib SRC --out " + sibling.string() +
          "` (it is then found by itself), or set model.int8_path in the config, or run with "
          "precision fp32");
    }
    quantized_weights = collect_quantized_weights(graph);
  }
  prepared.folded_nodes = infer_and_fold(graph);
  prepared.dynamic = fold_dynamic_int8(graph);
  if (int8) {
    QdqLoweringOptions lowering;
    lowering.one_table_chains = prepared.metadata.raw.contains(kOwnQuantizationKey);
    prepared.qdq = lower_qdq(graph, quantized_weights, lowering, layers);
  }
  return prepared;
}

// Runs `load`, turning every failure into a ModelError that names the file.
template <typename Load>
auto as_model_error(const std::filesystem::path& model_path, Load load) {
  try {
    return load();
  } catch (const ModelError&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw ModelError(model_path.string() +
                     ": out of memory while planning the model; it is corrupt or too large");
  } catch (const std::exception& e) {
    throw ModelError(model_path.string() + ": " + e.what());
  }
}

}  // namespace

QdqPlan plan_qdq_model(const std::filesystem::path& model, int imgsz) {
  EngineOptions options;
  options.precision = Precision::kInt8;
  options.imgsz = imgsz;
  return as_model_error(model, [&] {
    QdqPlan plan;
    plan.stats = prepare_graph(model, options, &plan.layers).qdq;
    return plan;
  });
}

struct Engine::Impl {
  ModelMetadata metadata;
  std::vector<LintFinding> lint;
  Graph graph;
  MemoryPlan plan;
  Tensor arena;
  std::vector<std::unique_ptr<ops::Step>> steps;
  std::vector<OpProfile> profile;
  // The uint8 image of an INT8 model whose input quantizes exactly from it (kNhwcUint8).
  std::vector<std::uint8_t> image;
  bool profiling = false;
  ops::ValueView input;
  std::vector<ops::ValueView> output_views;
  std::vector<std::string> output_names;
  std::vector<Tensor> outputs;
  SharedThreadPools pools;
  int threads = 1;
  Stats stats;

  void setup() {
    pthreadpool_t pool = pools->get(threads);
    for (auto& s : steps) s->setup(pool);
  }

  void copy_output(std::size_t i) {
    const auto& v = output_views[i];
    Tensor& out = outputs[i];
    if (v.dtype != DType::kFloat32) {
      kernels::cast(v.cref(), out);
    } else if (v.layout == ops::Layout::kNchw) {
      std::memcpy(out.data(), v.data, out.bytes());
    } else {
      const std::int64_t n = v.physical[0], hw = v.physical[1] * v.physical[2], c = v.physical[3];
      const float* src = v.f32();
      float* dst = out.data_as<float>();
      for (std::int64_t b = 0; b < n; ++b) {
        for (std::int64_t p = 0; p < hw; ++p) {
          for (std::int64_t k = 0; k < c; ++k) {
            dst[(b * c + k) * hw + p] = src[(b * hw + p) * v.pixel_stride + k];
          }
        }
      }
    }
  }
};

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Engine::~Engine() = default;

std::filesystem::path int8_sibling(const std::filesystem::path& model) {
  auto sibling = model;
  sibling.replace_filename(model.stem().string() + ".int8" + model.extension().string());
  return sibling;
}

std::unique_ptr<Engine> Engine::load(const std::filesystem::path& model_path,
                                     const EngineOptions& options) {
  return as_model_error(model_path, [&] { return load_model(model_path, options); });
}

std::unique_ptr<Engine> Engine::load_model(const std::filesystem::path& model_path,
                                           const EngineOptions& options) {
  if (options.threads < 1) {
    throw ModelError("threads must be at least 1 (got " + std::to_string(options.threads) + ")");
  }
  auto log = [&](const std::string& line) {
    if (options.log) options.log(line);
  };
  const auto started = std::chrono::steady_clock::now();
  auto impl = std::make_unique<Impl>();
  PreparedGraph prepared = prepare_graph(model_path, options, nullptr);
  const std::filesystem::path& loaded = prepared.path;
  impl->metadata = std::move(prepared.metadata);
  impl->lint = std::move(prepared.lint);
  impl->graph = std::move(prepared.graph);
  Graph& graph = impl->graph;
  Stats& stats = impl->stats;
  stats.folded_nodes = prepared.folded_nodes;
  const auto& dynamic = prepared.dynamic;
  stats.int8_chains = dynamic.conv + dynamic.matmul;
  if (stats.int8_chains > 0) {
    log("folded " + std::to_string(dynamic.conv) +
        " DynamicQuantizeLinear -> ConvInteger chains into FP32 Conv" +
        (dynamic.matmul
             ? " and " + std::to_string(dynamic.matmul) + " MatMulInteger chains into MatMul"
             : std::string()) +
        " with dequantized weights: dynamic INT8 quantizes every activation at run time and is "
        "slower than FP32 on CPUs; `yolo-edge quantize` makes a real static INT8 model");
  }
  if (options.precision == Precision::kInt8) {
    const auto& q = prepared.qdq;
    stats.int8_convs = q.conv;
    stats.int8_quantize = q.quantize;
    stats.int8_dequantize = q.dequantize;
    if (q.uint8_input)
      impl->image.resize(
          static_cast<std::size_t>(element_count(graph.value(graph.inputs[0]).shape)));
    log("int8: " + std::to_string(q.conv) + " convs (" + std::to_string(q.conv_act) +
        " with element-wise tables), " + std::to_string(q.tables) + " tables (" +
        std::to_string(q.chains_as_written) + " chains with inner roundings, as written), " +
        std::to_string(q.binary) + " add/mul, " + std::to_string(q.maxpool) + " max pools, " +
        std::to_string(q.upsample) + " upsamples, " + std::to_string(q.channel_ops) +
        " concat/split; FP32 islands enter through " + std::to_string(q.dequantize) +
        " and leave through " + std::to_string(q.quantize) + " converts; input " +
        (q.uint8_input ? "uint8 image" : "float"));
  }
  graph.remove_unused();
  const auto fusion = fuse_activations(graph);
  stats.fused_silu = fusion.silu;
  impl->plan = plan_memory(graph, ops::Layout::kNhwc);
  const MemoryPlan& plan = impl->plan;
  stats.arena_bytes = plan.arena_bytes;
  stats.unshared_bytes = plan.unshared_bytes;
  stats.layout_conversions = plan.layout_conversions;
  stats.concat_inputs_in_place = plan.concat_inputs_in_place;
  stats.concat_inputs_copied = plan.concat_inputs_copied;
  check_tensor_size({plan.arena_bytes}, DType::kUInt8, loaded.string() + ": the arena");
  impl->arena = Tensor(DType::kUInt8, {plan.arena_bytes});
  auto* arena = impl->arena.data_as<std::uint8_t>();

  for (const auto& node : graph.nodes) {
    const auto* spec = ops::find_op(node.domain, node.op_type);
    if (!spec) graph.fail(node, "has no implementation");
    ops::StepContext context{graph, node, {}, {}};
    for (int id : node.inputs) context.inputs.push_back(view_of(graph, plan, id, arena));
    for (int id : node.outputs) context.outputs.push_back(view_of(graph, plan, id, arena));
    try {
      impl->steps.push_back(spec->create_step(context));
    } catch (const ModelError&) {
      throw;
    } catch (const std::exception& e) {
      graph.fail(node, e.what());
    }
    impl->profile.push_back(
        {node.name, (node.domain.empty() ? "" : node.domain + ".") + node.op_type});
  }
  stats.steps = static_cast<int>(impl->steps.size());
  release_packed_weights(graph);
  impl->input = view_of(graph, plan, graph.inputs[0], arena);
  for (int id : graph.outputs) {
    const auto& v = graph.value(id);
    impl->output_views.push_back(view_of(graph, plan, id, arena));
    impl->output_names.push_back(v.name);
    impl->outputs.emplace_back(DType::kFloat32, v.shape);
  }
  impl->profiling = options.profile;
  impl->threads = options.threads;
  impl->pools = options.pools ? options.pools : make_thread_pools();
  try {
    impl->setup();
  } catch (const std::exception& e) {
    throw ModelError(loaded.string() + ": cannot set up the operators: " + e.what());
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  log("planned " + std::to_string(stats.steps) + " steps (" + std::to_string(stats.folded_nodes) +
      " nodes folded at load, " + std::to_string(fusion.conv_silu) + " Conv+SiLU, " +
      std::to_string(fusion.conv_clamp) + " Conv+clamp, " +
      std::to_string(stats.concat_inputs_in_place) + " concat inputs written in place, " +
      std::to_string(stats.layout_conversions) + " layout conversions); arena " +
      mib(stats.arena_bytes) + " for " + mib(stats.unshared_bytes) + " of activations; loaded in " +
      std::to_string(static_cast<int>(ms)) + " ms");
  return std::unique_ptr<Engine>(new Engine(std::move(impl)));
}

SharedThreadPools make_thread_pools() {
  return std::make_shared<xnn::ThreadPools>();
}

const ModelMetadata& Engine::metadata() const {
  return impl_->metadata;
}

const std::vector<LintFinding>& Engine::lint_findings() const {
  return impl_->lint;
}

InputLayout Engine::input_layout() const {
  if (!impl_->image.empty()) return InputLayout::kNhwcUint8;
  return impl_->input.layout == ops::Layout::kNhwc ? InputLayout::kNhwcFloat
                                                   : InputLayout::kNchwFloat;
}

int Engine::input_width() const {
  return static_cast<int>(impl_->input.shape[3]);
}
int Engine::input_height() const {
  return static_cast<int>(impl_->input.shape[2]);
}
void* Engine::input_data() {
  if (!impl_->image.empty()) return impl_->image.data();
  return impl_->input.data;
}

void Engine::run() {
  pthreadpool_t pool = impl_->pools->get(impl_->threads);
  if (!impl_->image.empty()) {
    // q = pixel - 128 for scale 1/255, zero point -128: the top bit flipped.
    auto* q = static_cast<std::uint8_t*>(impl_->input.data);
    for (std::size_t i = 0; i < impl_->image.size(); ++i) q[i] = impl_->image[i] ^ 0x80U;
  }
  auto& steps = impl_->steps;
  if (impl_->profiling) {
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      steps[i]->run(pool);
      auto& p = impl_->profile[i];
      p.total_ms +=
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      ++p.calls;
    }
  } else {
    for (auto& s : steps) s->run(pool);
  }
  for (std::size_t i = 0; i < impl_->outputs.size(); ++i) impl_->copy_output(i);
}

std::size_t Engine::output_count() const {
  return impl_->outputs.size();
}
const std::string& Engine::output_name(std::size_t i) const {
  return impl_->output_names.at(i);
}
const Tensor& Engine::output(std::size_t i) const {
  return impl_->outputs.at(i);
}

void Engine::set_threads(int n) {
  if (n < 1) throw std::invalid_argument("threads must be at least 1, got " + std::to_string(n));
  if (n == impl_->threads) return;
  impl_->threads = n;
  impl_->setup();
}

int Engine::threads() const {
  return impl_->threads;
}

std::vector<OpProfile> Engine::profile() const {
  if (!impl_->profiling) return {};
  return impl_->profile;
}

const Engine::Stats& Engine::stats() const {
  return impl_->stats;
}

}  // namespace yolo::runtime
