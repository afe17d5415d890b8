// SPDX-License-Identifier: Apache-2.0
// yolo-edge detect with models as users bring them (cli/detect/command_detect.cpp): an FP16 export, a
// dynamic-axes model at the source's aspect, a static INT8 file at its own precision, and the
// sizes a model cannot take.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/run_cli.h"
#include "tests/cli/tiny_detector.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_folder.h"

namespace yolo::test {
namespace {

namespace fs = std::filesystem;

std::string traffic() {
  return (fixtures_dir() / "video" / "traffic_720p_30fps.mp4").string();
}

// One JSON object per detection per line.
std::vector<nlohmann::json> detections(const std::string& out) {
  std::vector<nlohmann::json> all;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) all.push_back(nlohmann::json::parse(line));
  }
  return all;
}

// The classic YOLOv5n exported with --half, names from its metadata: ONNX Runtime finds the dog,
// the car and the bicycle on this photo, and so must we.
TEST(CliDetect, Fp16YoloV5nFindsTheDogTheCarAndTheBicycle) {
  YOLO_REQUIRE_FIXTURES();
  const auto r = run_cli({"detect", "--model", fixture_model("yolov5n_640_fp16"), "--image",
                          (fixtures_dir() / "images" / "dog.jpg").string(), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "FP16 export, computed in FP32")) << r.err;
  EXPECT_TRUE(contains(r.err, "at fp32, input 640x640")) << r.err;
  std::set<std::string> labels;
  for (const auto& d : detections(r.out)) labels.insert(d["label"].get<std::string>());
  for (const char* label : {"dog", "car", "bicycle"}) {
    EXPECT_TRUE(labels.contains(label)) << label << " not found:\n" << r.out;
  }
}

// A 1280x720 video on a model exported with dynamic axes: 384x640 for its 16:9, the boxes in the
// video's pixels.
TEST(CliDetect, ImgszAutoRunsADynamicAxesModelAtTheSourceAspect) {
  YOLO_REQUIRE_FIXTURES();
  for (const char* size : {"auto", "384,640"}) {
    const auto r = run_cli({"detect", "--model", fixture_model("yolov8n_carperson_dynaxes_int8dyn"),
                            "--video", traffic(), "--frames", "2", "--imgsz", size, "--json"});
    ASSERT_EQ(r.status, 0) << size << "\n" << r.err;
    EXPECT_TRUE(contains(r.err, "input 640x384 (width x height)")) << size << "\n" << r.err;
    for (const auto& d : detections(r.out)) {
      const auto& box = d["box"];
      EXPECT_GE(box[0].get<double>(), 0.0) << d.dump();
      EXPECT_LE(box[2].get<double>(), 1280.0) << d.dump();
      EXPECT_LE(box[3].get<double>(), 720.0) << d.dump();
    }
  }
  // A fixed-shape file keeps its shape.
  const auto fixed = run_cli({"detect", "--model", fixture_model("yolo11n_320_fp32"), "--video",
                              traffic(), "--frames", "1", "--imgsz", "auto"});
  ASSERT_EQ(fixed.status, 0) << fixed.err;
  EXPECT_TRUE(contains(fixed.err, "input 320x320")) << fixed.err;
}

TEST(CliDetect, SizesAModelCannotTakeAreRefusedNamingTheOption) {
  YOLO_REQUIRE_FIXTURES();
  const auto off_stride =
      run_cli({"detect", "--model", fixture_model("yolov8n_carperson_dynaxes_int8dyn"), "--video",
               traffic(), "--imgsz", "400,640"});
  EXPECT_EQ(off_stride.status, 2) << off_stride.err;
  EXPECT_TRUE(contains(off_stride.err, "--imgsz")) << off_stride.err;
  EXPECT_TRUE(contains(off_stride.err, "400 is not a multiple of 32")) << off_stride.err;

  const auto not_a_size = run_cli({"detect", "--model", fixture_model("yolo11n_320_fp32"),
                                   "--video", traffic(), "--imgsz", "384x640"});
  EXPECT_EQ(not_a_size.status, 2) << not_a_size.err;
  EXPECT_TRUE(contains(not_a_size.err, "use 640, HEIGHT,WIDTH such as 384,640, or auto"))
      << not_a_size.err;

  const auto fixed = run_cli({"detect", "--model", fixture_model("yolo11n_320_fp32"), "--video",
                              traffic(), "--frames", "1", "--imgsz", "384,640"});
  EXPECT_EQ(fixed.status, 2) << fixed.err;
  for (const char* part : {"yolo11n_320_fp32.onnx", "fixed at 320x320", "not 384x640", "--imgsz"}) {
    EXPECT_TRUE(contains(fixed.err, part)) << part << " not in:\n" << fixed.err;
  }
}

// A static INT8 file runs int8 unless --precision fp32 asks otherwise.
TEST(CliDetect, AStaticInt8FileRunsAtItsOwnPrecision) {
  TempFolder dir;
  const fs::path frames = one_image_folder(dir.path());
  const fs::path int8 = dir.path() / "tiny.int8.onnx";
  const auto made =
      run_cli({"quantize", "--model", tiny_detector_model(dir.path()).string(), "--calib",
               frames.string(), "--keep-fp32", "none", "--out", int8.string()});
  ASSERT_EQ(made.status, 0) << made.err;
  const auto own = run_cli({"detect", "--model", int8.string(), "--image", frames.string()});
  ASSERT_EQ(own.status, 0) << own.err;
  EXPECT_TRUE(contains(own.err, "at int8, input 32x32")) << own.err;
  const auto fp32 = run_cli(
      {"detect", "--model", int8.string(), "--image", frames.string(), "--precision", "fp32"});
  ASSERT_EQ(fp32.status, 0) << fp32.err;
  EXPECT_TRUE(contains(fp32.err, "at fp32, input 32x32")) << fp32.err;
}

}  // namespace
}  // namespace yolo::test
