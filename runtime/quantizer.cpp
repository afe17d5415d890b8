#include "runtime/quantizer.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <numeric>
#include <optional>
#include <random>

#include "runtime/model_error.h"
#include "runtime/model_info.h"
#include "runtime/qdq_lowering.h"

namespace yolo::runtime {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Calibration frames kept (a uniform sample of all of them) to measure sensitivities. The noise
// at the final convs is decided by the few cells holding objects, so a handful of frames is not
// enough: on yolo11n, keeping one mid-network conv FP32 measured -47 % of the noise removed on 6
// frames and +5 % on 30, and the stem choice followed such luck. 24 frames (4.7 MB each at 640)
// gave the same choices as 32 there.
constexpr int kSensitivityFrames = 24;
// A final conv stays FP32 when keeping it raises the SQNR of its own output by at least this much:
// its own quantization then contributes at least half the noise there.
constexpr double kKeepGainDb = 3.0;
// ... or when calibration saw its output above 0 over less than this share of its range: a class
// logit above 0 is a score above 0.5, i.e. a detection, and a scene with few objects (a camera
// watching birds) leaves that side of the range unseen, so int8 would clip the very scores that
// matter on the first confident detection (0.5 at most when the maximum seen was below 0).
constexpr double kMinPositiveShare = 0.10;
// The first convs kept FP32 (chosen by choose_stem_prefix) hold at most this share of all conv
// MACs, which bounds their cost in speed.
constexpr double kMaxLayerMacShare = 0.12;

// What the rewrite needs to know about a graph: who produces and who reads each tensor, which
// tensors are constants, and which carry floats.
struct GraphIndex {
  std::map<std::string, int> producer;
  std::map<std::string, std::vector<int>> consumers;
  std::map<std::string, const onnx::TensorProto*> initializers;
  std::set<std::string> constants;
  std::set<std::string> non_float;
  std::string input;  // the image input
  std::set<std::string> outputs;

  bool is_activation(const std::string& t) const {
    return !t.empty() && !constants.count(t) && !non_float.count(t);
  }
};

const onnx::AttributeProto* find_attr(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

bool is_float_type(int type) {
  return type == onnx::TensorProto::FLOAT;
}

GraphIndex index_graph(const onnx::GraphProto& graph) {
  GraphIndex index;
  for (const auto& init : graph.initializer()) {
    index.initializers[init.name()] = &init;
    index.constants.insert(init.name());
    if (!is_float_type(init.data_type())) index.non_float.insert(init.name());
  }
  for (const auto& in : graph.input()) {
    if (index.initializers.count(in.name())) continue;
    if (index.input.empty()) index.input = in.name();
    if (!is_float_type(in.type().tensor_type().elem_type())) index.non_float.insert(in.name());
  }
  for (const auto& out : graph.output()) index.outputs.insert(out.name());
  static const std::set<std::string> kIntegerResults = {"Shape", "Size", "NonZero", "ArgMax",
                                                        "ArgMin"};
  static const std::set<std::string> kBoolResults = {
      "Equal", "Less", "Greater", "Not", "And", "Or", "LessOrEqual", "GreaterOrEqual"};
  for (int n = 0; n < graph.node_size(); ++n) {
    const auto& node = graph.node(n);
    for (const auto& in : node.input()) {
      if (!in.empty()) index.consumers[in].push_back(n);
    }
    for (const auto& out : node.output()) index.producer[out] = n;
    const std::string& op = node.op_type();
    // Types flow forward from the first data input; these are the ops that change them.
    bool float_out = true;
    if (op == "Constant") {
      for (const auto& out : node.output()) index.constants.insert(out);
      const auto* value = find_attr(node, "value");
      float_out = value && is_float_type(value->t().data_type());
    } else if (kIntegerResults.count(op) || kBoolResults.count(op)) {
      float_out = false;
    } else if (op == "Cast") {
      const auto* to = find_attr(node, "to");
      float_out = to && is_float_type(static_cast<int>(to->i()));
    } else {
      const int data = op == "Where" ? 1 : 0;
      float_out = node.input_size() > data && !index.non_float.count(node.input(data));
    }
    for (int k = 0; k < node.output_size(); ++k) {
      const bool topk_indices = op == "TopK" && k == 1;
      if (!float_out || topk_indices) index.non_float.insert(node.output(k));
    }
  }
  return index;
}

const onnx::NodeProto* producer_of(const onnx::GraphProto& graph, const GraphIndex& index,
                                   const std::string& tensor) {
  auto it = index.producer.find(tensor);
  return it == index.producer.end() ? nullptr : &graph.node(it->second);
}

bool has_float_weights(const onnx::NodeProto& node, const GraphIndex& index) {
  if (node.op_type() != "Conv" || node.input_size() < 2) return false;
  auto it = index.initializers.find(node.input(1));
  return it != index.initializers.end() && is_float_type(it->second->data_type()) &&
         it->second->dims_size() >= 3;
}

// The DFL: a Conv reading (through reshapes and transposes) a Softmax.
bool is_dfl_conv(const onnx::GraphProto& graph, const GraphIndex& index,
                 const onnx::NodeProto& node) {
  if (node.op_type() != "Conv") return false;
  const onnx::NodeProto* p = producer_of(graph, index, node.input(0));
  while (p &&
         (p->op_type() == "Reshape" || p->op_type() == "Transpose" || p->op_type() == "Identity")) {
    p = producer_of(graph, index, p->input(0));
  }
  return p && p->op_type() == "Softmax";
}

bool is_silu_mul(const onnx::GraphProto& graph, const GraphIndex& index,
                 const onnx::NodeProto& node) {
  if (node.op_type() != "Mul" || node.input_size() != 2) return false;
  for (int k = 0; k < 2; ++k) {
    const onnx::NodeProto* s = producer_of(graph, index, node.input(k));
    if (s && s->op_type() == "Sigmoid" && s->input(0) == node.input(1 - k)) return true;
  }
  return false;
}

// The float activation inputs and outputs of a node the int8 engine can run, or nothing when the
// node stays float whatever the keep list says.
struct QuantIo {
  std::vector<std::string> inputs, outputs;
  bool shares_scale = false;  // Concat, MaxPool, Resize, Split: one scale for all of them
};

std::optional<QuantIo> quant_io(const onnx::GraphProto& graph, const GraphIndex& index,
                                const onnx::NodeProto& node) {
  const std::string& op = node.op_type();
  QuantIo io;
  auto all_inputs_activations = [&] {
    for (const auto& in : node.input()) {
      if (!index.is_activation(in)) return false;
    }
    return node.input_size() > 0;
  };
  if ((op == "Conv" && has_float_weights(node, index) && !is_dfl_conv(graph, index, node)) ||
      op == "Sigmoid" || op == "MaxPool" || op == "Resize" || op == "Split") {
    if (!index.is_activation(node.input(0))) return std::nullopt;
    io.inputs = {node.input(0)};
  } else if ((op == "Mul" && is_silu_mul(graph, index, node)) ||
             ((op == "Add" || op == "Concat") && all_inputs_activations())) {
    if (!all_inputs_activations()) return std::nullopt;
    io.inputs.assign(node.input().begin(), node.input().end());
  } else {
    return std::nullopt;
  }
  io.shares_scale = op == "Concat" || op == "MaxPool" || op == "Resize" || op == "Split";
  const int outputs = op == "MaxPool" ? 1 : node.output_size();
  for (int k = 0; k < outputs; ++k) {
    if (!index.is_activation(node.output(k))) return std::nullopt;
    io.outputs.push_back(node.output(k));
  }
  return io;
}

std::vector<float> read_floats(const onnx::TensorProto& t) {
  std::int64_t n = 1;
  for (auto d : t.dims()) n *= d;
  std::vector<float> values(static_cast<std::size_t>(n));
  if (t.has_raw_data()) {
    if (t.raw_data().size() != values.size() * sizeof(float)) {
      throw QuantizeError("initializer " + t.name() + ": raw data size does not match its dims");
    }
    std::memcpy(values.data(), t.raw_data().data(), t.raw_data().size());
  } else if (t.float_data_size() == n) {
    std::copy(t.float_data().begin(), t.float_data().end(), values.begin());
  } else {
    throw QuantizeError("initializer " + t.name() +
                        ": no inline float data (external data is not supported); re-export the "
                        "model with its weights inside the .onnx file");
  }
  return values;
}

template <typename T>
onnx::TensorProto make_tensor(const std::string& name, int type, std::vector<std::int64_t> dims,
                              const std::vector<T>& values) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(type);
  for (auto d : dims) t.add_dims(d);
  t.set_raw_data(
      std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T)));
  return t;
}

