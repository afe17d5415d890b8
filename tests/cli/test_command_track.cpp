// SPDX-License-Identifier: Apache-2.0
// yolo-edge track: the tracker, zones and lines on a recorded clip, against crossings counted by
// hand (tests/tracking/data/traffic_crossings.json), with the FP32 model and an INT8 file made
// from it; and what bad input gets.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/cli/run_cli.h"
#include "tests/support/temp_folder.h"
#include "tests/support/tree_paths.h"

namespace yolo::test {
namespace {

const std::filesystem::path kData = source_dir() / "tests" / "tracking" / "data";

std::string traffic() {
  return (fixtures_dir() / "video" / "traffic_720p_30fps.mp4").string();
}

struct Counted {
  std::map<std::string, int> crossings;
  std::vector<std::int64_t> frames;
  nlohmann::json counts;
};

// The events and final counts of `yolo-edge track --json` on the traffic clip.
Counted track_traffic(const std::string& model) {
  const CliResult r = run_cli({"track", "--model", model, "--video", traffic(), "--config",
                               (kData / "traffic_line.yaml").string(), "--threads", "2", "--json"});
  EXPECT_EQ(r.status, 0) << r.err;
  Counted c;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    if (j.value("type", "") == "counts") {
      c.counts = j;
    } else if (j.value("type", "") == "cross") {
      ++c.crossings[j["direction"].get<std::string>()];
      c.frames.push_back(j["frame"].get<std::int64_t>());
    }
  }
  return c;
}

void expect_truth(const Counted& c, const std::string& what) {
  std::ifstream in(kData / "traffic_crossings.json");
  const nlohmann::json truth = nlohmann::json::parse(in);
  const int in_count = truth["in"];
  const int out_count = truth["out"];
  std::printf("%s: in %d (truth %d), out %d (truth %d)\n", what.c_str(),
              c.crossings.count("in") ? c.crossings.at("in") : 0, in_count,
              c.crossings.count("out") ? c.crossings.at("out") : 0, out_count);
  EXPECT_NEAR(c.crossings.count("in") ? c.crossings.at("in") : 0, in_count, 1) << what;
  EXPECT_NEAR(c.crossings.count("out") ? c.crossings.at("out") : 0, out_count, 1) << what;
  // Each crossing counted is one of the hand-counted ones, a few frames later at most (the
  // hysteresis: the anchor must get 1% of the diagonal past the line).
  for (const std::int64_t frame : c.frames) {
    bool near = false;
    for (const auto& t : truth["crossings"]) {
      const std::int64_t f = t["frame"];
      near = near || (frame >= f - 3 && frame <= f + 8);
    }
    EXPECT_TRUE(near) << what << ": a crossing at frame " << frame << " that nobody counted";
  }
  // The counts at the end say the same as the events.
  EXPECT_EQ(c.counts["counts"]["places"][0]["total"]["car"]["in"],
            c.crossings.count("in") ? c.crossings.at("in") : 0);
}

TEST(Track, CountsTheTrafficClipAsCountedByHandInFp32AndInt8) {
  YOLO_REQUIRE_FIXTURES();
  expect_truth(track_traffic(fixture_model("yolo11n_320_fp32")), "yolo11n 320 FP32");
  // The INT8 file a user would make for this camera: calibrated on its own frames.
  const TempFolder dir;
  const std::string int8 = (dir.path() / "yolo11n_int8.onnx").string();
  const CliResult q = run_cli({"quantize", "--model", fixture_model("yolo11n_320_fp32"), "--calib",
                               traffic(), "--frames", "32", "--out", int8});
  ASSERT_EQ(q.status, 0) << q.err;
  expect_truth(track_traffic(int8), "yolo11n 320 INT8");
}

TEST(Track, DrawsItsVideoAndPrintsCounts) {
  YOLO_REQUIRE_FIXTURES();
  const TempFolder dir;
  const std::string out = (dir.path() / "annotated.avi").string();
  const CliResult r =
      run_cli({"track", "--model", fixture_model("yolo11n_320_fp32"), "--video", traffic(),
               "--config", (kData / "traffic_line.yaml").string(), "--frames", "70", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  expect_contains_all(r.out, {"cross  near_carriageway in", "line near_carriageway: in 2, out 0"});
  EXPECT_GT(std::filesystem::file_size(out), 100000u);
}

TEST(Track, BadZonesAndLinesAreConfigErrorsWithTheirPlace) {
  YOLO_REQUIRE_FIXTURES();
  const TempFolder dir;
  const auto config = dir.write("zones.yaml",
                                "zones:\n"
                                "  - name: gate\n"
                                "    points: [[0.1, 0.1], [0.5, 0.1]]\n"
                                "lines:\n"
                                "  - name: road\n"
                                "    from: [0.2, 0.5]\n"
                                "    to: [0.2, 0.5]\n"
                                "    in: below\n"
                                "    classes: [car, persn]\n");
  const CliResult r = run_cli({"track", "--model", fixture_model("yolo11n_320_fp32"), "--video",
                               traffic(), "--config", config.string()});
  EXPECT_EQ(r.status, 2);
  expect_contains_all(
      r.err, {"zones.yaml:3:", "zones[0].points", "a zone needs at least three corners",
              "lines[0].to", "a line needs a length", "lines[0].classes", "'persn'",
              "did you mean 'person'?"});
}

}  // namespace
}  // namespace yolo::test
