// SPDX-License-Identifier: Apache-2.0
// `yolo-edge bench` as a user runs it: the thread sweep (the INT8-vs-FP32 baseline timed in the
// same run, the peer on another file), the scenarios (report.md, results.json, results.csv, the
// statistics, the INT8 speedup, the sensors, the progress shown on a pipe and on a terminal), and
// the usage errors of those options. Timings are not checked (timings are not tests), only that
// each figure is there and consistent.

#include <gtest/gtest.h>
#include <pty.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "tests/cli/run_cli.h"
#include "tests/cli/tiny_detector.h"
#include "tests/support/temp_folder.h"

namespace yolo::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

TEST(Bench, BaselineIsTimedInTheSameRun) {
  YOLO_REQUIRE_FIXTURES();
  const auto model = fixture_model("yolo11n_320_fp32");
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
  expect_contains_all(text.out, {"ours/base", "in FP32 (3 rounds, interleaved)"});
}

TEST(Bench, PeerModelNeedsThePeer) {
  YOLO_REQUIRE_FIXTURES();
  const auto model = fixture_model("yolo11n_320_fp32");
  const auto r = run_cli({"bench", "--model", model, "--peer-model",
                          fixture_model("yolo11n_320_int8dyn"), "--runs", "1"});
  EXPECT_EQ(r.status, 2) << r.out;
  expect_contains_all(r.err, {"--peer-model", "--peer"});
}

TEST(Bench, MissingBaselineFileIsAUsageError) {
  const auto r =
      run_cli({"bench", "--model", "whatever.onnx", "--baseline", "/nonexistent/b.onnx"});
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.err, "/nonexistent/b.onnx")) << r.err;
}

// The tiny detector and its INT8 file, made once for the scenario tests.
class BenchScenarios : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("yolo-edge-bench-scenarios-" + std::to_string(getpid()));
    fs::create_directories(dir_);
    fp32_ = tiny_detector_model(dir_, "tiny.onnx");
    int8_ = dir_ / "tiny.int8.onnx";
    const auto r =
        run_cli({"quantize", "--model", fp32_.string(), "--calib", one_image_folder(dir_).string(),
                 "--keep-fp32", "none", "--out", int8_.string()});
    ASSERT_EQ(r.status, 0) << r.err;
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  // A fake /sys: one thermal zone at 45 C, two cores at 1500 MHz, an INA219 drawing 5 W.
  static fs::path fake_sysfs(const TempFolder& folder) {
    folder.write("sys/class/thermal/thermal_zone0/type", "cpu-thermal\n");
    folder.write("sys/class/thermal/thermal_zone0/temp", "45000\n");
    for (int cpu = 0; cpu < 2; ++cpu) {
      folder.write("sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq/scaling_cur_freq",
                   "1500000\n");
    }
    folder.write("sys/class/hwmon/hwmon2/name", "ina219\n");
    folder.write("sys/class/hwmon/hwmon2/power1_input", "5000000\n");
    return folder.path() / "sys";
  }

  static json read_json(const fs::path& file) {
    std::ifstream in(file);
    return json::parse(in);
  }

  static inline fs::path dir_, fp32_, int8_;
};

