// SPDX-License-Identifier: Apache-2.0
// yolo-edge quantize as users meet it (cli/quantize/command_quantize.cpp): bad input ends with
// status 2, a message naming what was wrong, and nothing written; a real run writes a model that
// loads as static INT8 and the --report JSON.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/cli/run_cli.h"
#include "tests/cli/tiny_detector.h"
#include "tests/runtime/test_model_builder.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_folder.h"

namespace yolo::test {
namespace {

namespace fs = std::filesystem;
using ModelBuilder = yolo::test::ModelBuilder;

// Every entry under `dir`, recursively: what a failed run must leave unchanged.
std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    names.insert(fs::relative(entry.path(), dir).string());
  }
  return names;
}

// A float model whose output no detection decoder reads: [1,3,32,32] -> Conv -> [1,4,32,32].
fs::path segmentation_like_model(const fs::path& dir) {
  ModelBuilder b;
  b.input("images", {1, 3, 32, 32});
  b.random("w", {4, 3, 1, 1}, 1);
  b.node("Conv", {"images", "w"}, {"out"}, "conv");
  b.output("out");
  const fs::path saved = b.save("quantize_not_a_detector.onnx");
  const fs::path path = dir / "not_a_detector.onnx";
  fs::rename(saved, path);
  return path;
}

// A model that is already static INT8: Q/DQ around its input.
fs::path qdq_model(const fs::path& dir) {
  ModelBuilder b;
  b.input("images", {1, 3, 32, 32});
  b.floats("s", {}, {1.0F / 255.0F});
  b.node("QuantizeLinear", {"images", "s"}, {"q"});
  b.node("DequantizeLinear", {"q", "s"}, {"out"});
  b.output("out");
  const fs::path saved = b.save("quantize_already_qdq.onnx");
  const fs::path path = dir / "already.int8.onnx";
  fs::rename(saved, path);
  return path;
}

struct BadRun {
  std::string what;
  std::vector<std::string> args;
  std::vector<std::string> says;  // parts the message must contain
};

