// SPDX-License-Identifier: Apache-2.0
// yolo-edge compare on the fixture models, photos and video, and on bad input
// (cli/compare/command_compare.cpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/cli/run_cli.h"
#include "tests/support/fixtures.h"

namespace yolo::test {
namespace {

namespace fs = std::filesystem;

std::string images() {
  return (fixtures_dir() / "images").string();
}

std::string video() {
  return (fixtures_dir() / "video" / "birds_720p_10fps.mp4").string();
}

// `yolo-edge compare` of fixture models `a` and `b` with `options` (the frames and the rest).
CliResult run_compare(const std::string& a, const std::string& b,
                      const std::vector<std::string>& options) {
  std::vector<std::string> args{"compare", "--a", fixture_model(a), "--b", fixture_model(b)};
  args.insert(args.end(), options.begin(), options.end());
  return run_cli(args);
}

// The same with --json, parsed; the test fails, and the result is null, when compare does.
nlohmann::json compare_json(const std::string& a, const std::string& b,
                            std::vector<std::string> options) {
  options.push_back("--json");
  const auto r = run_compare(a, b, options);
  EXPECT_EQ(r.status, 0) << r.err;
  return r.status == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

TEST(CliCompare, HelpExplainsTheLowPredictionThreshold) {
  const auto r = run_cli({"compare", "--help"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "--pred-conf")) << r.out;
  EXPECT_TRUE(contains(r.out, "0.001")) << r.out;
  EXPECT_TRUE(contains(r.out, "precision-recall curve")) << r.out;
  EXPECT_TRUE(contains(r.out, "--skip")) << r.out;
}

TEST(CliCompare, AModelAgainstItselfAgreesExactly) {
  YOLO_REQUIRE_FIXTURES();
  const auto j = compare_json("yolo11n_320_fp32", "yolo11n_320_fp32", {"--images", images()});
  EXPECT_EQ(j["frames"], 6);
  EXPECT_EQ(j["map50"], 1.0);
  EXPECT_EQ(j["map50_95"], 1.0);
  EXPECT_EQ(j["score_mad"], 0.0);
  EXPECT_GT(j["matched_pairs"].get<long>(), 0);
  EXPECT_EQ(j["b"]["conf"], 0.001);
  EXPECT_TRUE(contains(j["note"].get<std::string>(), "precision-recall curve"));
  for (const auto& c : j["classes"]) {
    if (c["a"].get<long>() == 0) continue;
    EXPECT_EQ(c["b"], c["a"]) << c.dump();
    EXPECT_EQ(c["matched"], c["a"]) << c.dump();
  }
}

TEST(CliCompare, DifferentModelsDisagreeMeasurably) {
  YOLO_REQUIRE_FIXTURES();
  const auto j = compare_json("yolov8n_640_fp32", "yolo11n_320_fp32", {"--images", images()});
  const double map50 = j["map50"].get<double>();
  const double map50_95 = j["map50_95"].get<double>();
  EXPECT_GT(map50, 0.0);
  EXPECT_LT(map50_95, 1.0);
  EXPECT_LE(map50_95, map50);
  EXPECT_GT(j["score_mad"].get<double>(), 0.0);
}

// The dynamic-INT8 file is judged as written, its activations rounded on every run: it agrees
// with its FP32 rebuild as dynamic quantization does (12 traffic lights past the skip: 0.85 here),
// not exactly as the folded form detect runs would.
TEST(CliCompare, DynamicInt8RunAsWrittenAgreesWithItsFp32RebuildOnVideoFramesPastTheSkip) {
  YOLO_REQUIRE_FIXTURES();
  const auto j = compare_json("yolo11n_320_fp32", "yolo11n_320_int8dyn",
                              {"--video", video(), "--skip", "300", "--frames", "20"});
  EXPECT_EQ(j["frames"], 20);
  EXPECT_EQ(j["b"]["precision"], "fp32 (dynamic INT8 run as written)");
  EXPECT_GE(j["map50"].get<double>(), 0.8) << j.dump();
  EXPECT_LT(j["map50"].get<double>(), 1.0) << "the activations' rounding changed nothing:\n"
                                           << j.dump();
  EXPECT_GT(j["score_mad"].get<double>(), 0.0) << j.dump();
}

// A dynamic-INT8 file is judged as it computes (its activations rounded on every run), and one
// dynamic-axes model compares with itself at another input size in frame pixels.
TEST(CliCompare, DynamicFilesRunAsWrittenAndSizesCompareInFramePixels) {
  YOLO_REQUIRE_FIXTURES();
  const std::string traffic = (fixtures_dir() / "video" / "traffic_720p_30fps.mp4").string();
  const auto r = run_compare("yolov8n_kitti3_int8dyn", "yolov8n_kitti3_int8dyn",
                             {"--video", traffic, "--frames", "2"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "fp32 (dynamic INT8 run as written)")) << r.out;
  // Two frames hold no class with --min-boxes of A's boxes: the class mean is the figure.
  EXPECT_TRUE(contains(r.out, "class mean  1.0000")) << r.out;

  const std::string dynaxes = fixture_model("yolov8n_carperson_dynaxes_int8dyn");
  const auto sizes = run_cli({"compare", "--a", dynaxes, "--b", dynaxes, "--imgsz", "640",
                              "--imgsz-b", "auto", "--video", traffic, "--frames", "2", "--json"});
  ASSERT_EQ(sizes.status, 0) << sizes.err;
  EXPECT_TRUE(contains(sizes.err, "--b: planned")) << sizes.err;
  const auto j = nlohmann::json::parse(sizes.out);
  EXPECT_EQ(j["frames"], 2);
  EXPECT_GT(j["matched_pairs"].get<long>(), 0) << sizes.out;
}

TEST(CliCompare, PhotosAndUnseenVideoFramesFormOneSetAndTheSkipIsTheVideos) {
  YOLO_REQUIRE_FIXTURES();
  const auto j = compare_json("yolo11n_320_fp32", "yolo11n_320_fp32",
                              {"--images", images(), "--video", video(), "--skip", "660"});
  // Six photos, then the video's 671 frames past the first 660.
  EXPECT_EQ(j["frames"], 6 + 11) << j.dump();
  const std::string source = j["source"];
  EXPECT_TRUE(contains(source, "image folder") && contains(source, " + video file")) << source;
  EXPECT_DOUBLE_EQ(j["map50"].get<double>(), 1.0);

  const auto capped = compare_json("yolo11n_320_fp32", "yolo11n_320_fp32",
                                   {"--images", images(), "--video", video(), "--frames", "8"});
  EXPECT_EQ(capped["frames"], 8);
}

TEST(CliCompare, TextOutputShowsMetricsLatencyAndTheClassTable) {
  YOLO_REQUIRE_FIXTURES();
  const auto r = run_compare("yolo11n_320_fp32", "yolo11n_320_int8dyn", {"--images", images()});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* part : {"frames      6 from image folder", "mAP50 ", "mAP50-95", "score MAD",
                           "latency", "precision-recall curve", "AP50-95", "horse"}) {
    EXPECT_TRUE(contains(r.out, part)) << part << " missing from:\n" << r.out;
  }
}

TEST(CliCompare, ClassesWithFewBoxesAreWarnedAboutAndLeftOutOfTheJudgedMean) {
  YOLO_REQUIRE_FIXTURES();
  // The photos hold a few boxes per class: with --min-boxes 3 some classes are judged and some
  // are not.
  const std::vector<std::string> options{"--images", images(), "--min-boxes", "3"};
  const auto text = run_compare("yolo11n_320_fp32", "yolo11n_320_int8dyn", options);
  ASSERT_EQ(text.status, 0) << text.err;
  for (const char* part : {"with >= 3 of A's boxes (--min-boxes)", "box AP50", "class mean",
                           "warning     too few of A's boxes to judge (fewer than 3)"}) {
    EXPECT_TRUE(contains(text.out, part)) << part << " missing from:\n" << text.out;
  }
  const auto j = compare_json("yolo11n_320_fp32", "yolo11n_320_int8dyn", options);
  EXPECT_EQ(j["min_boxes"], 3);
  long boxes = 0;
  int judged = 0;
  for (const auto& c : j["classes"]) {
    boxes += c["a"].get<long>();
    judged += c["a"].get<long>() >= 3 ? 1 : 0;
  }
  EXPECT_EQ(j["truth_boxes"], boxes);
  EXPECT_EQ(j["judged_classes"], judged);
  EXPECT_GT(judged, 0);
  EXPECT_FALSE(j["too_few_boxes"].get<std::string>().empty());
  EXPECT_GT(j["box_ap50"].get<double>(), 0.5);
  EXPECT_GT(j["map50_judged"].get<double>(), 0.5);

  const auto refused = run_compare("yolo11n_320_fp32", "yolo11n_320_int8dyn",
                                   {"--images", images(), "--min-boxes", "0"});
  EXPECT_EQ(refused.status, 2);
  EXPECT_TRUE(contains(refused.err, "--min-boxes")) << refused.err;
}

// --floor judges A against itself with every pixel moved by an invisible +-1 grey level: a model
// compared with itself agrees exactly, its floor does not (the scores move), and the classes the
// warning names are exactly the judged ones whose floor AP50 is under 0.95.
TEST(CliCompare, FloorJudgesAAgainstItselfUnderAnInvisibleChange) {
  YOLO_REQUIRE_FIXTURES();
  const std::string traffic = (fixtures_dir() / "video" / "traffic_720p_30fps.mp4").string();
  const std::vector<std::string> options{"--video", traffic, "--frames", "40", "--min-boxes", "5"};
  std::vector<std::string> with_floor = options;
  with_floor.push_back("--floor");
  const auto j = compare_json("yolo11n_320_fp32", "yolo11n_320_fp32", with_floor);
  ASSERT_TRUE(j.contains("floor")) << j.dump();
  EXPECT_DOUBLE_EQ(j["map50"].get<double>(), 1.0);
  const auto& floor = j["floor"];
  ASSERT_TRUE(floor.is_object()) << j.dump();
  EXPECT_TRUE(contains(floor["what"].get<std::string>(), "invisible")) << floor.dump();
  EXPECT_GT(floor["score_mad"].get<double>(), 0.0) << floor.dump();
  EXPECT_GT(floor["map50"].get<double>(), 0.5) << floor.dump();
  EXPECT_LE(floor["map50"].get<double>(), 1.0) << floor.dump();
  const std::string shaky = floor["shaky_classes"];
  for (const auto& c : j["classes"]) {
    ASSERT_TRUE(c.contains("floor_ap50")) << c.dump();
    if (c["a"].get<long>() < 5) continue;
    const bool under = c["floor_ap50"].get<double>() < 0.95;
    EXPECT_EQ(contains(shaky, c["label"].get<std::string>() + " "), under) << c.dump() << shaky;
  }

  const auto text = run_compare("yolo11n_320_fp32", "yolo11n_320_fp32", with_floor);
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "floor       mAP50 ")) << text.out;
  EXPECT_TRUE(contains(text.out, "AP50-95   floor")) << text.out;