// Q/DQ nodes are left unnamed: their output names say what they are, and names repeated on
// ~300 pairs would cost 3% of the file.
onnx::NodeProto make_node(const std::string& op, std::vector<std::string> inputs,
                          std::string output, std::optional<std::int64_t> axis = std::nullopt) {
  onnx::NodeProto n;
  n.set_op_type(op);
  for (auto& i : inputs) n.add_input(i);
  n.add_output(std::move(output));
  if (axis) {
    auto* a = n.add_attribute();
    a->set_name("axis");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(*axis);
  }
  return n;
}

int default_opset(const onnx::ModelProto& model) {
  for (const auto& op : model.opset_import()) {
    if (op.domain().empty() || op.domain() == "ai.onnx") return static_cast<int>(op.version());
  }
  return 0;
}

// Union-find over tensor names, for the tensors that must share one scale.
class ScaleGroups {
 public:
  const std::string& find(const std::string& t) {
    auto it = parent_.find(t);
    if (it == parent_.end()) it = parent_.emplace(t, t).first;
    if (it->second == t) return it->first;
    const std::string root = find(it->second);
    parent_[t] = root;
    return parent_.find(root)->first;
  }
  void unite(const std::string& a, const std::string& b) {
    const std::string ra = find(a);
    const std::string rb = find(b);
    if (ra != rb) parent_[ra] = rb;
  }

 private:
  std::map<std::string, std::string> parent_;
};

// Removes a file on destruction unless released.
class TempFile {
 public:
  explicit TempFile(std::filesystem::path path) : path_(std::move(path)) {}
  ~TempFile() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove(path_, ignored);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::filesystem::path& path() const { return path_; }
  void release() { path_.clear(); }

 private:
  std::filesystem::path path_;
};

std::filesystem::path unique_sibling(const std::filesystem::path& out, const std::string& tag) {
  static std::atomic<int> counter{0};
  const auto folder = out.has_parent_path() ? out.parent_path() : std::filesystem::path(".");
  return folder / ("." + out.filename().string() + "." + tag + "." + std::to_string(::getpid()) +
                   "." + std::to_string(counter++));
}

void save_model(const onnx::ModelProto& model, const std::filesystem::path& path) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file || !model.SerializeToOstream(&file) || !file.flush()) {
    throw QuantizeError("cannot write " + path.string() +
                        " (disk full or folder not writable); free space or choose another --out");
  }
}

void add_float_output(onnx::GraphProto& graph, const std::string& name) {
  auto* v = graph.add_output();
  v->set_name(name);
  v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
}

// Loads `model` with the tensors in `observe` added as graph outputs (a temporary copy), so their
// values can be read after each run without touching the engine. The engine does not fuse a
// value that is a graph output, so every observed tensor is really produced.
class ObservingEngine {
 public:
  ObservingEngine(const onnx::ModelProto& model, const std::vector<std::string>& observe,
                  const std::filesystem::path& beside, const EngineOptions& options) {
    onnx::ModelProto copy = model;
    std::set<std::string> existing;
    for (const auto& o : copy.graph().output()) existing.insert(o.name());
    for (const auto& t : observe) {
      if (existing.insert(t).second) add_float_output(*copy.mutable_graph(), t);
    }
    TempFile file(std::filesystem::temp_directory_path() /
                  unique_sibling(beside, "observe").filename());
    save_model(copy, file.path());
    engine_ = Engine::load(file.path(), options);
    for (std::size_t i = 0; i < engine_->output_count(); ++i) {
      outputs_[engine_->output_name(i)] = i;
    }
  }
  Engine& engine() { return *engine_; }
  const Tensor& value(const std::string& name) const { return engine_->output(outputs_.at(name)); }

 private:
  std::unique_ptr<Engine> engine_;
  std::map<std::string, std::size_t> outputs_;
};

double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

// A real conv and the SiLU reading its output (when nothing else reads it): kept FP32 together,
// so no convert sits between them.
struct ConvUnit {
  std::string conv;
  std::vector<std::string> nodes;
  double macs = 0;
};

