// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/quantizer.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <type_traits>

#include "runtime/int8/qdq_lowering.h"
#include "runtime/int8/qoperator.h"
#include "runtime/model/model_info.h"
#include "runtime/quantize/channel_spread.h"
#include "runtime/quantize/fp32_trade.h"
#include "runtime/quantize/graph_index.h"
#include "runtime/quantize/model_file.h"
#include "runtime/quantize/noise_meter.h"
#include "runtime/quantize/opset13.h"
#include "runtime/quantize/qdq_rewrite.h"
#include "runtime/quantize/regions.h"
#include "runtime/quantize/report.h"
#include "runtime/quantize/sensitivity.h"
#include "text/format.h"

namespace yolo::runtime {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return text::rounded(std::chrono::duration<double>(Clock::now() - start).count(), 3);
}

// Runs `phase` and records its wall time in seconds under `key` of `times`.
template <typename Phase>
auto timed(nlohmann::json& times, const char* key, Phase phase) {
  const auto start = Clock::now();
  if constexpr (std::is_void_v<decltype(phase())>) {
    phase();
    times[key] = seconds_since(start);
  } else {
    auto result = phase();
    times[key] = seconds_since(start);
    return result;
  }
}

const char* to_string(KeepFp32Mode mode) {
  switch (mode) {
    case KeepFp32Mode::kAuto:
      return "auto";
    case KeepFp32Mode::kNone:
      return "none";
    case KeepFp32Mode::kList:
      return "list";
  }
  return "list";
}

// The nodes kept FP32 before anything is measured: the detection tail (auto) or the nodes named by
// --keep-fp32, which must exist.
KeepReasons initial_keep(const onnx::GraphProto& graph, const GraphRegions& regions,
                         const QuantizeOptions& options, const std::filesystem::path& model) {
  KeepReasons keep;
  if (options.keep == KeepFp32Mode::kAuto) {
    for (const auto& n : regions.tail) {
      keep[n] =
          "detection tail: after the last conv of its branch (DFL, box decode, "
          "score concat/sigmoid, end-to-end selection)";
    }
  } else if (options.keep == KeepFp32Mode::kList) {
    std::set<std::string> node_names;
    for (const auto& n : graph.node()) node_names.insert(n.name());
    std::string unknown;
    for (const auto& n : options.keep_nodes) {
      if (!node_names.count(n)) unknown += (unknown.empty() ? "" : ", ") + n;
      keep[n] = "named by --keep-fp32";
    }
    if (!unknown.empty()) {
      throw QuantizeError("--keep-fp32: no node named " + unknown + " in " + model.string() +
                          "; list the node names with yolo-edge inspect --nodes " + model.string());
    }
  }
  return keep;
}

// The conv MACs of the model (`units`: every real conv), and of those kept FP32.
struct ConvMacs {
  double total = 0;
  double fp32 = 0;
  double fp32_share() const { return fp32 / std::max(total, 1.0); }
};
ConvMacs conv_macs(const std::vector<ConvUnit>& units, const std::set<std::string>& keep) {
  ConvMacs macs;
  for (const auto& u : units) {
    macs.total += u.macs;
    macs.fp32 += keep.count(u.conv) ? u.macs : 0;
  }
  return macs;
}

// Tags the file as ours: the JSON the engine reads to run its SiLU chains as one table.
void add_quantization_tag(onnx::ModelProto& quantized, const QuantizeOptions& options, int frames,
                          const std::set<std::string>& keep) {
  const nlohmann::json tag = {{"format", "qdq-int8-v1"},
                              {"method", to_string(options.method)},
                              {"rounding", to_string(options.rounding)},
                              {"bias_correction", options.bias_correction},
                              {"frames", frames},
                              {"keep_fp32", std::vector<std::string>(keep.begin(), keep.end())}};
  auto* prop = quantized.add_metadata_props();
  prop->set_key(kOwnQuantizationKey);
  prop->set_value(tag.dump());
}

nlohmann::json trades_report(const TradeReport& trades, const std::string& agreement_name) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& t : trades.trades) {
    rows.push_back(
        {{"node", t.conv},
         {"gain_db", text::rounded(t.gain_db, 2)},
         {"mac_share", text::rounded(t.mac_share, 4)},
         {"cost_ms", text::rounded(t.cost_ms, 2)},
         {"agreement", agreement_name},
         {"agreement_gain", t.agreement_gain ? nlohmann::json(text::rounded(*t.agreement_gain, 4))
                                             : nlohmann::json(nullptr)},
         {"kept_fp32", t.kept}});
  }
  return rows;
}