int usable_cores() {
  cpu_set_t set;
  return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

TEST_F(BenchScenarios, EveryScenarioAndPrecisionWithItsStatisticsInThreeFiles) {
  TempFolder folder;
  const fs::path out = folder.path() / "out";
  const auto r = run_cli({"bench", "--model", fp32_.string(), "--int8", int8_.string(), "--queries",
                          "6", "--rounds", "2", "--warmup", "1", "--out", out.string(),
                          "--sysfs-root", fake_sysfs(folder).string()});
  ASSERT_EQ(r.status, 0) << r.err;
  // The tables on stdout: results, then INT8 against FP32.
  expect_contains_all(r.out, {"| scenario | precision | engines x threads | queries | mean ms",
                              "| scenario | judged by | FP32 | INT8 | INT8 speedup |",
                              "| single-stream | p90 ms |", "| offline | frames/s |"});

  const json j = read_json(out / "results.json");
  EXPECT_EQ(j.at("queries"), 6);
  EXPECT_EQ(j.at("rounds"), 2);
  const int cores = usable_cores();
  EXPECT_EQ(j.at("cores"), cores);
  const auto& results = j.at("results");
  ASSERT_EQ(results.size(), 10u) << results;
  const std::vector<std::string> scenarios = {"controlled", "practical", "single-stream",
                                              "multi-stream", "offline"};
  std::map<std::string, std::map<std::string, json>> by;
  for (const auto& res : results) {
    by[res.at("scenario")][res.at("precision")] = res;
    const auto& l = res.at("latency_ms");
    // --queries 6: six queries of each, over the two rounds; offline counts frames.
    EXPECT_EQ(res.at("queries"), 6) << res;
    EXPECT_EQ(res.at("frames"), 6 * res.at("frames_per_query").get<int>()) << res;
    EXPECT_LE(l.at("min"), l.at("p25"));
    EXPECT_LE(l.at("p25"), l.at("p50"));
    EXPECT_LE(l.at("p50"), l.at("p75"));
    EXPECT_LE(l.at("p75"), l.at("p90"));
    EXPECT_LE(l.at("p90"), l.at("p95"));
    EXPECT_LE(l.at("p95"), l.at("p99"));
    EXPECT_LE(l.at("p99"), l.at("max"));
    EXPECT_NEAR(l.at("iqr").get<double>(), l.at("p75").get<double>() - l.at("p25").get<double>(),
                0.0015);
    // Both are rounded to 1 us, which on the tiny model's few-us runs moves the ratio.
    const double mean = l.at("mean").get<double>();
    EXPECT_NEAR(l.at("cv").get<double>(), l.at("stddev").get<double>() / mean,
                0.0005 * (1 + l.at("cv").get<double>()) / mean + 0.0001);
    EXPECT_GT(res.at("throughput_fps").get<double>(), 0) << res;
    EXPECT_GT(res.at("peak_rss_mb").get<double>(), 0) << res;
    EXPECT_GT(res.at("model_bytes").get<double>(), 0) << res;
    // The fake sensors: 45 C and 1500 MHz at both ends, 5 W drawn throughout.
    EXPECT_EQ(res.at("device").at("start").at("temp_c"), 45.0) << res;
    EXPECT_EQ(res.at("device").at("end").at("clock_mhz"), 1500.0) << res;
    EXPECT_NEAR(res.at("power_w").get<double>(), 5.0, 0.01) << res;
    EXPECT_GT(res.at("energy_per_frame_mj").get<double>(), 0) << res;
  }
  for (const auto& name : scenarios) {
    ASSERT_EQ(by[name].size(), 2u) << name;
  }
  EXPECT_EQ(by["controlled"]["fp32"].at("threads"), 1);
  EXPECT_EQ(by["practical"]["fp32"].at("threads"), cores);
  EXPECT_EQ(by["single-stream"]["int8"].at("judged_by"), "p90");
  EXPECT_EQ(by["multi-stream"]["int8"].at("engines"), cores);
  EXPECT_EQ(by["multi-stream"]["int8"].at("frames_per_query"), 8);
  EXPECT_EQ(by["multi-stream"]["int8"].at("judged_by"), "p99");
  EXPECT_EQ(by["offline"]["fp32"].at("judged_by"), "throughput");
  // Each precision's own file and its size.
  EXPECT_EQ(by["controlled"]["int8"].at("model"), int8_.string());
  EXPECT_EQ(by["controlled"]["int8"].at("model_bytes"), fs::file_size(int8_));
  EXPECT_EQ(by["controlled"]["fp32"].at("model_bytes"), fs::file_size(fp32_));

  // The speedup is FP32 / INT8 on the latency judged by, INT8 / FP32 on throughput.
  const auto& speedups = j.at("int8_speedup");
  ASSERT_EQ(speedups.size(), 5u);
  for (const auto& sp : speedups) {
    const auto& fp32 = by[sp.at("scenario")]["fp32"];
    const auto& int8 = by[sp.at("scenario")]["int8"];
    const std::string judged = sp.at("judged_by");
    const double a = judged == "throughput" ? fp32.at("throughput_fps").get<double>()
                                            : fp32.at("latency_ms").at(judged).get<double>();
    const double b = judged == "throughput" ? int8.at("throughput_fps").get<double>()
                                            : int8.at("latency_ms").at(judged).get<double>();
    const double expected = judged == "throughput" ? b / a : a / b;
    // The speedup comes from the unrounded figures, a and b here from the file's (milliseconds
    // to 3 decimals, fps to 2): the tiny model's 0.03 ms latencies carry 1.5 % rounding each.
    const double step = judged == "throughput" ? 0.005 : 0.0005;
    EXPECT_NEAR(sp.at("speedup").get<double>(), expected,
                expected * (step / a + step / b) + 0.0005 + 1e-9)
        << sp;
  }

  // results.csv: a header and one row per result, the main figures first.
  std::ifstream csv(out / "results.csv");
  std::vector<std::string> rows;
  for (std::string line; std::getline(csv, line);) rows.push_back(line);
  ASSERT_EQ(rows.size(), 11u);
  EXPECT_EQ(
      rows[0].rfind("scenario,precision,engines,threads,frames_per_query,judged_by,queries,", 0),
      0u)
      << rows[0];
  EXPECT_TRUE(contains(rows[0], "latency_ms.p95")) << rows[0];
  EXPECT_TRUE(contains(rows[0], "energy_per_frame_mj")) << rows[0];
  EXPECT_EQ(rows[1].rfind("controlled,fp32,1,1,1,mean,6,", 0), 0u) << rows[1];

  // report.md: the tables, the length asked for, the scenarios and the sensors.
  const std::string md = file_text(out / "report.md");
  expect_contains_all(md, {"shortened by `--queries 6`", "## INT8 against FP32",
                           "**multi-stream**: ", "- found: ", "45.0 -> 45.0", "1500 -> 1500"});
}

TEST_F(BenchScenarios, DurationBoundsEachScenario) {
  const auto r = run_cli({"bench", "--model", fp32_.string(), "--precision", "fp32", "--scenario",
                          "controlled,offline", "--duration", "0.3", "--rounds", "1", "--warmup",
                          "0", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j.at("duration_s"), 0.3);
  ASSERT_EQ(j.at("results").size(), 2u);
  for (const auto& res : j.at("results")) {
    EXPECT_GE(res.at("seconds").get<double>(), 0.3) << res;
    // The tiny model runs far more than one query in that time.
    EXPECT_GT(res.at("queries").get<int>(), 10) << res;
    EXPECT_EQ(res.at("precision"), "fp32");
  }
}

TEST_F(BenchScenarios, WithoutAnInt8FileFp32AloneIsTimedAndTheReportSaysWhy) {
  TempFolder folder;
  const fs::path model = tiny_detector_model(folder.path(), "alone.onnx");
  const auto r = run_cli({"bench", "--model", model.string(), "--scenario", "controlled",
                          "--queries", "3", "--out", (folder.path() / "out").string()});
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = read_json(folder.path() / "out" / "results.json");
  ASSERT_EQ(j.at("results").size(), 1u);
  EXPECT_EQ(j.at("results").at(0).at("precision"), "fp32");
  EXPECT_TRUE(j.at("int8_speedup").empty());
  const std::string why = "there is no INT8 file beside " + model.string();
  EXPECT_TRUE(contains(r.out, why)) << r.out;
  EXPECT_TRUE(contains(file_text(folder.path() / "out" / "report.md"), why));
}

TEST_F(BenchScenarios, AnInt8FileThatIsMissingFailsBeforeAnyTiming) {
  TempFolder folder;
  const fs::path model = tiny_detector_model(folder.path(), "no_int8.onnx");
  const auto r = run_cli({"bench", "--model", model.string(), "--precision", "fp32,int8",
                          "--scenario", "controlled", "--queries", "3"});
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.err, "precision int8 needs a static (QDQ) INT8 model")) << r.err;
  EXPECT_FALSE(contains(r.err, "fp32 controlled")) << r.err;
}

