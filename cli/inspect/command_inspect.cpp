// SPDX-License-Identifier: Apache-2.0
// yolo-edge inspect MODEL [--json] [--imgsz N]: what an ONNX file is, before running it; for a
// static INT8 (QDQ) model also what each layer runs as in our engine (int8 or an FP32 island).
// With --lint: only the checks of runtime/model/model_lint.h, for scripts and CI before deploying.
// With --nodes: every node by the name `quantize --keep-fp32` takes.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "cli/common/model_options.h"
#include "runtime/engine/engine.h"
#include "runtime/engine/precision.h"
#include "runtime/int8/int8_operators.h"
#include "runtime/int8/qdq_lowering.h"
#include "runtime/int8/qoperator.h"
#include "runtime/model/model_error.h"
#include "runtime/model/model_info.h"
#include "runtime/model/model_lint.h"
#include "runtime/model/onnx_model.h"
#include "runtime/quantize/graph_index.h"
#include "text/format.h"

namespace yolo::cli {

namespace {

using runtime::ModelInfo;
using runtime::QuantizationKind;
using runtime::ValueInfo;

constexpr int kLabelWidth = 16;
constexpr std::size_t kNamesShown = 5;

// 3151904 -> "3,151,904": parameter counts and byte sizes are read by eye.
std::string grouped(std::uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string text;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) text.push_back(',');
    text.push_back(digits[i]);
  }
  return text;
}