// The int8 frame as chosen, on the fastest held frame at 1 thread: its time, the detection
// tail's (FP32: DFL softmax and conv, box decode, score sigmoid, end-to-end selection) and the
// DFL softmax's, and the judge's figure.
nlohmann::json frame_report(const Measurement& m, const std::set<std::string>& tail,
                            const onnx::GraphProto& graph) {
  double tail_ms = 0;
  double softmax_ms = 0;
  for (const auto& node : graph.node()) {
    if (!tail.count(node.name())) continue;
    const auto it = m.node_ms.find(node.name());
    if (it == m.node_ms.end()) continue;
    tail_ms += it->second;
    if (node.op_type() == "Softmax") softmax_ms += it->second;
  }
  return {{"frame_ms", text::rounded(m.frame_ms, 2)},
          {"tail_ms", text::rounded(tail_ms, 2)},
          {"softmax_ms", text::rounded(softmax_ms, 2)},
          {"agreement",
           m.agreement ? nlohmann::json(text::rounded(*m.agreement, 4)) : nlohmann::json(nullptr)}};
}

std::string tail_text(const nlohmann::json& frame) {
  return text::format(
      "int8 frame on the held frames, 1 thread: %.2f ms, of which the FP32 detection tail %.2f ms "
      "(DFL softmax %.2f ms)",
      frame.at("frame_ms").get<double>(), frame.at("tail_ms").get<double>(),
      frame.at("softmax_ms").get<double>());
}

}  // namespace

std::string QuantizeSource::describe() const {
  if (dynamic.total() > 0) {
    return "dynamic INT8: starting from the FP32 graph it folds into (" +
           std::to_string(dynamic.conv) + " ConvInteger" +
           (dynamic.matmul ? " and " + std::to_string(dynamic.matmul) + " MatMulInteger"
                           : std::string()) +
           " chains made FP32 convolutions with their weights dequantized)";
  }
  if (float16.any()) {
    return "FP16 export: starting from its FP32 form (" + std::to_string(float16.initializers) +
           " float16 weight tensors made float32)";
  }
  return "FP32";
}

QuantizeSource quantize_source(const OnnxModel& model) {
  const ModelInfo info = inspect_model(model);
  const std::string file = model.path().string();
  const onnx::NodeProto* first = nullptr;
  for (const auto& node : model.proto().graph().node()) {
    const bool quantized =
        info.quantization == QuantizationKind::kQOperator
            ? is_qoperator(node.domain(), node.op_type())
            : node.op_type() == "QuantizeLinear" || node.op_type() == "DequantizeLinear";
    if (quantized) {
      first = &node;
      break;
    }
  }
  const std::string node =
      first
          ? "node '" +
                (first->name().empty() && first->output_size() ? first->output(0) : first->name()) +
                "', " + first->op_type()
          : std::string();
  if (info.quantization == QuantizationKind::kQOperator) {
    throw QuantizeError(file + ": QOperator INT8 (" + node +
                        "): its quantized operators keep no FP32 graph to start from, so "
                        "yolo-edge quantize cannot take it; give it the FP32 (or FP16) model "
                        "this file was made from, or its dynamic-INT8 export");
  }
  if (info.quantization == QuantizationKind::kStaticQdq) {
    throw QuantizeError(file + ": already quantized (static QDQ), first at " + node +
                        ": it runs int8 as it is, precision comes from the file; to quantize it "
                        "again, give yolo-edge quantize the FP32 model it was made from");
  }
  if (!info.metadata.task.empty() && info.metadata.task != "detect") {
    throw QuantizeError(file + ": metadata task is '" + info.metadata.task +
                        "', not 'detect'; only detection models can be quantized");
  }
  QuantizeSource source{model.proto(), {}, {}};
  source.float16 = convert_float16(source.model, file);
  source.dynamic = fold_dynamic_int8(source.model, DynamicInt8::kFold);
  return source;
}