// --choose: the daemon's precision: auto decision on frames given on the command line.
TEST_F(BenchScenarios, ChooseTimesBothOnTheFramesGivenAndDecidesByTheFigures) {
  const auto r =
      run_cli({"bench", "--model", fp32_.string(), "--int8", int8_.string(), "--choose", "--images",
               one_image_folder(dir_).string(), "--threads", "1,2", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  for (const char* n : {"1", "2"}) {
    EXPECT_GT(j.at("fp32_ms_by_threads").at(n).get<double>(), 0) << j.dump();
    EXPECT_GT(j.at("int8_ms_by_threads").at(n).get<double>(), 0) << j.dump();
  }
  // 2 counts: 16 timed frames each after a warm-up frame, cycling over the one image.
  EXPECT_EQ(j.at("frames"), 34);
  EXPECT_EQ(j.at("distinct_frames"), 1);
  EXPECT_EQ(j.at("int8_model"), int8_.string());
  EXPECT_DOUBLE_EQ(j.at("min_map50").get<double>(), 0.95);
  const bool int8_wins = j.at("decided").get<bool>() && j.at("speedup").get<double>() >= 1.05 &&
                         !j.at("map50").is_null() && j.at("map50").get<double>() >= 0.95;
  EXPECT_EQ(j.at("precision") == "int8", int8_wins) << j.dump();
  EXPECT_TRUE(contains(r.err, "measured 34 frame(s)")) << r.err;

  const auto text =
      run_cli({"bench", "--model", fp32_.string(), "--int8", int8_.string(), "--choose", "--images",
               one_image_folder(dir_).string(), "--threads", "1", "--min-map50", "0.5"});
  ASSERT_EQ(text.status, 0) << text.err;
  expect_contains_all(text.out, {"| threads | FP32 ms (p50) | INT8 ms (p50) |", "choice     "});
  // One count: 32 timed frames and a warm-up.
  EXPECT_TRUE(contains(text.out, "the trial ran 33")) << text.out;
}

TEST_F(BenchScenarios, ChooseRefusesWhatItCannotMeasure) {
  const std::string frames = one_image_folder(dir_).string();
  auto r = run_cli({"bench", "--model", fp32_.string(), "--int8", int8_.string(), "--choose"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "--choose needs frames like the camera's: --images DIR")) << r.err;
  r = run_cli({"bench", "--model", fp32_.string(), "--int8", int8_.string(), "--choose", "--images",
               frames, "--scenario", "offline", "--runs", "3"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "--scenario, --runs are not for --choose")) << r.err;
  TempFolder folder;
  const fs::path alone = tiny_detector_model(folder.path(), "alone.onnx");
  r = run_cli({"bench", "--model", alone.string(), "--choose", "--images", frames});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "--choose needs an INT8 file: give --int8 FILE")) << r.err;
  r = run_cli({"bench", "--model", fp32_.string(), "--images", frames});
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(contains(r.err, "--images requires --choose")) << r.err;
}