// Every real conv of the graph (not the DFL's), with its MACs from the observed output shapes.
std::vector<ConvUnit> conv_units(const onnx::GraphProto& graph,
                                 const std::map<std::string, Shape>& shapes) {
  const GraphIndex index = index_graph(graph);
  std::vector<ConvUnit> units;
  for (const auto& node : graph.node()) {
    if (node.op_type() != "Conv" || !has_float_weights(node, index) ||
        is_dfl_conv(graph, index, node)) {
      continue;
    }
    ConvUnit unit{node.name(), {node.name()}, 0};
    const onnx::TensorProto& w = *index.initializers.at(node.input(1));
    if (auto it = shapes.find(node.output(0)); it != shapes.end()) {
      double per_output = 1;
      for (int d = 1; d < w.dims_size(); ++d) per_output *= static_cast<double>(w.dims(d));
      unit.macs = static_cast<double>(element_count(it->second)) * per_output;
    }
    const auto readers = index.consumers.find(node.output(0));
    if (readers != index.consumers.end() && readers->second.size() == 2 &&
        !index.outputs.count(node.output(0))) {
      std::vector<std::string> silu;
      for (int r : readers->second) {
        const auto& reader = graph.node(r);
        if (reader.op_type() == "Sigmoid" || is_silu_mul(graph, index, reader)) {
          silu.push_back(reader.name());
        }
      }
      if (silu.size() == 2) unit.nodes.insert(unit.nodes.end(), silu.begin(), silu.end());
    }
    units.push_back(std::move(unit));
  }
  return units;
}

// The same image in the other float layout (NCHW <-> NHWC), 3 channels.
void copy_input(std::span<const float> src, InputLayout from, std::span<float> dst, InputLayout to,
                int width, int height) {
  if (from == to) {
    std::copy(src.begin(), src.end(), dst.begin());
    return;
  }
  const std::size_t pixels = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  for (std::size_t p = 0; p < pixels; ++p) {
    for (std::size_t c = 0; c < 3; ++c) {
      if (from == InputLayout::kNchwFloat) {
        dst[p * 3 + c] = src[c * pixels + p];
      } else {
        dst[c * pixels + p] = src[p * 3 + c];
      }
    }
  }
}

// The largest x below SiLU's minimum (x = -1.278) with |SiLU(x)| <= step / 2: every input below
// it rounds to the same int8 output as it does (SiLU tends to 0 from below as x -> -inf).
float silu_floor(float step) {
  constexpr double kArgMin = -1.2785;
  auto silu = [](double x) { return x / (1.0 + std::exp(-x)); };
  if (std::abs(silu(kArgMin)) <= step / 2.0) return static_cast<float>(kArgMin);
  double inside = kArgMin;  // |silu| above step / 2
  double outside = -200.0;  // |silu| at most step / 2
  for (int i = 0; i < 60; ++i) {
    const double mid = (inside + outside) / 2;
    (std::abs(silu(mid)) > step / 2.0 ? inside : outside) = mid;
  }
  return static_cast<float>(outside);
}

double round_to(double v, double unit) {
  return std::round(v / unit) / (1.0 / unit);
}

}  // namespace

void name_unnamed_nodes(onnx::GraphProto& graph) {
  for (int n = 0; n < graph.node_size(); ++n) {
    auto* node = graph.mutable_node(n);
    if (node->name().empty()) node->set_name(node->op_type() + "_" + std::to_string(n));
  }
}

void check_quantizable(const OnnxModel& model) {
  const ModelInfo info = inspect_model(model);
  const std::string file = model.path().string();
  if (info.quantization != QuantizationKind::kNone) {
    throw QuantizeError(file + ": already quantized (" + to_string(info.quantization) +
                        "); give yolo-edge quantize the FP32 model it was made from");
  }
  if (!info.metadata.task.empty() && info.metadata.task != "detect") {
    throw QuantizeError(file + ": metadata task is '" + info.metadata.task +
                        "', not 'detect'; only detection models can be quantized");
  }
}

void check_writable(const std::filesystem::path& out, const std::string& option) {
  const auto folder = out.has_parent_path() ? out.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec)) {
    throw QuantizeError(option + " " + out.string() + ": folder " + folder.string() +
                        " does not exist; create it or choose another path");
  }
  if (std::filesystem::is_directory(out, ec)) {
    throw QuantizeError(option + " " + out.string() + ": is a folder; give a file name");
  }
  const auto probe = unique_sibling(out, "probe");
  {
    std::ofstream file(probe, std::ios::binary);
    if (!file) {
      throw QuantizeError(option + " " + out.string() + ": cannot create files in " +
                          folder.string() + " (permission denied?); choose a writable folder");
    }
  }
  std::filesystem::remove(probe, ec);
}

void write_model_atomically(const onnx::ModelProto& model, const std::filesystem::path& out) {
  TempFile temp(unique_sibling(out, "partial"));
  save_model(model, temp.path());
  std::error_code ec;
  std::filesystem::rename(temp.path(), out, ec);
  if (ec) {
    throw QuantizeError("cannot rename " + temp.path().string() + " to " + out.string() + ": " +
                        ec.message());
  }
  temp.release();
}

GraphRegions find_regions(const onnx::GraphProto& graph) {
  const GraphIndex index = index_graph(graph);
  const int n = graph.node_size();
  std::vector<bool> real_conv(static_cast<std::size_t>(n)), from_input(static_cast<std::size_t>(n));
  std::set<std::string> reached = {index.input};
  for (int i = 0; i < n; ++i) {
    const auto& node = graph.node(i);
    real_conv[static_cast<std::size_t>(i)] =
        has_float_weights(node, index) && !is_dfl_conv(graph, index, node);
    for (const auto& in : node.input()) {
      if (reached.count(in)) from_input[static_cast<std::size_t>(i)] = true;
    }
    if (from_input[static_cast<std::size_t>(i)]) {
      for (const auto& out : node.output()) reached.insert(out);
    }
  }
  // ONNX nodes are in topological order: one backward sweep finds what a real conv follows.
  std::vector<bool> conv_below(static_cast<std::size_t>(n));
  for (int i = n - 1; i >= 0; --i) {
    for (const auto& out : graph.node(i).output()) {
      auto it = index.consumers.find(out);
      if (it == index.consumers.end()) continue;
      for (int c : it->second) {
        if (real_conv[static_cast<std::size_t>(c)] || conv_below[static_cast<std::size_t>(c)]) {
          conv_below[static_cast<std::size_t>(i)] = true;
        }
      }
    }
  }
  GraphRegions regions;
  for (int i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (conv_below[k] || !from_input[k]) continue;
    if (real_conv[k]) {
      regions.final_convs.push_back(graph.node(i).name());
    } else {
      regions.tail.insert(graph.node(i).name());
    }
  }
  return regions;
}

