// `yolo-edge bench` as a user runs it: the INT8-vs-FP32 baseline timed in the same run, the peer
// on another file, and the usage errors of those options. Timings are not checked (timings are
// not tests), only that each figure is there and consistent.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/run_cli.h"

namespace yolo::test {
namespace {

std::string fixture_model(const char* name) {
  return (fixtures_dir() / "models" / name).string();
}

TEST(Bench, BaselineIsTimedInTheSameRun) {
  YOLO_REQUIRE_FIXTURES();
  const auto model = fixture_model("yolo11n_320_fp32.onnx");
  const auto r = run_cli({"bench", "--model", model, "--baseline", model, "--threads", "1",
                          "--runs", "5", "--rounds", "2", "--warmup", "0", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& t = j.at("results").at(0);
  // 5 runs over 2 rounds are 3 + 2, not 2 + 2.
  EXPECT_EQ(t.at("runs"), 5);
  EXPECT_EQ(t.at("baseline").at("model"), model);
  EXPECT_EQ(t.at("baseline").at("precision"), "fp32");
  EXPECT_GT(t.at("baseline").at("p50_ms").get<double>(), 0.0);
  const double ratio = t.at("ratio_baseline_p50").get<double>();
  EXPECT_DOUBLE_EQ(ratio, t.at("best_round_p50_ms").get<double>() /
                              t.at("baseline").at("best_round_p50_ms").get<double>());

  const auto text = run_cli({"bench", "--model", model, "--baseline", model, "--threads", "1",
                             "--runs", "2", "--warmup", "0"});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "ours/base")) << text.out;
  EXPECT_TRUE(contains(text.out, "in FP32 (3 rounds, interleaved)")) << text.out;
}

TEST(Bench, PeerModelNeedsThePeer) {
  YOLO_REQUIRE_FIXTURES();
  const auto model = fixture_model("yolo11n_320_fp32.onnx");
  const auto r = run_cli({"bench", "--model", model, "--peer-model",
                          fixture_model("yolo11n_320_int8dyn.onnx"), "--runs", "1"});
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.err, "--peer-model")) << r.err;
  EXPECT_TRUE(contains(r.err, "--peer")) << r.err;
}

TEST(Bench, MissingBaselineFileIsAUsageError) {
  const auto r =
      run_cli({"bench", "--model", "whatever.onnx", "--baseline", "/nonexistent/b.onnx"});
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.err, "/nonexistent/b.onnx")) << r.err;
}

}  // namespace
}  // namespace yolo::test