TEST_F(BenchScenarios, NotATerminalGetsPlainLines) {
  const auto r = run_cli({"bench", "--model", fp32_.string(), "--int8", int8_.string(),
                          "--scenario", "single-stream", "--queries", "4"});
  ASSERT_EQ(r.status, 0) << r.err;
  // One line per round, the precisions alternating A B, B A, A B.
  const auto first = r.err.find("fp32 single-stream, round 1/3: 2 queries in ");
  const auto second = r.err.find("int8 single-stream, round 1/3: 2 queries in ");
  const auto third = r.err.find("int8 single-stream, round 2/3: 1 query in ");
  const auto fourth = r.err.find("fp32 single-stream, round 2/3: 1 query in ");
  ASSERT_NE(first, std::string::npos) << r.err;
  EXPECT_LT(first, second) << r.err;
  EXPECT_LT(second, third) << r.err;
  EXPECT_LT(third, fourth) << r.err;
  EXPECT_FALSE(contains(r.err, "\r")) << r.err;
  EXPECT_FALSE(contains(r.err, "\x1b[K")) << r.err;
}

// Runs yolo-edge on a pseudo-terminal and returns what it printed there.
std::string run_on_terminal(const std::vector<std::string>& args) {
  std::vector<std::string> argv{cli_path().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> c_argv;
  for (auto& a : argv) c_argv.push_back(a.data());
  c_argv.push_back(nullptr);
  int master = -1;
  const pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  if (pid == 0) {
    execv(c_argv[0], c_argv.data());
    _exit(127);
  }
  std::string seen;
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(master, buffer, sizeof buffer);
    if (n <= 0) break;  // EIO once the child has closed the terminal
    seen.append(buffer, static_cast<std::size_t>(n));
  }
  close(master);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << seen;
  return seen;
}

TEST_F(BenchScenarios, ATerminalGetsABarRedrawnInPlace) {
  const std::string seen =
      run_on_terminal({"bench", "--model", fp32_.string(), "--precision", "fp32", "--scenario",
                       "controlled", "--duration", "1.6", "--rounds", "1"});
  expect_contains_all(seen, {"\rfp32 controlled [#", "%  ", "/2 s"});
  // Cleared before the round's line.
  EXPECT_TRUE(contains(seen, "\r\x1b[Kfp32 controlled: ")) << seen;
}

TEST(Bench, ThreadSweepAndScenarioOptionsDoNotMix) {
  const auto r = run_cli({"bench", "--model", "whatever.onnx", "--threads", "1", "--queries", "5"});
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.err,
                       "--threads is for the thread sweep and --queries for the "
                       "scenarios"))
      << r.err;
  const auto both =
      run_cli({"bench", "--model", "whatever.onnx", "--runs", "3", "--precision", "fp32,int8"});
  EXPECT_EQ(both.status, 2) << both.out;
  EXPECT_TRUE(contains(both.err, "--runs is for the thread sweep and several precisions"))
      << both.err;
}

TEST(Bench, DurationAndQueriesExcludeEachOther) {
  const auto r =
      run_cli({"bench", "--model", "whatever.onnx", "--duration", "1", "--queries", "5"});
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.err, "excludes")) << r.err;
}

TEST(Bench, UnknownScenarioIsAUsageError) {
  const auto r = run_cli({"bench", "--model", "whatever.onnx", "--scenario", "server"});
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.err, "server")) << r.err;
}

}  // namespace
}  // namespace yolo::test