std::map<std::string, std::string> refine_ranges(const onnx::GraphProto& graph,
                                                 std::map<std::string, ActivationRange>& ranges) {
  const GraphIndex index = index_graph(graph);
  std::map<std::string, std::string> why;
  for (const auto& node : graph.node()) {
    if (node.op_type() == "Sigmoid" && ranges.count(node.output(0))) {
      ranges[node.output(0)] = {0.0F, 1.0F};
      why[node.output(0)] = "sigmoid output: [0, 1]";
    }
  }
  for (const auto& node : graph.node()) {
    if (!is_silu_mul(graph, index, node)) continue;
    const onnx::NodeProto* s0 = producer_of(graph, index, node.input(0));
    const std::string& x = s0 && s0->op_type() == "Sigmoid" ? node.input(1) : node.input(0);
    const auto& readers = index.consumers.at(x);
    const bool only_silu = readers.size() == 2 && !index.outputs.count(x);
    auto rx = ranges.find(x);
    auto ry = ranges.find(node.output(0));
    if (!only_silu || rx == ranges.end() || ry == ranges.end()) continue;
    const float step = activation_quant(ry->second).scale;
    const float floor = silu_floor(step);
    if (rx->second.lo >= floor) continue;
    char text[160];
    std::snprintf(text, sizeof text,
                  "read only by a SiLU: inputs below %.2f (calibrated min %.2f) give the same "
                  "int8 output (step %.4f)",
                  floor, rx->second.lo, step);
    rx->second.lo = floor;
    why[x] = text;
  }
  return why;
}

std::size_t choose_stem_prefix(const std::vector<double>& prefix_noise) {
  const double factor = std::pow(10.0, -kDecisionMarginDb / 10.0);
  std::size_t chosen = 0;
  for (std::size_t k = 1; k < prefix_noise.size(); ++k) {
    if (prefix_noise[k] < prefix_noise[chosen] * factor) chosen = k;
  }
  return chosen;
}

std::vector<std::string> quantized_tensors(const onnx::GraphProto& graph,
                                           const std::set<std::string>& keep_fp32) {
  const GraphIndex index = index_graph(graph);
  std::vector<std::string> tensors;
  std::set<std::string> seen;
  auto add = [&](const std::string& t) {
    if (seen.insert(t).second) tensors.push_back(t);
  };
  for (const auto& node : graph.node()) {
    if (keep_fp32.count(node.name())) continue;
    const auto io = quant_io(graph, index, node);
    if (!io) continue;
    for (const auto& t : io->inputs) add(t);
    for (const auto& t : io->outputs) add(t);
  }
  return tensors;
}

void raise_to_opset13(onnx::ModelProto& model, const std::map<std::string, std::size_t>& ranks) {
  if (default_opset(model) >= 13) return;
  auto* graph = model.mutable_graph();
  for (auto& node : *graph->mutable_node()) {
    const std::string& op = node.op_type();
    const bool axes_to_input =
        op == "Squeeze" || op == "Unsqueeze" || op == "ReduceSum" || op == "Split";
    const char* key = op == "Split" ? "split" : "axes";
    if (axes_to_input) {
      auto* attrs = node.mutable_attribute();
      for (int a = 0; a < attrs->size(); ++a) {
        if (attrs->Get(a).name() != key) continue;
        const std::vector<std::int64_t> values(attrs->Get(a).ints().begin(),
                                               attrs->Get(a).ints().end());
        const std::string name = node.name() + "_" + key;
        *graph->add_initializer() = make_tensor(name, onnx::TensorProto::INT64,
                                                {static_cast<std::int64_t>(values.size())}, values);
        // At opset 12 these ops have their data input only; the new input comes second.
        node.add_input(name);
        attrs->DeleteSubrange(a, 1);
        break;
      }
    } else if (op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") {
      const auto* axis_attr = find_attr(node, "axis");
      const std::int64_t axis = axis_attr ? axis_attr->i() : 1;
      auto it = ranks.find(node.input(0));
      if (axis != -1 && (it == ranks.end() || (axis + static_cast<std::int64_t>(it->second)) %
                                                      static_cast<std::int64_t>(it->second) !=
                                                  static_cast<std::int64_t>(it->second) - 1)) {
        throw QuantizeError("node " + node.name() + " (" + op + ", opset " +
                            std::to_string(default_opset(model)) +
                            "): its axis is not the last one, so its meaning changes at opset 13, "
                            "which QDQ per-channel weights need; re-export at opset >= 13");
      }
    }
  }
  for (auto& op : *model.mutable_opset_import()) {
    if (op.domain().empty() || op.domain() == "ai.onnx") op.set_version(13);
  }
}