// The arguments of a run that writes `out` from `model` calibrated on `calib`, then `extra`.
std::vector<std::string> quantize_args(const fs::path& model, const fs::path& calib,
                                       const fs::path& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"--model",      model.string(), "--calib",
                                calib.string(), "--out",        out.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// Each test works in a folder of its own, `dir_`, which a refused run must leave as it was.
class CliQuantize : public ::testing::Test {
 protected:
  // `run` ends with status 2, its message says each of `run.says`, and `dir_` is unchanged.
  void expect_refused(const BadRun& run) const {
    const auto before = listing(dir_.path());
    std::vector<std::string> args{"quantize"};
    args.insert(args.end(), run.args.begin(), run.args.end());
    const auto r = run_cli(args);
    EXPECT_EQ(r.status, 2) << run.what << "\n" << r.out << r.err;
    EXPECT_EQ(r.signal, 0) << run.what;
    for (const auto& part : run.says) {
      EXPECT_TRUE(contains(r.err, part)) << run.what << ": '" << part << "' not in\n" << r.err;
    }
    EXPECT_EQ(listing(dir_.path()), before) << run.what << ": a failed run left files behind";
  }

  TempFolder dir_;
};

TEST_F(CliQuantize, CalibrationSourceWithNoFramesIsRefused) {
  const fs::path empty = dir_.path() / "empty";
  fs::create_directories(empty);
  const fs::path model = tiny_detector_model(dir_.path());
  const fs::path out = dir_.path() / "out.int8.onnx";
  expect_refused({"empty folder",
                  quantize_args(model, empty, out),
                  {empty.filename().string(), "holds no images"}});
  const fs::path unreadable = dir_.path() / "unreadable";
  fs::create_directories(unreadable);
  std::ofstream(unreadable / "frame.jpg") << "not a JPEG";
  expect_refused({"folder whose only image does not decode",
                  quantize_args(model, unreadable, out),
                  {"could not decode image frame.jpg"}});
  expect_refused({"missing source",
                  quantize_args(model, dir_.path() / "missing", out),
                  {"missing", "no such file or folder"}});
}

TEST_F(CliQuantize, AlreadyQuantizedModelIsRefused) {
  const fs::path frames = one_image_folder(dir_.path());
  const fs::path model = qdq_model(dir_.path());
  expect_refused({"static QDQ model",
                  quantize_args(model, frames, dir_.path() / "twice.int8.onnx"),
                  {model.string(), "already quantized (static QDQ)", "the FP32 model"}});
  // Refused before the calibration source is even opened.
  const auto r = run_cli({"quantize", "--model", model.string(), "--calib", frames.string(),
                          "--out", (dir_.path() / "twice.int8.onnx").string()});
  EXPECT_FALSE(contains(r.err, "calibrating on")) << r.err;
}

// QOperator INT8 keeps no FP32 graph to start from: one message naming the file, its first
// quantized node and what to give instead.
TEST_F(CliQuantize, QOperatorModelIsRefusedNamingItsNode) {
  const fs::path frames = one_image_folder(dir_.path());
  ModelBuilder b;
  b.input("images", {1, 3, 32, 32});
  b.floats("s", {}, {0.02F});
  b.raw<std::uint8_t>("z", onnx::TensorProto::UINT8, {}, {128});
  b.raw<std::int8_t>("w", onnx::TensorProto::INT8, {4, 3, 1, 1}, std::vector<std::int8_t>(12, 1));
  b.node("QuantizeLinear", {"images", "s", "z"}, {"q"}, "quant_in");
  b.node("QLinearConv", {"q", "s", "z", "w", "s", "z", "s", "z"}, {"qc"}, "conv_0");
  b.node("DequantizeLinear", {"qc", "s", "z"}, {"out"}, "dequant_out");
  b.output("out");
  const fs::path model = dir_.path() / "qoperator.onnx";
  fs::rename(b.save("quantize_qoperator.onnx"), model);
  expect_refused({"QOperator model",
                  quantize_args(model, frames, dir_.path() / "out.int8.onnx"),
                  {model.string(), "QOperator INT8 (node 'conv_0', QLinearConv)",
                   "give it the FP32 (or FP16) model"}});
}

// A dynamic-INT8 file is quantized from the FP32 graph its ConvInteger chains fold into, and
// says so.
TEST_F(CliQuantize, DynamicInt8FileStartsFromItsFoldedGraph) {
  YOLO_REQUIRE_FIXTURES();
  const fs::path dynamic = fixture_model("yolov8n_kitti3_int8dyn");
  const fs::path out = dir_.path() / "kitti.int8.onnx";
  const auto r = run_cli({"quantize", "--model", dynamic.string(), "--calib",
                          (fixtures_dir() / "video" / "traffic_720p_30fps.mp4").string(),
                          "--frames", "2", "--keep-fp32", "none", "--out", out.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.err,
                       "dynamic INT8: starting from the FP32 graph it folds into (64 "
                       "ConvInteger chains"))
      << r.err;
  const auto inspect = run_cli({"inspect", "--json", out.string()});
  ASSERT_EQ(inspect.status, 0) << inspect.err;
  const auto info = nlohmann::json::parse(inspect.out);
  EXPECT_EQ(info.at("quantization").at("kind"), "static QDQ");
  EXPECT_EQ(info.at("precision"), "int8");
  EXPECT_EQ(info.at("op_counts").count("ConvInteger"), 0U);
  EXPECT_EQ(info.at("metadata").at("names"),
            (std::vector<std::string>{"Car", "Pedestrian", "Cyclist"}));
}

TEST_F(CliQuantize, NonDetectionModelIsRefused) {
  const fs::path frames = one_image_folder(dir_.path());
  const fs::path model = segmentation_like_model(dir_.path());
  expect_refused({"model without a detection output",
                  quantize_args(model, frames, dir_.path() / "out.int8.onnx"),
                  {model.string(), "not a detection model"}});
}

TEST_F(CliQuantize, UnwritableOutputIsRefusedBeforeCalibrating) {
  const fs::path frames = one_image_folder(dir_.path());
  const fs::path model = tiny_detector_model(dir_.path());
  const fs::path missing_folder = dir_.path() / "no_such_folder";
  expect_refused({"--out in a folder that does not exist",
                  quantize_args(model, frames, missing_folder / "out.int8.onnx"),
                  {"--out", missing_folder.string(), "does not exist"}});
  expect_refused({"--out is a folder",
                  quantize_args(model, frames, frames),
                  {"--out", frames.string(), "is a folder"}});
  expect_refused({"--report in a folder that does not exist",
                  quantize_args(model, frames, dir_.path() / "out.int8.onnx",
                                {"--report", (missing_folder / "report.json").string()}),
                  {"--report", missing_folder.string(), "does not exist"}});
}

TEST_F(CliQuantize, UnknownMethodsAreRefusedNamingTheChoices) {
  const fs::path frames = one_image_folder(dir_.path());
  const fs::path model = tiny_detector_model(dir_.path());
  const fs::path out = dir_.path() / "out.int8.onnx";
  auto with = [&](std::vector<std::string> extra) {
    return quantize_args(model, frames, out, std::move(extra));
  };
  expect_refused({"--rounding", with({"--rounding", "stochastic"}), {"--rounding", "adaptive"}});
  expect_refused(
      {"--bias-correction", with({"--bias-correction", "maybe"}), {"--bias-correction", "on"}});
  expect_refused({"--method", with({"--method", "kl"}), {"--method", "mse"}});
  expect_refused({"--from-first", with({"--from-first", "-3"}), {"--from-first"}});
}

// The end-to-end check on a real camera: calibrated on frames from the first half of the
// motorway clip only, the INT8 file agrees with FP32 on the second half, which it never saw. As
// cheap as it honestly can be: 48 frames spread over the first half (the quantizer's held frames
// and its measurements need a few dozen), judged on all 168 unseen frames.
TEST_F(CliQuantize, Yolo11nCalibratedOnTheFirstHalfOfATrafficClipAgreesOnTheSecond) {
  YOLO_REQUIRE_FIXTURES();
  const fs::path fp32 = fixture_model("yolo11n_320_fp32");
  const fs::path clip = fixtures_dir() / "video" / "traffic_720p_30fps.mp4";
  const fs::path out = dir_.path() / "yolo11n_320.int8.onnx";
  const auto q = run_cli({"quantize", "--model", fp32.string(), "--calib", clip.string(),
                          "--from-first", "167", "--frames", "48", "--out", out.string()});
  ASSERT_EQ(q.status, 0) << q.err;
  EXPECT_TRUE(contains(q.err, "48 frame(s) spread evenly over the first 167")) << q.err;
  const auto c = run_cli({"compare", "--a", fp32.string(), "--b", out.string(), "--precision-b",
                          "int8", "--video", clip.string(), "--skip", "167", "--json"});
  ASSERT_EQ(c.status, 0) << c.err;
  const auto j = nlohmann::json::parse(c.out);
  EXPECT_EQ(j.at("frames"), 168);
  // Cars, trucks and the trucks FP32 calls trains: at least 10 boxes each.
  EXPECT_GE(j.at("judged_classes").get<int>(), 3) << c.out;
  EXPECT_GE(j.at("map50_judged").get<double>(), 0.95) << c.out;
  EXPECT_GE(j.at("box_ap50").get<double>(), 0.95) << c.out;
}

// Issue 41: the same on a scene unlike the one the quantizer's rules were found on, the top-down
// crowd clip (341 frames, 20-50 small people a frame): calibrated on 24 frames spread over its
// first half (the quantizer's held frames need 24), judged on 60 frames of the second half, beside
// FP32's own floor (FP32 against itself under an invisible +-1 grey level change). The goals:
// INT8's mAP50 over the judged classes >= the floor's - 0.02, box AP50 >= 0.98.
TEST_F(CliQuantize, Yolo11nCalibratedOnTheFirstHalfOfACrowdClipHoldsOnTheSecond) {
  YOLO_REQUIRE_FIXTURES();
  const fs::path clip = fixtures_dir() / "video" / "crowd_480p_25fps.mp4";
  if (!fs::exists(clip)) {
    GTEST_SKIP() << clip << " not found: ../shared predates the crowd clip (update it)";
  }
  const fs::path fp32 = fixture_model("yolo11n_320_fp32");
  const fs::path out = dir_.path() / "yolo11n_320.crowd.int8.onnx";
  const auto q = run_cli({"quantize", "--model", fp32.string(), "--calib", clip.string(),
                          "--from-first", "170", "--frames", "24", "--out", out.string()});
  ASSERT_EQ(q.status, 0) << q.err;
  EXPECT_TRUE(contains(q.err, "24 frame(s) spread evenly over the first 170")) << q.err;
  const auto c =
      run_cli({"compare", "--a", fp32.string(), "--b", out.string(), "--precision-b", "int8",
               "--video", clip.string(), "--skip", "170", "--frames", "60", "--floor", "--json"});
  ASSERT_EQ(c.status, 0) << c.err;
  const auto j = nlohmann::json::parse(c.out);
  EXPECT_EQ(j.at("frames"), 60);
  // People, hundreds of them: the one class with at least 10 of FP32's boxes.
  ASSERT_GE(j.at("judged_classes").get<int>(), 1) << c.out;
  const auto& floor = j.at("floor");
  ASSERT_TRUE(floor.is_object()) << c.out;
  const double floor_map50 = floor.at("map50_judged").get<double>();
  EXPECT_GE(j.at("map50_judged").get<double>(), floor_map50 - 0.02) << c.out;
  EXPECT_GE(j.at("box_ap50").get<double>(), 0.98) << c.out;
}

// `auto` keeps the detection tail FP32; when that is every conv, the file would not be INT8.
TEST_F(CliQuantize, KeepingEveryConvFp32IsRefused) {
  const fs::path frames = one_image_folder(dir_.path());
  const fs::path model = tiny_detector_model(dir_.path());
  expect_refused({"auto keeps the only conv",
                  quantize_args(model, frames, dir_.path() / "out.int8.onnx"),
                  {"every conv of the model would stay FP32", "--keep-fp32 none"}});
}

// Without fixtures too: the tiny detector quantizes from one photo into a loadable QDQ file.
TEST_F(CliQuantize, TinyDetectorQuantizesWithoutFixtures) {
  const fs::path frames = one_image_folder(dir_.path());
  const fs::path model = tiny_detector_model(dir_.path());
  const fs::path out = dir_.path() / "tiny.int8.onnx";
  // Its one conv is the detection tail that `auto` keeps in FP32; `none` quantizes it.
  const auto r = run_cli({"quantize", "--model", model.string(), "--calib", frames.string(),
                          "--keep-fp32", "none", "--out", out.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto inspect = run_cli({"inspect", "--json", out.string()});
  ASSERT_EQ(inspect.status, 0) << inspect.err;
  EXPECT_EQ(nlohmann::json::parse(inspect.out).at("quantization").at("kind"), "static QDQ");
}

// A --keep-fp32 list is written from `inspect --nodes`: an unnamed node is listed by the name
// quantize gives it, and a name that is not in the model is refused, pointing to that listing.
TEST_F(CliQuantize, KeepListNamesAreTheOnesInspectNodesLists) {
  const fs::path frames = one_image_folder(dir_.path());
  ModelBuilder b;
  b.input("images", {1, 3, 32, 32});
  b.random("w1", {8, 3, 1, 1}, 1);
  b.random("w2", {84, 8, 1, 1}, 2);
  b.ints("shape", {3}, {1, 84, 32 * 32});
  b.node("Conv", {"images", "w1"}, {"features"}).clear_name();
  b.node("Conv", {"features", "w2"}, {"maps"}, "head");
  b.node("Reshape", {"maps", "shape"}, {"out"}, "flatten");
  b.output("out");
  const fs::path model = dir_.path() / "two_convs.onnx";
  fs::rename(b.save("quantize_two_convs_" + std::to_string(::getpid()) + ".onnx"), model);

  const auto listed = run_cli({"inspect", "--nodes", "--json", model.string()});
  ASSERT_EQ(listed.status, 0) << listed.err;
  const auto nodes = nlohmann::json::parse(listed.out).at("nodes");
  ASSERT_EQ(nodes.size(), 3U);
  EXPECT_EQ(nodes[0].at("name"), "Conv_0");
  EXPECT_EQ(nodes[0].at("op"), "Conv");
  EXPECT_EQ(nodes[0].at("outputs"), nlohmann::json::array({"features"}));
  EXPECT_EQ(nodes[1].at("name"), "head");
  const auto text = run_cli({"inspect", "--nodes", model.string()});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "Conv_0")) << text.out;
  EXPECT_TRUE(contains(text.out, "images, w1 -> features")) << text.out;

  const fs::path out = dir_.path() / "two_convs.int8.onnx", report = dir_.path() / "report.json";
  const auto kept =
      run_cli({"quantize", "--model", model.string(), "--calib", frames.string(), "--keep-fp32",
               "Conv_0", "--out", out.string(), "--report", report.string()});
  ASSERT_EQ(kept.status, 0) << kept.err;
  std::ifstream in(report);
  const auto j = nlohmann::json::parse(in);
  ASSERT_EQ(j.at("kept_fp32").size(), 1U);
  EXPECT_EQ(j.at("kept_fp32")[0].at("node"), "Conv_0");
  fs::remove(out);
  fs::remove(report);

  expect_refused({"a name the model does not have",
                  quantize_args(model, frames, out, {"--keep-fp32", "conv_0"}),
                  {"no node named conv_0", "inspect --nodes " + model.string()}});
}

TEST_F(CliQuantize, Yolo11nOnFourPhotosLoadsAsStaticInt8WithItsReport) {
  YOLO_REQUIRE_FIXTURES();
  const fs::path fp32 = fixture_model("yolo11n_320_fp32");
  const fs::path out = dir_.path() / "yolo11n_320.int8.onnx";
  const fs::path report = dir_.path() / "report.json";
  const auto r = run_cli({"quantize", "--model", fp32.string(), "--calib",
                          (fixtures_dir() / "images").string(), "--frames", "4", "--out",
                          out.string(), "--report", report.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "wrote " + out.string())) << r.err;
  // The model and the report, no temporary file beside them.
  EXPECT_EQ(listing(dir_.path()),
            (std::set<std::string>{out.filename().string(), report.filename().string()}));

  const auto inspect = run_cli({"inspect", "--json", out.string()});
  ASSERT_EQ(inspect.status, 0) << inspect.err;
  const auto info = nlohmann::json::parse(inspect.out);
  EXPECT_EQ(info.at("quantization").at("kind"), "static QDQ");
  EXPECT_GE(info.at("opset").get<int>(), 13);
  EXPECT_EQ(info.at("metadata").at("task"), "detect");
  const auto& plan = info.at("quantization").at("int8_plan");
  ASSERT_TRUE(plan.at("layers").is_array()) << plan;
  EXPECT_GT(plan.at("int8_convs").get<int>(), 70);

  std::ifstream file(report);
  const auto j = nlohmann::json::parse(file);
  EXPECT_EQ(j.at("model"), fp32.string());
  EXPECT_EQ(j.at("out"), out.string());
  EXPECT_EQ(j.at("method"), "mse");
  // Every conv's weights planned, with the bias correction on by default.
  EXPECT_GT(j.at("weight_rounding").size(), 70U);
  EXPECT_TRUE(j.at("weight_rounding")[0].contains("bias_shift_max"));
  EXPECT_EQ(j.at("frames"), 4);
  EXPECT_EQ(j.at("input_size"), (std::vector<int>{320, 320}));
  EXPECT_EQ(j.at("keep_mode"), "auto");
  ASSERT_FALSE(j.at("kept_fp32").empty());
  for (const auto& kept : j.at("kept_fp32")) {
    EXPECT_FALSE(kept.at("node").get<std::string>().empty()) << kept;
    EXPECT_FALSE(kept.at("op").get<std::string>().empty()) << kept;
    EXPECT_FALSE(kept.at("reason").get<std::string>().empty()) << kept;
  }
  EXPECT_FALSE(j.at("sensitivity").empty());
  EXPECT_GT(j.at("activations").size(), 100U);
  EXPECT_GT(j.at("weights").size(), 70U);
  const auto& size = j.at("size");
  EXPECT_EQ(size.at("fp32_bytes").get<std::uintmax_t>(), fs::file_size(fp32));
  EXPECT_EQ(size.at("int8_bytes").get<std::uintmax_t>(), fs::file_size(out));
  EXPECT_LE(size.at("ratio").get<double>(), 0.30);
  EXPECT_GT(j.at("time").at("total_s").get<double>(), 0.0);
}

}  // namespace
}  // namespace yolo::test
