// SPDX-License-Identifier: Apache-2.0
#include "runtime/engine/engine.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <new>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "runtime/engine/graph.h"
#include "runtime/engine/graph_passes.h"
#include "runtime/engine/memory_plan.h"
#include "runtime/int8/qdq_lowering.h"
#include "runtime/int8/qoperator.h"
#include "runtime/kernels/unary.h"
#include "runtime/model/model_error.h"
#include "runtime/model/onnx_model.h"
#include "runtime/ops/op.h"
#include "runtime/xnn/xnn_operator.h"

namespace yolo::runtime {

namespace {

std::string mib(std::int64_t bytes) {
  std::ostringstream s;
  s.precision(1);
  s << std::fixed << static_cast<double>(bytes) / (1024.0 * 1024.0) << " MiB";
  return s.str();
}

// The largest stride of the models we run when the metadata records none: the output grid of
// every YOLO has cells of 32 pixels at least.
constexpr int kDefaultStride = 32;
// The side load_refusal checks a dynamic-axes file at when no size is given: YOLO's usual export.
constexpr int kCheckedSide = 640;

// "320x320": an input's height x width, as the messages about --imgsz say it (not a shape).
std::string size_text(std::int64_t height, std::int64_t width) {
  return std::to_string(height) + "x" + std::to_string(width);
}

// The height and width the image input takes for `request`: `file` is the input's shape as the
// file declares it (-1 for dynamic dims). `where` is the file, `key` the option or config key
// that asked (for messages).
InputSize resolve_input(const Shape& file, const ModelMetadata& metadata, const InputSize& request,
                        const std::string& key, const std::string& where) {
  const bool dynamic = file[2] < 0 || file[3] < 0;
  if (!dynamic) {
    // A declared size beyond any tensor is refused before it is narrowed to int (a dynamic
    // batch counts as 1).
    Shape declared = file;
    for (auto& d : declared) d = std::max<std::int64_t>(d, 1);
    check_tensor_size(declared, DType::kFloat32, where + ": input");
    const auto h = static_cast<int>(file[2]), w = static_cast<int>(file[3]);
    if (request.mode == InputSize::Mode::kFixed && (request.height != h || request.width != w)) {
      throw ModelError(where + ": the model's input is fixed at " + size_text(h, w) +
                       " (height x width), not " + size_text(request.height, request.width) +
                       " as " + key + " asks; drop " + key +
                       " (or set it to auto) or re-export the model with dynamic axes");
    }
    return InputSize::fixed(h, w);
  }
  const int stride = metadata.stride > 0 ? metadata.stride : kDefaultStride;
  const bool exported = metadata.imgsz.size() == 2;
  if (request.mode == InputSize::Mode::kFixed) {
    for (const int side : {request.height, request.width}) {
      if (side > 0 && side % stride == 0) continue;
      const int down = std::max(stride, side / stride * stride);
      throw ModelError(
          where + ": " + key + " " + size_text(request.height, request.width) +
          " cannot be this model's input: " + std::to_string(side) +
          " is not a multiple of its stride " + std::to_string(stride) +
          (metadata.stride > 0 ? "" : " (the usual YOLO stride; the metadata records none)") +
          ", so its feature maps would not line up; use " + std::to_string(down) + " or " +
          std::to_string(down + stride) + " instead, or auto");
    }
    return request;
  }
  if (!exported) {
    throw ModelError(where +
                     ": the input has dynamic height/width and the model's metadata "
                     "gives no imgsz; set " +
                     key +
                     " to the size to run, e.g. 640 or 384,640 "
                     "(height, width, multiples of 32)");
  }
  if (request.has_frame()) {
    const int long_side = std::max(metadata.imgsz[0], metadata.imgsz[1]);
    return aspect_input(request.height, request.width, long_side, stride);
  }
  return InputSize::fixed(metadata.imgsz[0], metadata.imgsz[1]);
}

// Fixes the input's dynamic dims: batch 1, channels 3, height and width as resolve_input says.
void resolve_input_shape(Graph& graph, const ModelMetadata& metadata,
                         const EngineOptions& options) {
  if (graph.inputs.size() != 1) {
    throw ModelError(graph.where + ": the model has " + std::to_string(graph.inputs.size()) +
                     " inputs; a detection model has exactly one image input");
  }
  auto& in = graph.value(graph.inputs[0]);
  if (in.dtype != DType::kFloat32 || in.shape.size() != 4) {
    throw ModelError(graph.where + ": input '" + in.name + "' is " + dtype_name(in.dtype) + " " +
                     shape_text(in.shape) +
                     "; expected a float32 NCHW image tensor [1,3,height,width]");
  }
  auto& s = in.shape;
  if (s[0] < 0) s[0] = 1;
  if (s[1] < 0) s[1] = 3;
  const InputSize size = resolve_input(s, metadata, options.imgsz, options.imgsz_key, graph.where);
  s[2] = size.height;
  s[3] = size.width;
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
  // The image input's shape as the file declares it (-1 for dynamic dims).
  Shape file_input;
  // What the file is and what runs.
  bool qdq_file = false;
  Precision precision = Precision::kFp32;
  int folded_nodes = 0;
  Float16Conversion float16;
  Int8FoldStats dynamic;
  QdqLoweringStats qdq;
  std::vector<LintFinding> lint;
};

bool has_op(const onnx::ModelProto& model, std::initializer_list<const char*> ops) {
  for (const auto& node : model.graph().node()) {
    for (const char* op : ops) {
      if (node.op_type() == op) return true;
    }
  }
  return false;
}

PreparedGraph prepare_graph(const std::filesystem::path& model_path, const EngineOptions& options,
                            std::vector<QdqLayer>* layers) {
  PreparedGraph prepared;
  prepared.path = model_path;
  Graph& graph = prepared.graph;
  bool dynamic_int8 = false;
  // Static INT8 as the file is written, what kFile runs at int8 (a dynamic file run as written
  // gains DequantizeLinear nodes, and stays FP32).
  bool qdq = false;
  {
    // The parsed file is dropped as soon as the graph holds its own copy of the weights. The
    // lint reads the file as written; the graph is built from its FP32 form.
    OnnxModel model = OnnxModel::load(model_path);
    prepared.metadata = read_metadata(model.proto());
    prepared.lint = lint_model(model.proto(), model_path);
    dynamic_int8 = has_op(model.proto(), {"DynamicQuantizeLinear"});
    qdq = has_op(model.proto(), {"QuantizeLinear", "DequantizeLinear"});
    prepared.float16 = convert_float16(model.proto(), model_path.string());
    prepared.dynamic = fold_dynamic_int8(model.proto(), options.dynamic_int8);
    graph = Graph::from_onnx(model.proto(), model_path.string());
  }
  reject_qoperator(graph);
  if (graph.inputs.size() == 1) prepared.file_input = graph.value(graph.inputs[0]).shape;
  resolve_input_shape(graph, prepared.metadata, options);
  prepared.qdq_file = qdq;
  prepared.precision = options.precision == Precision::kFile
                           ? (qdq ? Precision::kInt8 : Precision::kFp32)
                           : options.precision;
  const bool int8 = prepared.precision == Precision::kInt8;
  QuantizedWeights quantized_weights;
  if (int8) {
    if (!qdq) {
      const auto sibling = int8_sibling(model_path);
      std::error_code error;
      if (std::filesystem::is_regular_file(sibling, error)) {
        if (options.log) {
          options.log("precision int8: " + model_path.string() +
                      " is not static INT8; running its INT8 sibling " + sibling.string());
        }
        return prepare_graph(sibling, options, layers);
      }
      const std::string kind = dynamic_int8 ? "dynamic INT8 (it quantizes every activation at "
                                              "run time and is slower than FP32 on CPUs)"
                               : prepared.float16.any() ? "an FP16 export"
                                                        : "FP32";
      throw ModelError(
          model_path.string() + ": precision int8 needs a static (QDQ) INT8 model; this one is " +
          kind + " and has no INT8 sibling " + sibling.string() +
          "; make it with `yolo-edge quantize --model " + model_path.string() +
          " --calib SRC --out " + sibling.string() +
          "` (it is then found by itself), or set model.int8_path in the config, or run with "
          "precision fp32");
    }
    quantized_weights = collect_quantized_weights(graph);
  }
  prepared.folded_nodes = infer_and_fold(graph);
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

QdqPlan plan_qdq_model(const std::filesystem::path& model, const InputSize& imgsz) {
  EngineOptions options;
  options.precision = Precision::kInt8;
  options.imgsz = imgsz;
  return as_model_error(model, [&] {
    QdqPlan plan;
    plan.stats = prepare_graph(model, options, &plan.layers).qdq;
    return plan;
  });
}

std::optional<std::string> load_refusal(const std::filesystem::path& model,
                                        const InputSize& imgsz) {
  EngineOptions options;
  options.precision = Precision::kFp32;
  options.imgsz = imgsz;
  try {
    const ModelFile file = read_model_file(model);
    const bool dynamic = file.input.size() == 4 && (file.input[2] < 0 || file.input[3] < 0);
    if (dynamic && imgsz.mode != InputSize::Mode::kFixed && file.metadata.imgsz.size() != 2) {
      options.imgsz = InputSize::fixed(kCheckedSide, kCheckedSide);
    }
    as_model_error(model, [&] { return prepare_graph(model, options, nullptr).folded_nodes; });
  } catch (const ModelError& e) {
    return e.what();
  }
  return std::nullopt;
}

struct Engine::Impl {
  ModelMetadata metadata;
  // The file as loaded (the INT8 sibling when precision int8 chose it), for input_for().
  ModelFile file;
  std::string imgsz_key;
  Precision precision = Precision::kFp32;
  Float16Conversion float16;
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
  impl->file = {loaded, prepared.qdq_file ? Precision::kInt8 : Precision::kFp32,
                prepared.file_input, prepared.metadata};
  impl->metadata = std::move(prepared.metadata);
  impl->imgsz_key = options.imgsz_key;
  impl->precision = prepared.precision;
  impl->float16 = prepared.float16;
  impl->lint = std::move(prepared.lint);
  impl->graph = std::move(prepared.graph);
  Graph& graph = impl->graph;
  Stats& stats = impl->stats;
  stats.folded_nodes = prepared.folded_nodes;
  const auto& dynamic = prepared.dynamic;
  stats.int8_chains = dynamic.total();
  if (prepared.float16.any()) {
    const auto& f = prepared.float16;
    log("FP16 export, computed in FP32: " + std::to_string(f.initializers) +
        " float16 weight tensors made float32 at load" +
        (f.casts ? ", " + std::to_string(f.casts) + " Cast to float16 now to float32"
                 : std::string()) +
        (f.inputs + f.outputs > 0 ? "; the float16 input and output are taken and given as float32"
                                  : std::string()));
  }
  if (stats.int8_chains > 0 && options.dynamic_int8 == DynamicInt8::kAsWritten) {
    log("dynamic INT8 run as written: " + std::to_string(stats.int8_chains) +
        " ConvInteger/MatMulInteger chains compute on their input as DynamicQuantizeLinear rounds "
        "it on every run");
  } else if (stats.int8_chains > 0) {
    log("folded " + std::to_string(dynamic.conv) +
        " DynamicQuantizeLinear -> ConvInteger chains into FP32 Conv" +
        (dynamic.matmul
             ? " and " + std::to_string(dynamic.matmul) + " MatMulInteger chains into MatMul"
             : std::string()) +
        " with dequantized weights: dynamic INT8 quantizes every activation at run time and is "
        "slower than FP32 on CPUs; `yolo-edge quantize --model " +
        loaded.string() + "` makes a real static INT8 model from it");
  }
  if (prepared.precision == Precision::kInt8) {
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

Precision Engine::precision() const {
  return impl_->precision;
}

const Float16Conversion& Engine::float16() const {
  return impl_->float16;
}

InputSize Engine::input_for(const InputSize& request) const {
  return impl_->file.input_for(request, impl_->imgsz_key);
}

ModelFile read_model_file(const std::filesystem::path& model) {
  const OnnxModel file = OnnxModel::load(model);
  ModelFile facts;
  facts.path = model;
  facts.precision = has_op(file.proto(), {"QuantizeLinear", "DequantizeLinear"}) ? Precision::kInt8
                                                                                 : Precision::kFp32;
  facts.metadata = read_metadata(file.proto());
  std::set<std::string> constants;
  for (const auto& init : file.proto().graph().initializer()) constants.insert(init.name());
  for (const auto& in : file.proto().graph().input()) {
    if (constants.contains(in.name())) continue;
    if (!facts.input.empty()) return facts;  // more than one input: Engine::load refuses it
    for (const auto& d : in.type().tensor_type().shape().dim()) {
      facts.input.push_back(d.has_dim_value() && d.dim_value() > 0 ? d.dim_value() : -1);
    }
  }
  if (facts.input.size() != 4) facts.input.clear();
  return facts;
}

bool is_static_int8_file(const std::filesystem::path& model) {
  try {
    return read_model_file(model).precision == Precision::kInt8;
  } catch (const ModelError&) {
    return false;
  }
}

InputSize ModelFile::input_for(const InputSize& request, const std::string& key) const {
  if (input.size() != 4) return request;
  return resolve_input(input, metadata, request, key, path.string());
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