std::string human_bytes(std::uint64_t bytes) {
  char text[32];
  if (bytes >= 1024 * 1024) {
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  } else if (bytes >= 1024) {
    std::snprintf(text, sizeof text, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  } else {
    std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
  }
  return text;
}

std::string shape_text(const ValueInfo& value) {
  if (!value.has_shape) return "shape not declared";
  return runtime::shape_text(value.dims, ", ");
}

std::string opsets_text(const ModelInfo& info) {
  std::vector<std::string> parts;
  for (const auto& [domain, version] : info.opsets) {
    parts.push_back(domain.empty() ? std::to_string(version)
                                   : domain + " " + std::to_string(version));
  }
  return parts.empty() ? "none" : text::joined(parts, ", ");
}

std::string quantization_summary(const ModelInfo& info) {
  std::string text = runtime::to_string(info.quantization);
  switch (info.quantization) {
    case QuantizationKind::kNone:
      return text + " (float throughout)";
    case QuantizationKind::kDynamic:
      return text + " INT8 (" + std::to_string(info.dynamic_quantize_count) +
             " DynamicQuantizeLinear, " + std::to_string(info.integer_op_count) +
             " ConvInteger/MatMulInteger)";
    case QuantizationKind::kStaticQdq:
      return text + " INT8 (" + std::to_string(info.qdq_count) +
             " QuantizeLinear/DequantizeLinear)";
    case QuantizationKind::kQOperator:
      return text + " INT8 (" + std::to_string(info.qoperator_count + info.integer_op_count) +
             " quantized operators; not runnable here)";
  }
  return text;
}

// What the file runs at with no --precision, and how float16 in it is computed.
std::string runs_as(const ModelInfo& info) {
  std::string text = info.file_precision();
  if (info.quantization == QuantizationKind::kStaticQdq) {
    text += " (static INT8 file; --precision fp32 computes its Q/DQ in float)";
  } else if (info.quantization == QuantizationKind::kDynamic) {
    text += " (each ConvInteger chain folded into an FP32 conv)";
  }
  return text;
}

std::string float16_summary(const ModelInfo& info) {
  std::vector<std::string> parts;
  if (info.float16_initializers > 0) {
    parts.push_back(grouped(info.float16_initializers) + " float16 weight tensors");
  }
  if (info.float16_casts > 0) parts.push_back(grouped(info.float16_casts) + " Cast to float16");
  if (info.float16_input || info.float16_output) {
    parts.push_back(std::string(info.float16_input && info.float16_output ? "input and output"
                                : info.float16_input                      ? "input"
                                                                          : "output") +
                    " float16, taken and given as float32");
  }
  const bool whole = info.float16_initializers > 0 && info.float16_casts == 0;
  return std::string(whole ? "FP16 export" : "float16 in part (Cast to and from float16)") +
         ", computed in FP32 (" + text::joined(parts, "; ") + ")";
}

// Dynamic INT8 looks like the fast option and is usually the slow one; say so where users look.
std::string quantization_note(const ModelInfo& info, bool have_quantize_command) {
  if (info.quantization == QuantizationKind::kQOperator) return runtime::qoperator_advice() + ".";
  if (info.quantization != QuantizationKind::kDynamic) return {};
  std::string note = runtime::dynamic_int8_cost(info.dynamic_quantize_count) +
                     ". For a faster INT8 model, make a static one with `yolo-edge quantize`";
  note += have_quantize_command ? "." : " (static INT8; not in this build yet).";
  return note;
}

// Wraps a paragraph at `width` columns, each line indented by `indent` spaces.
std::string wrapped(const std::string& text, std::size_t indent, std::size_t width) {
  std::string out;
  std::string line;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && indent + line.size() + 1 + word.size() > width) {
      out += std::string(indent, ' ') + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  if (!line.empty()) out += std::string(indent, ' ') + line + "\n";
  return out;
}

// Names and problems quote text from the file, which may be corrupt: keep control characters
// away from the terminal.
std::string printable(std::string text) {
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return text;
}

void print_row(const std::string& label, const std::string& value) {
  std::printf("  %-*s %s\n", kLabelWidth, label.c_str(), printable(value).c_str());
}

void print_values(const char* title, const std::vector<ValueInfo>& values) {
  std::printf("\n%s\n", title);
  std::size_t name_width = 0;
  for (const auto& v : values) name_width = std::max(name_width, v.name.size());
  for (const auto& v : values) {
    std::printf("  %-*s  %-8s %s\n", static_cast<int>(name_width), printable(v.name).c_str(),
                v.element_type.c_str(), printable(shape_text(v)).c_str());
  }
}

void print_metadata(const runtime::ModelMetadata& meta) {
  std::printf("\nModel metadata\n");
  if (meta.raw.empty()) {
    std::printf("  none (not an Ultralytics export; class names will be numbers)\n");
    return;
  }
  if (!meta.task.empty()) print_row("task", meta.task);
  if (!meta.imgsz.empty()) {
    std::vector<std::string> sizes;
    for (int n : meta.imgsz) sizes.push_back(std::to_string(n));
    print_row("imgsz", text::joined(sizes, " x "));
  }
  if (meta.stride > 0) print_row("stride", std::to_string(meta.stride));
  if (meta.raw.contains("end2end")) {
    print_row("end2end", meta.end2end ? "yes (NMS inside the model)" : "no (needs NMS)");
  }
  if (!meta.names.empty()) {
    std::vector<std::string> first(
        meta.names.begin(),
        meta.names.begin() + static_cast<std::ptrdiff_t>(std::min(kNamesShown, meta.names.size())));
    std::string text = std::to_string(meta.names.size()) + ": " + text::joined(first, ", ");
    if (meta.names.size() > kNamesShown) text += ", ... (all in --json)";
    print_row("classes", text);
  }
  if (!meta.author.empty()) print_row("author", meta.author);
  if (!meta.version.empty()) print_row("version", meta.version);
  if (!meta.license.empty()) print_row("license", meta.license);
  if (!meta.description.empty()) print_row("description", meta.description);
}

void print_operators(const ModelInfo& info) {
  std::vector<std::pair<std::string, std::size_t>> ops(info.op_counts.begin(),
                                                       info.op_counts.end());
  std::stable_sort(ops.begin(), ops.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::size_t width = 0;
  for (const auto& [op, n] : ops) width = std::max(width, op.size());
  std::printf("\nOperators (%zu nodes, %zu kinds)\n", info.node_count, ops.size());
  for (const auto& [op, n] : ops) {
    std::printf("  %-*s %6zu\n", static_cast<int>(width), printable(op).c_str(), n);
  }
}

// The engine's own int8 plan of a static QDQ model, or why there is none.
struct Int8Plan {
  std::optional<runtime::QdqPlan> plan;
  std::string none;  // why there is no plan
};

Int8Plan int8_plan(const ModelInfo& info, const runtime::InputSize& imgsz) {
  switch (info.quantization) {
    case QuantizationKind::kNone:
      return {std::nullopt,
              "float model: nothing is quantized (yolo-edge quantize makes one whose " +
                  runtime::quantized_operator_list() + " run int8)"};
    case QuantizationKind::kDynamic:
      return {std::nullopt,
              "dynamic INT8: runs as FP32 (see the note), no layer runs int8 ahead of time"};
    case QuantizationKind::kQOperator:
      return {std::nullopt, "QOperator INT8 (not runnable here)"};
    case QuantizationKind::kStaticQdq:
      break;
  }
  try {
    return {runtime::plan_qdq_model(info.path, imgsz), {}};
  } catch (const runtime::ModelError& e) {
    return {std::nullopt, std::string("the engine cannot plan this model: ") + e.what()};
  }
}

int int8_layer_count(const runtime::QdqPlan& plan) {
  int n = 0;
  for (const auto& layer : plan.layers) n += layer.int8;
  return n;
}

std::string plan_summary(const runtime::QdqPlan& plan) {
  const auto& s = plan.stats;
  const int int8 = int8_layer_count(plan);
  const int fp32 = static_cast<int>(plan.layers.size()) - int8;
  return std::to_string(int8) + " layers int8 (" + std::to_string(s.conv) + " convs, " +
         std::to_string(s.conv_act) + " with a fused element-wise table; " +
         std::to_string(s.chains_as_written) +
         " tables compose their chain's inner roundings as written), " + std::to_string(fp32) +
         " layers FP32 in " + std::to_string(s.fp32_islands) +
         " island(s); converts at the island borders: " + std::to_string(s.dequantize) +
         " int8 -> float, " + std::to_string(s.quantize) + " float -> int8; input " +
         (s.uint8_input ? "quantized straight from the uint8 image" : "quantized from float");
}

// int8 layers are many and alike: one row per (op, note) with a count and the first node; the
// FP32 layers are the ones to act on, so each gets its own row with the reason.
void print_plan(const Int8Plan& result) {
  std::printf("\nINT8 plan (what --precision int8 runs)\n");
  if (!result.plan) {
    std::printf("%s", wrapped("none: " + result.none, 2, 100).c_str());
    return;
  }
  const auto& plan = *result.plan;
  struct Group {
    std::string op, note, first;
    int count = 0;
  };
  std::vector<Group> groups;
  std::map<std::pair<std::string, std::string>, std::size_t> group_of;
  std::vector<const runtime::QdqLayer*> fp32;
  for (const auto& layer : plan.layers) {
    if (!layer.int8) {
      fp32.push_back(&layer);
      continue;
    }
    const auto key = std::make_pair(layer.op, layer.note);
    const auto [it, added] = group_of.try_emplace(key, groups.size());
    if (added) groups.push_back({layer.op, layer.note, layer.node, 0});
    ++groups[it->second].count;
  }
  std::vector<std::string> group_names;
  for (const auto& g : groups) {
    group_names.push_back(g.count == 1 ? g.first
                                       : std::to_string(g.count) + " layers, first " + g.first);
  }
  std::size_t name_width = std::string("node").size(), op_width = std::string("op").size();
  for (std::size_t i = 0; i < groups.size(); ++i) {
    name_width = std::max(name_width, group_names[i].size());
    op_width = std::max(op_width, groups[i].op.size());
  }
  for (const auto* layer : fp32) {
    name_width = std::max(name_width, layer->node.size());
    op_width = std::max(op_width, layer->op.size());
  }
  auto row = [&](const std::string& node, const std::string& op, const std::string& precision,
                 const std::string& note) {
    std::printf("  %-*s  %-*s  %-9s  %s\n", static_cast<int>(name_width), printable(node).c_str(),
                static_cast<int>(op_width), printable(op).c_str(), precision.c_str(),
                printable(note).c_str());
  };
  row("node", "op", "precision", "note");
  for (std::size_t i = 0; i < groups.size(); ++i) {
    row(group_names[i], groups[i].op, runtime::precision_name(runtime::Precision::kInt8),
        groups[i].note);
  }
  for (const auto* layer : fp32) {
    row(layer->node, layer->op, runtime::precision_name(runtime::Precision::kFp32), layer->note);
  }
  std::printf("%s",
              wrapped("Summary: " + plan_summary(plan) + " (every layer: --json)", 2, 100).c_str());
}

nlohmann::json plan_json(const Int8Plan& result) {
  if (!result.plan) return {{"layers", nullptr}, {"none", result.none}};
  const auto& plan = *result.plan;
  const auto& s = plan.stats;
  auto layers = nlohmann::json::array();
  for (const auto& layer : plan.layers) {
    nlohmann::json entry = {
        {"node", layer.node},
        {"op", layer.op},
        {"precision", runtime::precision_name(layer.int8 ? runtime::Precision::kInt8
                                                         : runtime::Precision::kFp32)},
        {"note", layer.note}};
    if (!layer.fused_into.empty()) entry["fused_into"] = layer.fused_into;
    layers.push_back(std::move(entry));
  }
  const int int8 = int8_layer_count(plan);
  return {{"layers", layers},
          {"int8_layers", int8},
          {"fp32_layers", static_cast<int>(plan.layers.size()) - int8},
          {"fp32_islands", s.fp32_islands},
          {"int8_convs", s.conv},
          {"int8_convs_with_table", s.conv_act},
          {"chains_as_written", s.chains_as_written},
          {"converts_to_float", s.dequantize},
          {"converts_to_int8", s.quantize},
          {"uint8_image_input", s.uint8_input},
          {"summary", plan_summary(plan)}};
}

void print_text(const ModelInfo& info, const std::string& note, const Int8Plan& plan) {
  const auto& meta = info.metadata;
  std::printf("%s\n", info.path.string().c_str());
  print_row("file size", human_bytes(info.file_size) + " (" + grouped(info.file_size) + " bytes)");
  std::string producer = meta.producer.empty() ? "not recorded" : meta.producer;
  if (!meta.producer_version.empty()) producer += " " + meta.producer_version;
  print_row("producer", producer);
  print_row("IR version", std::to_string(info.ir_version));
  print_row("opset", opsets_text(info));
  std::string parameters = grouped(static_cast<std::uint64_t>(info.parameter_count)) + " in " +
                           grouped(info.initializer_count) + " initializers";
  if (const std::size_t constants = info.count("Constant"); constants > 0) {
    parameters += " and " + grouped(constants) + " Constant nodes";
  }
  print_row("parameters", parameters);
  print_row("quantization", quantization_summary(info));
  if (info.float16()) print_row("float16", float16_summary(info));
  print_row("runs at", runs_as(info));
  print_values("Inputs", info.inputs);
  print_values("Outputs", info.outputs);
  print_metadata(meta);
  print_operators(info);
  print_plan(plan);
  if (!note.empty()) std::printf("\nNote\n%s", wrapped(note, 2, 100).c_str());
  if (!info.problems.empty()) {
    std::printf("\nProblems (%zu)\n", info.problems.size());
    for (const auto& problem : info.problems) {
      std::printf("  - %s\n", printable(problem).c_str());
    }
  }
}

nlohmann::json values_json(const std::vector<ValueInfo>& values) {
  auto list = nlohmann::json::array();
  for (const auto& v : values) {
    nlohmann::json shape = nullptr;
    if (v.has_shape) {
      shape = nlohmann::json::array();
      // Numbers stay numbers; dynamic dims keep their names.
      for (const auto& d : v.dims) {
        const bool numeric = !d.empty() && std::all_of(d.begin(), d.end(),
                                                       [](char c) { return c >= '0' && c <= '9'; });
        if (numeric) {
          shape.push_back(std::stoll(d));
        } else {
          shape.push_back(d);
        }
      }
    }
    list.push_back({{"name", v.name}, {"type", v.element_type}, {"shape", shape}});
  }
  return list;
}

nlohmann::json to_json(const ModelInfo& info, const std::string& note, const Int8Plan& plan) {
  const auto& meta = info.metadata;
  nlohmann::json opsets = nlohmann::json::object();
  for (const auto& [domain, version] : info.opsets)
    opsets[domain.empty() ? "ai.onnx" : domain] = version;
  nlohmann::json metadata = {
      {"task", meta.task},       {"imgsz", meta.imgsz},
      {"stride", meta.stride},   {"end2end", meta.end2end},
      {"names", meta.names},     {"class_count", meta.names.size()},
      {"author", meta.author},   {"version", meta.version},
      {"license", meta.license}, {"description", meta.description},
      {"raw", meta.raw},
  };
  return {
      {"path", info.path.string()},
      {"file_size", info.file_size},
      {"producer", meta.producer},
      {"producer_version", meta.producer_version},
      {"ir_version", info.ir_version},
      {"opset", meta.opset},
      {"opsets", opsets},
      {"inputs", values_json(info.inputs)},
      {"outputs", values_json(info.outputs)},
      {"metadata", metadata},
      {"node_count", info.node_count},
      {"op_counts", info.op_counts},
      {"initializer_count", info.initializer_count},
      {"parameter_count", info.parameter_count},
      {"precision", info.file_precision()},
      {"float16", info.float16() ? nlohmann::json{{"summary", float16_summary(info)},
                                                  {"initializers", info.float16_initializers},
                                                  {"casts", info.float16_casts},
                                                  {"input", info.float16_input},
                                                  {"output", info.float16_output}}
                                 : nlohmann::json(nullptr)},
      {"quantization",
       {{"kind", runtime::to_string(info.quantization)},
        {"dynamic_quantize_linear", info.dynamic_quantize_count},
        {"integer_ops", info.integer_op_count},
        {"qdq_ops", info.qdq_count},
        {"qoperator_ops", info.qoperator_count},
        {"note", note},
        {"int8_plan", plan_json(plan)}}},
      {"problems", info.problems},
  };
}

// The checks --lint runs, by identifier, in the order they report (runtime/model/model_lint.h).
constexpr const char* kLintChecks[] = {
    "score-levels",         "bad-scale", "zero-point-range",   "channel-scale-ratio",
    "dynamic-quantization", "qoperator", "input-quantization", "unsupported"};

int run_lint(const std::string& model, const runtime::InputSize& imgsz, bool json) {
  const auto findings = runtime::lint_model_file(model, imgsz);
  if (json) {
    auto list = nlohmann::json::array();
    for (const auto& f : findings) list.push_back(runtime::to_json(f));
    const nlohmann::json report = {{"path", model}, {"checks", kLintChecks}, {"findings", list}};
    std::printf("%s\n",
                report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else if (findings.empty()) {
    std::string checks;
    for (const char* c : kLintChecks) checks += (checks.empty() ? "" : ", ") + std::string(c);
    std::printf("%s: no findings (checked %s)\n", printable(model).c_str(), checks.c_str());
  } else {
    std::printf("%s: %zu finding(s)\n", printable(model).c_str(), findings.size());
    for (const auto& f : findings) {
      const std::string node = f.node.empty() ? "" : "  node '" + printable(f.node) + "'";
      std::printf("\n  %s%s\n", f.check.c_str(), node.c_str());
      std::printf("%s", wrapped(printable(f.message), 4, 100).c_str());
      std::printf("%s", wrapped("Fix: " + printable(f.fix), 4, 100).c_str());
    }
  }
  return findings.empty() ? kOk : kFailed;
}

// Every node in graph order, named as quantize names them (an unnamed one "Op_<index>"), so that
// a --keep-fp32 list can be written from it.
int run_nodes(const std::string& model, bool json) {
  auto onnx = runtime::OnnxModel::load(model);
  auto& graph = *onnx.proto().mutable_graph();
  runtime::name_unnamed_nodes(graph);
  if (json) {
    auto list = nlohmann::json::array();
    for (const auto& n : graph.node()) {
      list.push_back({{"name", n.name()},
                      {"op", runtime::op_name(n)},
                      {"inputs", n.input()},
                      {"outputs", n.output()}});
    }
    const nlohmann::json report = {{"path", model}, {"nodes", list}};
    std::printf("%s\n",
                report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return kOk;
  }
  std::size_t width = 4;
  for (const auto& n : graph.node()) width = std::max(width, n.name().size());
  std::printf("%-*s  %-18s  inputs -> outputs\n", static_cast<int>(width), "name", "op");
  for (const auto& n : graph.node()) {
    std::string io;
    for (const auto& in : n.input()) io += (io.empty() ? "" : ", ") + printable(in);
    io += " ->";
    for (const auto& out : n.output()) io += " " + printable(out);
    std::printf("%-*s  %-18s  %s\n", static_cast<int>(width), printable(n.name()).c_str(),
                printable(runtime::op_name(n)).c_str(), io.c_str());
  }
  return kOk;
}

bool has_subcommand(CLI::App& app, const std::string& name) {
  return !app.get_subcommands([&](CLI::App* sub) { return sub->get_name() == name; }).empty();
}

}  // namespace

void register_inspect(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "inspect", "Describe an ONNX model: inputs, outputs, ops, quantization, per-layer INT8 plan");
  auto model = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto imgsz = std::make_shared<runtime::InputSize>();
  auto lint = std::make_shared<bool>(false);
  auto nodes = std::make_shared<bool>(false);
  sub->add_option("model", *model, "ONNX model file")->required();
  sub->add_flag("--lint", *lint,
                "Only check the file for what breaks INT8 models (scores rounded away, bad scales "
                "and zero points, dead channels, dynamic or QOperator INT8, an input that is not "
                "a uint8 image) and for what the engine would refuse at load (an op it does not "
                "run); with --json the findings as JSON");
  sub->add_flag("--nodes", *nodes,
                "Only list every node: its name (as quantize --keep-fp32 takes it; an unnamed "
                "node is OP_INDEX), operator, inputs and outputs")
      ->excludes(sub->get_option("--lint"));
  sub->add_flag("--json", *json, "Print one JSON object instead of the text report");
  add_imgsz_option(*sub, *imgsz,
                   "Input size for the INT8 plan of a model exported with dynamic axes and no "
                   "imgsz metadata");
  sub->footer(
      "Exit status: 0 the model is well formed (with --lint: no finding); 1 it was read but has "
      "problems (listed in the report; with --lint: findings); 2 it cannot be read as ONNX at all "
      "(with --lint: it cannot load).");
  add_command(app, sub, [&app, model, json, imgsz, lint, nodes]() -> int {
    if (*lint) return run_lint(*model, *imgsz, *json);
    if (*nodes) return run_nodes(*model, *json);
    const auto onnx = runtime::OnnxModel::load(*model);
    ModelInfo info = runtime::inspect_model(onnx);
    if (auto refusal = runtime::load_refusal(*model, *imgsz)) {
      info.problems.push_back("the engine refuses it at load: " + *refusal);
    }
    const std::string note = quantization_note(info, has_subcommand(app, "quantize"));
    const Int8Plan plan = int8_plan(info, *imgsz);
    if (*json) {
      std::printf("%s\n", to_json(info, note, plan)
                              .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
                              .c_str());
    } else {
      print_text(info, note, plan);
    }
    if (!info.problems.empty()) {
      std::fprintf(stderr,
                   "yolo-edge inspect: %s: %zu problem(s) in the model (listed in the report); "
                   "fix or re-export it before running it\n",
                   model->c_str(), info.problems.size());
      return kFailed;
    }
    return kOk;
  });
}

}  // namespace yolo::cli