  const auto without = compare_json("yolo11n_320_fp32", "yolo11n_320_fp32", options);
  EXPECT_TRUE(without["floor"].is_null()) << without.dump();
  EXPECT_FALSE(without["classes"][0].contains("floor_ap50")) << without.dump();
}

TEST(CliCompare, NoTruthMeansNoMapRatherThanAMadeUpNumber) {
  YOLO_REQUIRE_FIXTURES();
  // No score is above 1, so A detects nothing.
  const std::vector<std::string> options{"--images", images(), "--conf", "1"};
  const auto text = run_compare("yolo11n_320_fp32", "yolo11n_320_fp32", options);
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "mAP50       n/a")) << text.out;
  EXPECT_TRUE(contains(text.out, "A detected nothing")) << text.out;
  const auto j = compare_json("yolo11n_320_fp32", "yolo11n_320_fp32", options);
  EXPECT_TRUE(j["map50"].is_null()) << j.dump();
  EXPECT_TRUE(j["map50_95"].is_null()) << j.dump();
  EXPECT_TRUE(j["score_mad"].is_null()) << j.dump();
}

TEST(CliCompare, MissingModelIsBadInputNamingTheOption) {
  YOLO_REQUIRE_FIXTURES();
  const auto r = run_cli({"compare", "--a", fixture_model("yolo11n_320_fp32"), "--b",
                          "/no/such/model.onnx", "--images", images()});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "--b")) << r.err;
  EXPECT_TRUE(contains(r.err, "/no/such/model.onnx")) << r.err;
  EXPECT_TRUE(contains(r.err, "not found")) << r.err;
}