onnx::ModelProto build_qdq_model(const onnx::ModelProto& fp32,
                                 const std::map<std::string, ActivationRange>& ranges,
                                 const std::set<std::string>& keep_fp32) {
  if (default_opset(fp32) < 13) {
    throw QuantizeError("the model's opset is " + std::to_string(default_opset(fp32)) +
                        "; per-channel DequantizeLinear needs 13 (raise it first)");
  }
  onnx::ModelProto model = fp32;
  const onnx::GraphProto& source = fp32.graph();
  const GraphIndex index = index_graph(source);
  const std::vector<std::string> tensors = quantized_tensors(source, keep_fp32);
  const std::set<std::string> quantized(tensors.begin(), tensors.end());

  // Scales: the union of each shared group's ranges; the image input is fixed.
  ScaleGroups groups;
  for (const auto& node : source.node()) {
    if (keep_fp32.count(node.name())) continue;
    const auto io = quant_io(source, index, node);
    if (!io || !io->shares_scale) continue;
    for (const auto& t : io->inputs) groups.unite(t, io->outputs.front());
    for (const auto& t : io->outputs) groups.unite(t, io->outputs.front());
  }
  std::map<std::string, ActivationRange> group_range;
  std::set<std::string> fixed_groups;
  for (const auto& t : tensors) {
    const std::string root = groups.find(t);
    if (t == index.input) {
      fixed_groups.insert(root);
      continue;
    }
    auto it = ranges.find(t);
    if (it == ranges.end()) throw QuantizeError("no calibration range for tensor " + t);
    auto [g, inserted] = group_range.emplace(root, it->second);
    if (!inserted) {
      g->second.lo = std::min(g->second.lo, it->second.lo);
      g->second.hi = std::max(g->second.hi, it->second.hi);
    }
  }
  std::map<std::string, ActivationQuant> params;
  for (const auto& t : tensors) {
    const std::string root = groups.find(t);
    params[t] = fixed_groups.count(root) ? ActivationQuant{1.0F / 255.0F, -128}
                                         : activation_quant(group_range.at(root));
  }

  auto* graph = model.mutable_graph();
  std::vector<onnx::TensorProto> new_initializers;
  std::vector<onnx::NodeProto> nodes;
  // Short derived names (see the header): tensor k of `tensors` has scale s<k>, zero point z<k>,
  // int8 value q<k>, and either its producer writes f<k> and the DequantizeLinear writes the
  // original name (consumers unchanged), or, for the graph input and graph outputs, whose names
  // must stay, the DequantizeLinear writes d<k> and consumers are rewired to it.
  // The prefix makes them distinct from every name the model already uses.
  std::set<std::string> existing;
  for (const auto& n : source.node()) {
    for (const auto& o : n.output()) existing.insert(o);
  }
  for (const auto& t : source.initializer()) existing.insert(t.name());
  for (const auto& v : source.input()) existing.insert(v.name());
  std::string prefix = "qdq:";
  while (std::any_of(existing.begin(), existing.end(),
                     [&](const std::string& e) { return e.rfind(prefix, 0) == 0; })) {
    prefix.insert(0, "_");
  }
  std::map<std::string, std::string> number;
  for (std::size_t k = 0; k < tensors.size(); ++k) number[tensors[k]] = std::to_string(k);
  auto derived = [&](char kind, const std::string& t) {
    std::string name = prefix;
    name += kind;
    name += number.at(t);
    return name;
  };
  auto boundary = [&](const std::string& t) { return t == index.input || index.outputs.count(t); };
  std::map<std::string, std::string> rewired;
  for (const auto& t : tensors) {
    if (boundary(t)) rewired[t] = derived('d', t);
  }
  auto emit_qdq = [&](const std::string& t) {
    const ActivationQuant& q = params.at(t);
    const std::string scale = derived('s', t), zero = derived('z', t), value = derived('q', t);
    new_initializers.push_back(
        make_tensor(scale, onnx::TensorProto::FLOAT, {}, std::vector<float>{q.scale}));
    new_initializers.push_back(
        make_tensor(zero, onnx::TensorProto::INT8, {}, std::vector<std::int8_t>{q.zero_point}));
    const bool keeps_name = boundary(t);
    nodes.push_back(
        make_node("QuantizeLinear", {keeps_name ? t : derived('f', t), scale, zero}, value));
    nodes.push_back(
        make_node("DequantizeLinear", {value, scale, zero}, keeps_name ? derived('d', t) : t));
  };

  std::set<std::string> replaced_initializers;
  // Per weight initializer: its number (for the derived names) and channel scales.
  std::map<std::string, std::pair<std::string, std::vector<float>>> weights;
  int bias_count = 0;
  auto quantize_conv = [&](onnx::NodeProto& node, const std::string& original_input) {
    const std::string w = node.input(1);
    const onnx::TensorProto& wt = *index.initializers.at(w);
    const std::int64_t channels = wt.dims(0);
    if (!weights.count(w)) {
      const std::vector<float> values = read_floats(wt);
      const std::size_t per = values.size() / static_cast<std::size_t>(channels);
      std::vector<float> scales(static_cast<std::size_t>(channels));
      std::vector<std::int8_t> q(values.size());
      for (std::size_t c = 0; c < scales.size(); ++c) {
        float amax = 0;
        for (std::size_t i = 0; i < per; ++i) amax = std::max(amax, std::abs(values[c * per + i]));
        scales[c] = amax > 0 ? amax / 127.0F : 1.0F;
        for (std::size_t i = 0; i < per; ++i) {
          const float v = std::nearbyint(values[c * per + i] / scales[c]);
          q[c * per + i] = static_cast<std::int8_t>(std::clamp(v, -127.0F, 127.0F));
        }
      }
      const std::string id = std::to_string(weights.size());
      const std::vector<std::int64_t> dims(wt.dims().begin(), wt.dims().end());
      new_initializers.push_back(make_tensor(prefix + "w" + id, onnx::TensorProto::INT8, dims, q));
      new_initializers.push_back(
          make_tensor(prefix + "ws" + id, onnx::TensorProto::FLOAT, {channels}, scales));
      // No zero point input: it defaults to 0, which symmetric weights have.
      nodes.push_back(make_node("DequantizeLinear", {prefix + "w" + id, prefix + "ws" + id},
                                prefix + "wd" + id, 0));
      weights[w] = {id, scales};
      replaced_initializers.insert(w);
    }
    node.set_input(1, prefix + "wd" + weights.at(w).first);
    if (node.input_size() < 3 || node.input(2).empty() || !quantized.count(original_input)) return;
    const std::string b = node.input(2);
    auto bit = index.initializers.find(b);
    if (bit == index.initializers.end() || !is_float_type(bit->second->data_type())) return;
    const std::vector<float> bias = read_floats(*bit->second);
    const std::vector<float>& ws = weights.at(w).second;
    if (bias.size() != ws.size()) return;
    const float sx = params.at(original_input).scale;
    std::vector<float> scales(bias.size());
    std::vector<std::int32_t> q(bias.size());
    for (std::size_t c = 0; c < bias.size(); ++c) {
      scales[c] = sx * ws[c];
      const double v = std::nearbyint(static_cast<double>(bias[c]) / scales[c]);
      // A bias beyond int32 at this scale stays float rather than saturating.
      if (!(std::abs(v) < 2147483647.0)) return;
      q[c] = static_cast<std::int32_t>(v);
    }
    const std::string id = std::to_string(bias_count++);
    new_initializers.push_back(
        make_tensor(prefix + "b" + id, onnx::TensorProto::INT32, {channels}, q));
    new_initializers.push_back(
        make_tensor(prefix + "bs" + id, onnx::TensorProto::FLOAT, {channels}, scales));
    nodes.push_back(make_node("DequantizeLinear", {prefix + "b" + id, prefix + "bs" + id},
                              prefix + "bd" + id, 0));
    node.set_input(2, prefix + "bd" + id);
    replaced_initializers.insert(b);
  };

  if (quantized.count(index.input)) emit_qdq(index.input);
  for (const auto& original : source.node()) {
    onnx::NodeProto node = original;
    for (int k = 0; k < node.input_size(); ++k) {
      if (auto it = rewired.find(node.input(k)); it != rewired.end()) node.set_input(k, it->second);
    }
    for (int k = 0; k < node.output_size(); ++k) {
      const std::string& out = node.output(k);
      if (quantized.count(out) && !boundary(out)) {
        node.set_output(k, derived('f', out));
      }
    }
    if (!keep_fp32.count(node.name()) && quant_io(source, index, original) &&
        original.op_type() == "Conv") {
      quantize_conv(node, original.input(0));
    }
    nodes.push_back(std::move(node));
    for (const auto& out : original.output()) {
      if (quantized.count(out)) emit_qdq(out);
    }
  }
  graph->clear_node();
  for (auto& n : nodes) *graph->add_node() = std::move(n);

  // Float weights and biases that only quantized convs read go away.
  std::set<std::string> still_read;
  for (const auto& n : graph->node()) {
    for (const auto& in : n.input()) still_read.insert(in);
  }
  auto* inits = graph->mutable_initializer();
  for (int i = inits->size() - 1; i >= 0; --i) {
    const std::string& name = inits->Get(i).name();
    if (replaced_initializers.count(name) && !still_read.count(name)) inits->DeleteSubrange(i, 1);
  }
  for (auto& t : new_initializers) *graph->add_initializer() = std::move(t);
  // Initializers listed as graph inputs (IR < 4) must not name removed ones.
  auto* inputs = graph->mutable_input();
  for (int i = inputs->size() - 1; i >= 0; --i) {
    const std::string& name = inputs->Get(i).name();
    if (replaced_initializers.count(name) && !still_read.count(name)) inputs->DeleteSubrange(i, 1);
  }
  return model;
}