QuantizeResult quantize_model(const std::filesystem::path& fp32_model,
                              const std::filesystem::path& out, const QuantizeOptions& options,
                              const FrameProvider& frames) {
  const auto t_start = Clock::now();
  auto log = [&](const std::string& line) {
    if (options.log) options.log(line);
  };
  nlohmann::json times;
  nlohmann::json report = {
      {"model", fp32_model.string()},           {"out", out.string()},
      {"method", to_string(options.method)},    {"keep_mode", to_string(options.keep)},
      {"sensitivity", nlohmann::json::array()}, {"fp32_trades", nlohmann::json::array()},
      {"noise", nlohmann::json::object()}};

  check_writable(out);
  const OnnxModel source = OnnxModel::load(fp32_model);
  QuantizeSource start = quantize_source(source);
  if (start.float16.any() || start.dynamic.total() > 0) {
    log(fp32_model.string() + ": " + start.describe());
  }
  report["source"] = start.describe();
  onnx::ModelProto model = std::move(start.model);
  name_unnamed_nodes(*model.mutable_graph());
  const onnx::GraphProto& graph = model.graph();
  const GraphRegions regions = find_regions(graph);
  KeepReasons keep = initial_keep(graph, regions, options, fp32_model);

  EngineOptions engine_options;
  // The QDQ models measured for sensitivity compute their Q/DQ pairs in float: the noise they
  // add, not the int8 kernels' speed.
  engine_options.precision = Precision::kFp32;
  engine_options.imgsz = options.imgsz;
  const std::vector<std::string> observed = observed_tensors(graph);
  const std::vector<ConvTap> taps = conv_taps(graph);
  ObservingEngine fp32 = timed(times, "load_s", [&] {
    ObservingEngine engine(model, observed, out, engine_options);
    if (options.check_output) {
      options.check_output(engine.engine().output(0).shape(), engine.engine().metadata());
    }
    return engine;
  });
  report["input_size"] = {fp32.engine().input_height(), fp32.engine().input_width()};

  const Calibration calib = timed(times, "calibrate_s", [&] {
    return calibrate(fp32, observed, taps, options.frames, frames, log);
  });
  std::map<std::string, ActivationRange> ranges;
  for (const auto& [t, s] : calib.stats) ranges[t] = s.range(options.method, options.percentile);
  const std::map<std::string, std::string> refined = refine_ranges(graph, ranges);
  onnx::ModelProto raised = model;
  raise_to_opset13(raised, calib.ranks);

  const WeightPhase weights = timed(times, "weights_s", [&] {
    return plan_weights(graph, taps, fp32, calib, options.rounding, options.bias_correction, log);
  });
  report["weight_rounding"] = weights.report;

  const std::vector<ConvUnit> units = conv_units(graph, calib.shapes);
  report["channel_spread"] = nlohmann::json::array();
  if (options.keep == KeepFp32Mode::kAuto) {
    report["channel_spread"] = spread_report(keep_spread_tensors(graph, units, calib, keep, log));
  }
  timed(times, "sensitivity_s", [&] {
    if (options.keep != KeepFp32Mode::kAuto || regions.final_convs.empty()) return;
    const std::unique_ptr<OutputJudge> judge = options.judge ? options.judge() : nullptr;
    const NoiseMeter meter(raised, ranges, weights.plan, regions.final_convs, fp32, calib, out,
                           engine_options, judge.get());
    report["sensitivity"] = judge_final_convs(regions.final_convs, units, meter, calib, keep, log);
    const TradeReport trades = search_fp32_trades(units, regions, meter, keep, log);
    report["fp32_trades"] = trades_report(trades, meter.agreement_name());
    report["noise"] = {
        {"final_conv_sqnr_db_before_trades", text::rounded(trades.before.noise_db(), 2)},
        {"final_conv_sqnr_db_chosen", text::rounded(trades.chosen.noise_db(), 2)}};
    report["held_frame_int8"] = frame_report(trades.chosen, regions.tail, graph);
    log(tail_text(report["held_frame_int8"]));
  });

  const std::set<std::string> kept = kept_nodes(keep);
  const ConvMacs macs = conv_macs(units, kept);
  if (!units.empty() && macs.fp32 >= macs.total) {
    throw QuantizeError(fp32_model.string() + ": every conv of the model would stay FP32 (" +
                        std::to_string(kept.size()) +
                        " node(s) kept), so the file would not be INT8 at all; pass "
                        "--keep-fp32 none or a shorter list of nodes");
  }
  const onnx::ModelProto quantized = timed(times, "quantize_write_s", [&] {
    onnx::ModelProto q = build_qdq_model(raised, ranges, kept, weights.plan);
    add_quantization_tag(q, options, calib.frames, kept);
    write_model_atomically(q, out);
    return q;
  });
  times["total_s"] = seconds_since(t_start);

  QuantizeResult result;
  result.frames = calib.frames;
  result.fp32_bytes = source.file_size();
  result.int8_bytes = std::filesystem::file_size(out);
  result.kept_fp32.assign(kept.begin(), kept.end());
  log("kept FP32: " + std::to_string(kept.size()) + " node(s) (" +
      std::to_string(regions.tail.size()) + " in the detection tail), " +
      text::format("%.1f%%", 100.0 * macs.fp32_share()) + " of conv MACs");
  for (const auto& unit : units) {
    if (auto why = keep.find(unit.conv); why != keep.end()) {
      log("kept FP32: " + unit.conv + ": " + why->second);
    }
  }

  report["frames"] = calib.frames;
  report["kept_fp32"] = kept_report(graph, keep);
  report["fp32_conv_mac_share"] = text::rounded(macs.fp32_share(), 4);
  report["activations"] =
      activations_report(quantized, raised.graph(), kept, calib.stats, ranges, refined);
  report["weights"] = weights_report(quantized);
  report["size"] = {
      {"fp32_bytes", result.fp32_bytes},
      {"int8_bytes", result.int8_bytes},
      {"ratio",
       text::rounded(static_cast<double>(result.int8_bytes) /
                         static_cast<double>(std::max<std::uintmax_t>(result.fp32_bytes, 1)),
                     4)}};
  report["time"] = times;
  result.report = std::move(report);
  return result;
}

}  // namespace yolo::runtime