TEST(CliCompare, EmptyFolderIsBadInput) {
  YOLO_REQUIRE_FIXTURES();
  const fs::path empty =
      fs::temp_directory_path() / ("yolo_cli_compare_empty_" + std::to_string(::getpid()));
  fs::create_directories(empty);
  const auto r = run_compare("yolo11n_320_fp32", "yolo11n_320_fp32", {"--images", empty.string()});
  fs::remove_all(empty);
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "no images")) << r.err;
}

TEST(CliCompare, SkippingPastTheEndOfTheVideoIsBadInput) {
  YOLO_REQUIRE_FIXTURES();
  const auto r =
      run_compare("yolo11n_320_fp32", "yolo11n_320_fp32", {"--video", video(), "--skip", "1000"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "has only 671 frame(s)")) << r.err;
  EXPECT_TRUE(contains(r.err, "--skip 1000")) << r.err;
}

TEST(CliCompare, ImagesAndVideoAreCheckedForWhatTheyAre) {
  YOLO_REQUIRE_FIXTURES();
  const auto as_images = run_compare("yolo11n_320_fp32", "yolo11n_320_fp32", {"--images", video()});
  EXPECT_EQ(as_images.status, 2);
  EXPECT_TRUE(contains(as_images.err, "use --video")) << as_images.err;
  const auto as_video = run_compare("yolo11n_320_fp32", "yolo11n_320_fp32", {"--video", images()});
  EXPECT_EQ(as_video.status, 2);
  EXPECT_TRUE(contains(as_video.err, "use --images")) << as_video.err;
}

TEST(CliCompare, NoFramesGivenIsAUsageError) {
  const auto r = run_cli({"compare", "--a", "a.onnx", "--b", "b.onnx"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "--images or --video")) << r.err;
}

}  // namespace
}  // namespace yolo::test
