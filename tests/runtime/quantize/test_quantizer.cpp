// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/quantizer.h"

#include <gtest/gtest.h>

#include "tests/runtime/quantize/quantizer_models.h"

namespace yolo::runtime {
namespace {

using namespace quantize_test;

// The message of the QuantizeError that quantizing `model` must throw; a test failure and "" when
// it quantizes.
std::string quantize_error(const fs::path& model, const fs::path& out,
                           const QuantizeOptions& options, const FrameProvider& frames) {
  try {
    quantize_model(model, out, options, frames);
  } catch (const QuantizeError& e) {
    return e.what();
  }
  ADD_FAILURE() << model << " quantized";
  return "";
}

// tiny_model() with one metadata_props entry.
ModelBuilder tiny_model_with(const std::string& key, const std::string& value) {
  ModelBuilder b = tiny_model();
  auto* prop = b.proto().add_metadata_props();
  prop->set_key(key);
  prop->set_value(value);
  return b;
}

TEST(QuantizeModel, WritesAQdqFileWithMetadataAndAReport) {
  ModelBuilder b = tiny_model_with("imgsz", "[8, 8]");
  const fs::path fp32_path = b.save("quant_tiny_meta.onnx");
  TempFolder folder("write");
  const fs::path out = folder.path() / "tiny.int8.onnx";
  std::vector<std::string> log;
  QuantizeOptions options;
  options.frames = 5;
  options.log = [&](const std::string& line) { log.push_back(line); };
  const QuantizeResult result = quantize_model(fp32_path, out, options, noise_frames(100));
  EXPECT_EQ(result.frames, 5);
  EXPECT_EQ(folder.files(), std::vector<std::string>{"tiny.int8.onnx"});  // no temp files left

  const OnnxModel saved = OnnxModel::load(out);
  const ModelInfo info = inspect_model(saved);
  EXPECT_EQ(info.quantization, QuantizationKind::kStaticQdq);
  EXPECT_GE(info.opsets.at(""), 13);
  EXPECT_EQ(info.metadata.raw.at("imgsz"), "[8, 8]");
  const auto tag = nlohmann::json::parse(info.metadata.raw.at("yolo_edge_quantization"));
  EXPECT_EQ(tag.at("frames"), 5);
  EXPECT_EQ(tag.at("method"), "mse");
  EXPECT_EQ(result.int8_bytes, fs::file_size(out));
  EXPECT_EQ(result.report.at("size").at("int8_bytes"), result.int8_bytes);
  EXPECT_EQ(result.report.at("frames"), 5);
  EXPECT_FALSE(result.report.at("activations").empty());
  EXPECT_GE(result.report.at("weights").size(), 2U);
  // auto: c3 is the last conv; its sensitivity was measured and reported.
  ASSERT_EQ(result.report.at("sensitivity").size(), 1U);
  EXPECT_EQ(result.report.at("sensitivity")[0].at("node"), "c3");
  // The sigmoid output's range is its exact one, and the report says why.
  bool sigmoid_reported = false;
  for (const auto& a : result.report.at("activations")) {
    if (a.at("tensor") != "s1") continue;
    sigmoid_reported = true;
    EXPECT_EQ(a.at("range")[0], 0.0F);
    EXPECT_EQ(a.at("range")[1], 1.0F);
    EXPECT_TRUE(a.contains("refined"));
  }
  EXPECT_TRUE(sigmoid_reported);
  const double mac_share = result.report.at("fp32_conv_mac_share");
  EXPECT_GE(mac_share, 0.0);
  EXPECT_LE(mac_share, 1.0);
  EXPECT_TRUE(result.report.at("noise").contains("final_conv_sqnr_db_before_trades"));
  EXPECT_TRUE(result.report.at("noise").contains("final_conv_sqnr_db_chosen"));
  // The int8 frame on the held frames: its time and the FP32 tail's.
  EXPECT_GE(result.report.at("held_frame_int8").at("frame_ms").get<double>(), 0.0);
  EXPECT_TRUE(result.report.at("held_frame_int8").contains("tail_ms"));
  // Every conv's weights were planned (bias correction is on by default) and the file says how.
  EXPECT_EQ(result.report.at("weight_rounding").size(), 3U);
  EXPECT_TRUE(result.report.at("weight_rounding")[0].contains("bias_shift_max"));
  EXPECT_EQ(tag.at("rounding"), "nearest");
  EXPECT_EQ(tag.at("bias_correction"), true);
  for (const char* phase : {"load_s", "calibrate_s", "weights_s", "sensitivity_s", "total_s"}) {
    EXPECT_TRUE(result.report.at("time").contains(phase)) << phase;
  }
  EXPECT_NE(std::find(log.begin(), log.end(), "calibrated 5 frame(s) in total"), log.end());
  fs::remove(fp32_path);
}

TEST(QuantizeModel, RaisesOpset12SplitToAnInput) {
  ModelBuilder b(12);
  b.input("x", {1, 3, 4, 4});
  b.random("w", {4, 3, 1, 1}, 1);
  b.node("Conv", {"x", "w"}, {"y"}, "conv");
  auto& split = b.node("Split", {"y"}, {"a", "b"}, "split");
  ModelBuilder::attr(split, "axis", std::int64_t{1});
  ModelBuilder::attr(split, "split", std::vector<std::int64_t>{1, 3});
  b.node("Concat", {"b", "a"}, {"out"}, "cat");
  ModelBuilder::attr(*b.proto().mutable_graph()->mutable_node(2), "axis", std::int64_t{1});
  b.output("out");
  const fs::path path = b.save("quant_split12.onnx");
  TempFolder folder("split");
  QuantizeOptions options;
  options.keep = KeepFp32Mode::kNone;
  quantize_model(path, folder.path() / "s.onnx", options, noise_frames(2));
  const onnx::ModelProto q = OnnxModel::load(folder.path() / "s.onnx").proto();
  const onnx::NodeProto* s = node_named(q, "split");
  ASSERT_EQ(s->input_size(), 2);
  EXPECT_EQ(s->input(1), "split_split");
  for (const auto& a : s->attribute()) EXPECT_NE(a.name(), "split");
  // Split input and outputs share one scale.
  EXPECT_EQ(scale_of(q, "a"), scale_of(q, "y"));
  EXPECT_EQ(scale_of(q, "b"), scale_of(q, "y"));
  fs::remove(path);
}

TEST(QuantizeModel, NoFramesIsAnErrorAndWritesNothing) {
  const fs::path path = tiny_model().save("quant_noframes.onnx");
  TempFolder folder("noframes");
  const std::string what = quantize_error(path, folder.path() / "x.onnx", {}, noise_frames(0));
  EXPECT_NE(what.find("no frames"), std::string::npos) << what;
  EXPECT_TRUE(folder.files().empty());
  fs::remove(path);
}

TEST(QuantizeModel, AlreadyQuantizedModelsAreRefused) {
  ModelBuilder b = tiny_model();
  const onnx::ModelProto q = build_qdq_model(b.proto(), tiny_ranges(), {});
  TempFolder folder("requant");
  const fs::path qpath = folder.path() / "q.onnx";
  write_model_atomically(q, qpath);
  int calls = 0;
  const std::string what =
      quantize_error(qpath, folder.path() / "again.onnx", {}, noise_frames(3, &calls));
  EXPECT_NE(what.find("already quantized (static QDQ)"), std::string::npos) << what;
  EXPECT_EQ(calls, 0);
}

TEST(QuantizeModel, NonDetectionModelsAreRefused) {
  ModelBuilder b = tiny_model_with("task", "segment");
  const fs::path path = b.save("quant_segment.onnx");
  TempFolder folder("segment");
  const std::string what = quantize_error(path, folder.path() / "x.onnx", {}, noise_frames(3));
  EXPECT_NE(what.find("'segment'"), std::string::npos) << what;
  // An output no decoder reads: the caller's check refuses it before any frame is used.
  const fs::path plain = tiny_model().save("quant_badoutput.onnx");
  QuantizeOptions options;
  options.check_output = [](const Shape& shape, const ModelMetadata&) {
    if (shape.size() != 3) throw QuantizeError("output rank " + std::to_string(shape.size()));
  };
  int calls = 0;
  EXPECT_THROW(quantize_model(plain, folder.path() / "x.onnx", options, noise_frames(3, &calls)),
               QuantizeError);
  EXPECT_EQ(calls, 0);
  EXPECT_TRUE(folder.files().empty());
  fs::remove(path);
  fs::remove(plain);
}

TEST(QuantizeModel, UnwritableOutputIsRefusedBeforeCalibrating) {
  const fs::path path = tiny_model().save("quant_unwritable.onnx");
  int calls = 0;
  const std::string what =
      quantize_error(path, "/nonexistent-folder/x.onnx", {}, noise_frames(3, &calls));
  EXPECT_NE(what.find("/nonexistent-folder"), std::string::npos) << what;
  EXPECT_EQ(calls, 0);
  if (::geteuid() != 0) {  // root writes anywhere
    TempFolder folder("readonly");
    fs::permissions(folder.path(), fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_THROW(check_writable(folder.path() / "x.onnx"), QuantizeError);
  }
  TempFolder folder("isdir");
  EXPECT_THROW(check_writable(folder.path()), QuantizeError);
  fs::remove(path);
}

TEST(QuantizeModel, UnknownKeepNodeIsAnError) {
  const fs::path path = tiny_model().save("quant_keep.onnx");
  TempFolder folder("keep");
  QuantizeOptions options;
  options.keep = KeepFp32Mode::kList;
  options.keep_nodes = {"c3", "nope"};
  const std::string what = quantize_error(path, folder.path() / "x.onnx", options, noise_frames(3));
  EXPECT_NE(what.find("nope"), std::string::npos) << what;
  options.keep_nodes = {"c3"};
  const QuantizeResult r = quantize_model(path, folder.path() / "x.onnx", options, noise_frames(3));
  EXPECT_EQ(r.kept_fp32, std::vector<std::string>{"c3"});
  fs::remove(path);
}

}  // namespace
}  // namespace yolo::runtime