QuantizeResult quantize_model(const std::filesystem::path& fp32_model,
                              const std::filesystem::path& out, const QuantizeOptions& options,
                              const FrameProvider& frames) {
  const auto t_start = Clock::now();
  auto log = [&](const std::string& line) {
    if (options.log) options.log(line);
  };
  nlohmann::json report;
  nlohmann::json times;

  check_writable(out);
  OnnxModel source = OnnxModel::load(fp32_model);
  check_quantizable(source);
  onnx::ModelProto model = source.proto();
  name_unnamed_nodes(*model.mutable_graph());
  const onnx::GraphProto& graph = model.graph();
  std::set<std::string> node_names;
  for (const auto& n : graph.node()) node_names.insert(n.name());

  const GraphRegions regions = find_regions(graph);
  std::map<std::string, std::string> keep_reason;
  if (options.keep == KeepFp32Mode::kAuto) {
    for (const auto& n : regions.tail) {
      keep_reason[n] =
          "detection tail: after the last conv of its branch (DFL, box decode, "
          "score concat/sigmoid, end-to-end selection)";
    }
  } else if (options.keep == KeepFp32Mode::kList) {
    std::string unknown;
    for (const auto& n : options.keep_nodes) {
      if (!node_names.count(n)) unknown += (unknown.empty() ? "" : ", ") + n;
      keep_reason[n] = "named by --keep-fp32";
    }
    if (!unknown.empty()) {
      throw QuantizeError("--keep-fp32: no node named " + unknown + " in " + fp32_model.string() +
                          "; see the node names with yolo-edge inspect");
    }
  }

  // Observe every tensor any candidate rewrite may quantize, plus Softmax inputs (their rank
  // decides whether an opset-12 model can be raised to 13).
  std::vector<std::string> observe = quantized_tensors(graph, {});
  const GraphIndex index = index_graph(graph);
  observe.erase(std::remove(observe.begin(), observe.end(), index.input), observe.end());
  for (const auto& n : graph.node()) {
    if (n.op_type() == "Softmax" || n.op_type() == "LogSoftmax" || n.op_type() == "Hardmax") {
      if (std::find(observe.begin(), observe.end(), n.input(0)) == observe.end()) {
        observe.push_back(n.input(0));
      }
    }
  }

  EngineOptions engine_options;
  engine_options.imgsz = options.imgsz;
  auto t_phase = Clock::now();
  ObservingEngine calib(model, observe, out, engine_options);
  Engine& engine = calib.engine();
  const Shape output_shape = engine.output(0).shape();
  if (options.check_output) options.check_output(output_shape, engine.metadata());
  times["load_s"] = round_to(seconds_since(t_phase), 0.001);

  t_phase = Clock::now();
  const int width = engine.input_width();
  const int height = engine.input_height();
  const std::size_t input_size = static_cast<std::size_t>(3 * width * height);
  std::map<std::string, TensorStatistics> stats;
  std::map<std::string, std::size_t> ranks;
  std::map<std::string, Shape> shapes;
  std::vector<std::vector<float>> held_frames;
  // Reservoir sampling with a fixed seed: the held frames spread over the whole source, the same
  // ones on every run.
  std::mt19937 sampler(7);
  int count = 0;
  std::span<float> input(static_cast<float*>(engine.input_data()), input_size);
  while (count < options.frames && frames(engine.input_layout(), width, height, input)) {
    engine.run();
    for (const auto& t : observe) {
      const Tensor& v = calib.value(t);
      stats[t].add(v.values<float>());
      ranks[t] = v.shape().size();
      shapes[t] = v.shape();
    }
    if (static_cast<int>(held_frames.size()) < kSensitivityFrames) {
      held_frames.emplace_back(input.begin(), input.end());
    } else if (const auto slot = std::uniform_int_distribution<int>(0, count)(sampler);
               slot < kSensitivityFrames) {
      held_frames[static_cast<std::size_t>(slot)].assign(input.begin(), input.end());
    }
    ++count;
    if (count % 16 == 0 || count == options.frames) {
      log("calibrated " + std::to_string(count) + " frame(s)");
    }
  }
  if (count == 0) {
    throw QuantizeError(
        "the calibration source gave no frames; give --calib a folder of images, "
        "a video or a camera that delivers frames");
  }
  log("calibrated " + std::to_string(count) + " frame(s) in total");
  times["calibrate_s"] = round_to(seconds_since(t_phase), 0.001);

  std::map<std::string, ActivationRange> ranges;
  for (const auto& [t, s] : stats) ranges[t] = s.range(options.method, options.percentile);
  const std::map<std::string, std::string> refined = refine_ranges(graph, ranges);

  onnx::ModelProto raised = model;
  raise_to_opset13(raised, ranks);

  auto keep_set = [&] {
    std::set<std::string> keep;
    for (const auto& [n, why] : keep_reason) keep.insert(n);
    return keep;
  };

  // Sensitivity of the final convs: SQNR of each one's output (as its consumers see it) with
  // everything before it quantized, then with that conv alone kept FP32. A conv whose own
  // quantization costs >= kKeepGainDb stays FP32.
  t_phase = Clock::now();
  nlohmann::json sensitivity = nlohmann::json::array();
  nlohmann::json layer_sensitivity = nlohmann::json::array();
  nlohmann::json noise_summary = nlohmann::json::object();
  const std::vector<ConvUnit> units = conv_units(graph, shapes);
  double total_macs = 0;
  for (const auto& u : units) total_macs += u.macs;
  if (options.keep == KeepFp32Mode::kAuto && !regions.final_convs.empty()) {
    std::vector<std::string> conv_outputs;
    for (const auto& name : regions.final_convs) {
      for (const auto& n : graph.node()) {
        if (n.name() == name) conv_outputs.push_back(n.output(0));
      }
    }
    // Class logits (a final conv with one channel per class name) are compared as scores, after
    // the sigmoid the tail applies: noise on a logit of -20 changes nothing, on a logit near 0 it
    // changes the detection.
    const std::size_t classes = engine.metadata().names.size();
    std::vector<bool> scores(conv_outputs.size());
    for (std::size_t k = 0; k < conv_outputs.size(); ++k) {
      const Shape& shape = shapes.at(conv_outputs[k]);
      scores[k] = classes > 0 && shape.size() == 4 && static_cast<std::size_t>(shape[1]) == classes;
    }
    std::vector<std::vector<std::vector<float>>> reference(held_frames.size());
    for (std::size_t f = 0; f < held_frames.size(); ++f) {
      std::copy(held_frames[f].begin(), held_frames[f].end(), input.begin());
      engine.run();
      for (const auto& t : conv_outputs) {
        auto v = calib.value(t).values<float>();
        reference[f].emplace_back(v.begin(), v.end());
      }
    }
    auto measure = [&](const std::set<std::string>& keep) {
      const onnx::ModelProto q = build_qdq_model(raised, ranges, keep);
      // A quantized conv output's name is that of its DequantizeLinear: what consumers see.
      const std::vector<std::string>& seen = conv_outputs;
      ObservingEngine e(q, seen, out, engine_options);
      std::vector<double> signal(seen.size()), noise(seen.size());
      for (std::size_t f = 0; f < held_frames.size(); ++f) {
        copy_input(held_frames[f], engine.input_layout(),
                   std::span(static_cast<float*>(e.engine().input_data()), input_size),
                   e.engine().input_layout(), width, height);
        e.engine().run();
        for (std::size_t k = 0; k < seen.size(); ++k) {
          auto v = e.value(seen[k]).values<float>();
          const auto& r = reference[f][k];
          for (std::size_t i = 0; i < r.size(); ++i) {
            const double a = scores[k] ? sigmoid(r[i]) : r[i];
            const double b = scores[k] ? sigmoid(v[i]) : v[i];
            signal[k] += a * a;
            noise[k] += (a - b) * (a - b);
          }
        }
      }
      std::vector<double> db(seen.size());
      for (std::size_t k = 0; k < seen.size(); ++k) {
        db[k] = noise[k] <= 0 ? 200.0 : 10.0 * std::log10(std::max(signal[k], 1e-30) / noise[k]);
      }
      return db;
    };
    const std::set<std::string> base = keep_set();
    const std::vector<double> all_int8 = measure(base);
    for (std::size_t k = 0; k < regions.final_convs.size(); ++k) {
      std::set<std::string> keep = base;
      keep.insert(regions.final_convs[k]);
      const double kept_db = measure(keep)[k];
      const double gain = kept_db - all_int8[k];
      const TensorStatistics& seen_range = stats.at(conv_outputs[k]);
      const double positive_share =
          std::max(0.0F, seen_range.max()) /
          std::max(seen_range.max() - seen_range.min(), std::numeric_limits<float>::min());
      const bool unseen_positive = positive_share < kMinPositiveShare;
      const bool keep_it = gain >= kKeepGainDb || unseen_positive;
      sensitivity.push_back({{"node", regions.final_convs[k]},
                             {"sqnr_int8_db", round_to(all_int8[k], 0.01)},
                             {"sqnr_kept_fp32_db", round_to(kept_db, 0.01)},
                             {"gain_db", round_to(gain, 0.01)},
                             {"calibrated_min", seen_range.min()},
                             {"calibrated_max", seen_range.max()},
                             {"kept_fp32", keep_it}});
      char why[240];
      if (gain >= kKeepGainDb) {
        std::snprintf(why, sizeof why,
                      "final conv: keeping it FP32 raises its output SQNR from %.1f to %.1f dB "
                      "(>= %.0f dB gain)",
                      all_int8[k], kept_db, kKeepGainDb);
        keep_reason[regions.final_convs[k]] = why;
      } else if (unseen_positive) {
        std::snprintf(why, sizeof why,
                      "final conv: calibration saw its output in [%.2f, %.2f], above 0 over %.1f%% "
                      "of that range only; int8 would clip scores above those of the calibration "
                      "frames",
                      seen_range.min(), seen_range.max(), 100.0 * positive_share);
        keep_reason[regions.final_convs[k]] = why;
      }
      char line[200];
      std::snprintf(line, sizeof line, ": SQNR %.1f dB int8, %.1f dB kept FP32, range [%.2f, %.2f]",
                    all_int8[k], kept_db, seen_range.min(), seen_range.max());
      log("final conv " + regions.final_convs[k] + line + (keep_it ? " -> kept FP32" : " -> int8"));
    }

    // The stem: YOLO's first convs run at full resolution on few channels, and one per-tensor
    // int8 range must cover channels whose ranges differ tenfold; their rounding noise then runs
    // through the whole network. Measured here as the quantization noise at the final convs'
    // outputs (mean noise-to-signal ratio; class logits as scores) with the first k convs (and
    // their SiLUs) kept FP32, for every k within the MAC budget; choose_stem_prefix decides.
    auto noise_ratio = [&](const std::set<std::string>& keep) {
      double sum = 0;
      for (const double db : measure(keep)) sum += std::pow(10.0, -db / 10.0);
      return sum / static_cast<double>(regions.final_convs.size());
    };
    const std::set<std::string> before = keep_set();
    const double base_noise = noise_ratio(before);
    const std::set<std::string> finals(regions.final_convs.begin(), regions.final_convs.end());
    std::set<std::string> prefix = before;
    double share = 0;
    std::vector<double> prefix_noise = {base_noise};  // [k]: the first k convs kept
    std::vector<double> prefix_share = {0.0};
    for (std::size_t k = 0; k < units.size(); ++k) {
      const ConvUnit& unit = units[k];
      share += unit.macs / std::max(total_macs, 1.0);
      if (finals.count(unit.conv) || share > kMaxLayerMacShare) break;
      prefix.insert(unit.nodes.begin(), unit.nodes.end());
      const double n = noise_ratio(prefix);
      layer_sensitivity.push_back({{"first_convs", k + 1},
                                   {"through", unit.conv},
                                   {"mac_share", round_to(share, 0.0001)},
                                   {"noise_removed", round_to(1.0 - n / base_noise, 0.0001)}});
      prefix_noise.push_back(n);
      prefix_share.push_back(share);
    }
    const std::size_t best_k = choose_stem_prefix(prefix_noise);
    double best_noise = prefix_noise[best_k];
    const double best_share = prefix_share[best_k];
    const double removed = 1.0 - best_noise / std::max(base_noise, 1e-30);
    if (best_k > 0) {
      char why[320];
      std::snprintf(why, sizeof why,
                    "stem: keeping the first %zu conv(s) FP32 (%.1f%% of conv MACs) removes %.0f%% "
                    "of the int8 noise at the final convs (of the prefixes within %.0f%% of the "
                    "MACs, each longer one kept only where it lowers the noise by more than "
                    "%.1f dB)",
                    best_k, 100.0 * best_share, 100.0 * removed, 100.0 * kMaxLayerMacShare,
                    kDecisionMarginDb);
      for (std::size_t k = 0; k < best_k; ++k) {
        for (const auto& n : units[k].nodes) keep_reason[n] = why;
      }
      log(why);
    } else {
      best_noise = base_noise;
    }
    char line[160];
    std::snprintf(line, sizeof line,
                  "noise at the final convs: %.1f dB SQNR with every layer int8, %.1f dB with the "
                  "kept ones FP32",
                  -10.0 * std::log10(std::max(base_noise, 1e-30)),
                  -10.0 * std::log10(std::max(best_noise, 1e-30)));
    log(line);
    noise_summary = {
        {"final_conv_sqnr_db_all_int8", round_to(-10.0 * std::log10(base_noise), 0.01)},
        {"final_conv_sqnr_db_kept", round_to(-10.0 * std::log10(best_noise), 0.01)}};
  }
  times["sensitivity_s"] = round_to(seconds_since(t_phase), 0.001);

  t_phase = Clock::now();
  const std::set<std::string> keep = keep_set();
  double fp32_macs = 0;
  for (const auto& u : units) fp32_macs += keep.count(u.conv) ? u.macs : 0;
  if (!units.empty() && fp32_macs >= total_macs) {
    throw QuantizeError(fp32_model.string() + ": every conv of the model would stay FP32 (" +
                        std::to_string(keep.size()) +
                        " node(s) kept), so the file would not be INT8 at all; pass "
                        "--keep-fp32 none or a shorter list of nodes");
  }
  onnx::ModelProto quantized = build_qdq_model(raised, ranges, keep);
  nlohmann::json tag = {{"format", "qdq-int8-v1"},
                        {"method", to_string(options.method)},
                        {"frames", count},
                        {"keep_fp32", std::vector<std::string>(keep.begin(), keep.end())}};
  auto* prop = quantized.add_metadata_props();
  prop->set_key(kOwnQuantizationKey);
  prop->set_value(tag.dump());
  write_model_atomically(quantized, out);
  times["quantize_write_s"] = round_to(seconds_since(t_phase), 0.001);
  times["total_s"] = round_to(seconds_since(t_start), 0.001);

  QuantizeResult result;
  result.frames = count;
  result.fp32_bytes = source.file_size();
  result.int8_bytes = std::filesystem::file_size(out);
  result.kept_fp32.assign(keep.begin(), keep.end());
  char share[64];
  std::snprintf(share, sizeof share, "%.1f%%", 100.0 * fp32_macs / std::max(total_macs, 1.0));
  log("kept FP32: " + std::to_string(keep.size()) + " node(s) (" +
      std::to_string(regions.tail.size()) + " in the detection tail), " + share + " of conv MACs");

  std::map<std::string, const onnx::TensorProto*> written;
  for (const auto& init : quantized.graph().initializer()) written[init.name()] = &init;
  // Each activation's QuantizeLinear: reading it (graph input, outputs) or feeding the
  // DequantizeLinear that takes over its name.
  std::map<std::string, const onnx::NodeProto*> quantize_nodes, producers;
  for (const auto& n : quantized.graph().node()) {
    for (const auto& o : n.output()) producers[o] = &n;
    if (n.op_type() == "QuantizeLinear") quantize_nodes[n.input(0)] = &n;
  }
  nlohmann::json activations = nlohmann::json::array();
  for (const auto& t : quantized_tensors(raised.graph(), keep)) {
    const onnx::NodeProto* qn = quantize_nodes.count(t) ? quantize_nodes.at(t) : nullptr;
    if (!qn && producers.count(t) && producers.at(t)->op_type() == "DequantizeLinear") {
      qn = producers.at(producers.at(t)->input(0));
    }
    if (!qn) continue;
    nlohmann::json a = {{"tensor", t}};
    if (auto it = stats.find(t); it != stats.end()) {
      a["min"] = it->second.min();
      a["max"] = it->second.max();
      a["range"] = {ranges.at(t).lo, ranges.at(t).hi};
      if (auto r = refined.find(t); r != refined.end()) a["refined"] = r->second;
    }
    a["scale"] = read_floats(*written.at(qn->input(1))).at(0);
    a["zero_point"] =
        static_cast<int>(static_cast<std::int8_t>(written.at(qn->input(2))->raw_data().at(0)));
    activations.push_back(a);
  }
  nlohmann::json weight_report = nlohmann::json::array();
  for (const auto& n : quantized.graph().node()) {
    if (n.op_type() != "Conv" || n.input_size() < 2 || !producers.count(n.input(1))) continue;
    const onnx::NodeProto& dq = *producers.at(n.input(1));
    if (dq.op_type() != "DequantizeLinear" || dq.input_size() < 2) continue;
    const std::vector<float> s = read_floats(*written.at(dq.input(1)));
    weight_report.push_back({{"node", n.name()},
                             {"channels", s.size()},
                             {"scale_min", *std::min_element(s.begin(), s.end())},
                             {"scale_max", *std::max_element(s.begin(), s.end())}});
  }
  nlohmann::json kept = nlohmann::json::array();
  for (const auto& [n, why] : keep_reason) {
    std::string op;
    for (const auto& node : graph.node()) {
      if (node.name() == n) op = node.op_type();
    }
    kept.push_back({{"node", n}, {"op", op}, {"reason", why}});
  }
  report = {
      {"model", fp32_model.string()},
      {"out", out.string()},
      {"method", to_string(options.method)},
      {"frames", count},
      {"input_size", {height, width}},
      {"keep_mode", options.keep == KeepFp32Mode::kAuto   ? "auto"
                    : options.keep == KeepFp32Mode::kNone ? "none"
                                                          : "list"},
      {"kept_fp32", kept},
      {"sensitivity", sensitivity},
      {"layer_sensitivity", layer_sensitivity},
      {"noise", noise_summary},
      {"fp32_conv_mac_share", round_to(fp32_macs / std::max(total_macs, 1.0), 0.0001)},
      {"activations", activations},
      {"weights", weight_report},
      {"size",
       {{"fp32_bytes", result.fp32_bytes},
        {"int8_bytes", result.int8_bytes},
        {"ratio", round_to(static_cast<double>(result.int8_bytes) /
                               static_cast<double>(std::max<std::uintmax_t>(result.fp32_bytes, 1)),
                           0.0001)}}},
      {"time", times}};
  result.report = std::move(report);
  return result;
}

}  // namespace yolo::runtime
