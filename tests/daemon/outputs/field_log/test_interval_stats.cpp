// SPDX-License-Identifier: Apache-2.0
// IntervalStats: the figures of one interval line from results and samples
// (daemon/outputs/field_log/interval_stats.cpp).
#include "daemon/outputs/field_log/interval_stats.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

namespace yolo::daemon {
namespace {

using namespace std::chrono_literals;
using SteadyTime = std::chrono::steady_clock::time_point;

const SteadyTime kStart = SteadyTime(1000s);
const auto kWall = std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000));

std::shared_ptr<const ModelInfo> model(const std::string& precision) {
  auto info = std::make_shared<ModelInfo>();
  info->name = "yolo11n_320_" + precision;
  info->precision = runtime::parse_precision(precision).value();
  info->input_width = 320;
  info->input_height = 320;
  info->names = vision::ClassNames({"person", "bicycle", "car"});
  return info;
}

FrameResult frame(std::shared_ptr<const ModelInfo> info, double inference_ms, int threads = 2) {
  FrameResult r;
  r.model = std::move(info);
  r.threads = threads;
  r.times.capture_age_ms = 1;
  r.times.preprocess_ms = 2;
  r.times.inference_ms = inference_ms;
  r.times.postprocess_ms = 0.5;
  r.times.end_to_end_ms = inference_ms + 3.5;
  return r;
}

telemetry::Sample sample(SteadyTime at, std::optional<double> energy_j, double celsius = 50) {
  telemetry::Sample s;
  s.mono = at;
  s.thermal = {{"thermal_zone0", "cpu-thermal", celsius}};
  if (energy_j) {
    s.energy_j = energy_j;
    s.power_w = 9.99;  // the instantaneous reading, which the interval's mean replaces
    s.power = {{"rapl package-0", 9.99}};
  }
  return s;
}

TEST(IntervalStats, LatencyPercentilesPerStage) {
  IntervalStats stats("pi5", kStart);
  // 1..100 ms in a shuffled order: nearest rank gives p50 51, p90 91, p99 100.
  for (int i = 0; i < 100; ++i) stats.add(frame(model("fp32"), (i * 37) % 100 + 1));
  const auto line = stats.line(kWall, kStart + 10s);

  EXPECT_EQ(line["type"], "interval");
  EXPECT_EQ(line["time"], "2027-01-15T08:00:00.000Z");
  EXPECT_EQ(line["duration_s"], 10.0);
  EXPECT_EQ(line["host"], "pi5");
  EXPECT_EQ(line["model"], "yolo11n_320_fp32");
  EXPECT_EQ(line["precision"], "fp32");
  EXPECT_EQ(line["input"], nlohmann::ordered_json::array({320, 320}));
  EXPECT_EQ(line["threads"], 2);
  EXPECT_FALSE(line.contains("frames_by_threads"));
  EXPECT_EQ(line["frames"], 100);
  EXPECT_EQ(line["fps"], 10.0);
  const auto& inference = line["latency_ms"]["inference"];
  EXPECT_EQ(inference["p50"], 51.0);
  EXPECT_EQ(inference["p90"], 91.0);
  EXPECT_EQ(inference["p99"], 100.0);
  EXPECT_EQ(inference["mean"], 50.5);
  EXPECT_EQ(inference["max"], 100.0);
  EXPECT_EQ(line["latency_ms"]["end_to_end"]["p50"], 54.5);
  EXPECT_EQ(line["latency_ms"]["capture_age"]["max"], 1.0);
  EXPECT_EQ(line["latency_ms"]["preprocess"]["mean"], 2.0);
  EXPECT_EQ(line["latency_ms"]["postprocess"]["p99"], 0.5);
  // No telemetry sample was given: no device fields.
  EXPECT_FALSE(line.contains("telemetry_samples"));
  EXPECT_FALSE(line.contains("temp_c"));
}

TEST(IntervalStats, DetectionsCountedPerClassName) {
  IntervalStats stats("pi5", kStart);
  auto a = frame(model("fp32"), 20);
  a.detections = {{0, 0.9f, {}}, {0, 0.8f, {}}, {2, 0.7f, {}}};
  auto b = frame(model("fp32"), 20);
  b.detections = {{0, 0.6f, {}}, {7, 0.5f, {}}};  // 7 has no name in the model
  stats.add(a);
  stats.add(b);
  stats.add(frame(model("fp32"), 20));
  const auto line = stats.line(kWall, kStart + 1s);
  EXPECT_EQ(line["detections"],
            nlohmann::ordered_json({{"person", 3}, {"car", 1}, {"class 7", 1}}));
}

// The live INT8 checks: the agreement at the interval's end and the checks done within it; a line
// with no figures (checks off) has neither key.
TEST(IntervalStats, Int8ChecksGiveTheAgreementAndTheChecksOfTheInterval) {
  IntervalStats stats("pi5", kStart);
  stats.add(frame(model("int8"), 20));
  EXPECT_FALSE(stats.line(kWall, kStart + 1s).contains("int8_agreement"));
  stats.add(Int8CheckFigures{std::nullopt, 40});
  stats.add(Int8CheckFigures{0.97, 43});
  stats.add(Int8CheckFigures{0.96123456, 45});
  auto line = stats.line(kWall, kStart + 10s);
  EXPECT_DOUBLE_EQ(line["int8_agreement"].get<double>(), 0.9612);
  EXPECT_EQ(line["int8_checks"], 5);
  IntervalStats next = stats.next(kStart + 10s);
  next.add(Int8CheckFigures{0.95, 47});
  line = next.line(kWall, kStart + 20s);
  EXPECT_EQ(line["int8_checks"], 2) << "counted from where the last interval ended";
  // Until FP32 found something there is a count and no agreement.
  IntervalStats fresh("pi5", kStart);
  fresh.add(Int8CheckFigures{std::nullopt, 3});
  fresh.add(Int8CheckFigures{std::nullopt, 4});
  line = fresh.line(kWall, kStart + 10s);
  EXPECT_FALSE(line.contains("int8_agreement"));
  EXPECT_EQ(line["int8_checks"], 1);
}

TEST(IntervalStats, DroppedFramesAddCaptureDropsAndUnloggedResults) {
  IntervalStats stats("pi5", kStart);
  auto a = frame(model("fp32"), 20);
  a.dropped = 2;
  auto b = frame(model("fp32"), 20);
  b.dropped = 3;
  stats.add(a);
  stats.add(b);
  stats.add_unlogged(4);
  const auto line = stats.line(kWall, kStart + 1s);
  EXPECT_EQ(line["dropped"], 9);
  EXPECT_EQ(line["unlogged"], 4);
}

// Two cameras in turns: each its frames, fps, skips and own frame numbers; one camera's line has
// no cameras object (its frame numbers are the line's).
TEST(IntervalStats, SeveralCamerasEachGetTheirFramesSkipsAndNumbers) {
  IntervalStats stats("pi5", kStart);
  for (int i = 0; i < 6; ++i) {
    auto r = frame(model("int8"), 5);
    r.camera = i % 3 == 0 ? "yard" : "door";
    r.index = 100 + i;
    r.dropped = r.camera == "yard" ? 1 : 0;
    stats.add(r);
  }
  const auto line = stats.line(kWall, kStart + 2s);
  EXPECT_EQ(line["frames"], 6);
  EXPECT_EQ(line["dropped"], 2);
  EXPECT_EQ(line["cameras"]["door"]["frames"], 4);
  EXPECT_EQ(line["cameras"]["door"]["fps"], 2.0);
  EXPECT_EQ(line["cameras"]["door"]["skipped"], 0);
  EXPECT_EQ(line["cameras"]["door"]["frame_first"], 101);
  EXPECT_EQ(line["cameras"]["door"]["frame_last"], 105);
  EXPECT_EQ(line["cameras"]["yard"]["frames"], 2);
  EXPECT_EQ(line["cameras"]["yard"]["skipped"], 2);
  EXPECT_EQ(line["cameras"]["yard"]["frame_last"], 103);

  IntervalStats one("pi5", kStart);
  one.add(frame(model("int8"), 5));
  EXPECT_FALSE(one.line(kWall, kStart + 1s).contains("cameras"));
}

TEST(IntervalStats, ThreadCountChangeListsFramesPerCount) {
  IntervalStats stats("pi5", kStart);
  for (int i = 0; i < 3; ++i) stats.add(frame(model("fp32"), 20, 2));
  for (int i = 0; i < 5; ++i) stats.add(frame(model("fp32"), 20, 1));
  const auto line = stats.line(kWall, kStart + 1s);
  EXPECT_EQ(line["threads"], 1);
  EXPECT_EQ(line["frames_by_threads"], nlohmann::ordered_json({{"1", 5}, {"2", 3}}));
}

TEST(IntervalStats, PowerAndEnergyPerFrameFromTheEnergyCounter) {
  IntervalStats first("pi5", kStart);
  first.add(sample(kStart, 100.0));
  first.add(sample(kStart + 5s, 110.0, 61.5));
  first.add(sample(kStart + 10s, 120.0, 55));
  for (int i = 0; i < 20; ++i) first.add(frame(model("fp32"), 20));
  const auto line = first.line(kWall, kStart + 10s);
  // 20 J over 10 s is 2 W; 20 frames in 10 s take 1 J each.
  EXPECT_EQ(line["power_w"], 2.0);
  EXPECT_EQ(line["energy_per_frame_mj"], 1000.0);
  EXPECT_FALSE(line.contains("energy_j"));
  EXPECT_EQ(line["power_sources_w"]["rapl package-0"], 9.99);
  EXPECT_EQ(line["telemetry_samples"], 3);
  // The last sample's temperature, and the hottest of the interval.
  EXPECT_EQ(line["temp_c"]["cpu-thermal"], 55.0);
  EXPECT_EQ(line["temp_max_c"], 61.5);

  // The next interval measures from the last reading of this one: 30 J over 10 s.
  IntervalStats second = first.next(kStart + 10s);
  second.add(sample(kStart + 20s, 150.0));
  for (int i = 0; i < 30; ++i) second.add(frame(model("fp32"), 20));
  const auto next_line = second.line(kWall, kStart + 20s);
  EXPECT_EQ(next_line["power_w"], 3.0);
  EXPECT_EQ(next_line["energy_per_frame_mj"], 1000.0);
}

TEST(IntervalStats, FiguresPrintWithTheirDecimalsOnly) {
  IntervalStats stats("pi5", kStart);
  stats.add(sample(kStart, std::nullopt, 51.234));
  stats.add(frame(model("fp32"), 22.1234));
  const std::string text = stats.line(kWall, kStart + 3s).dump();
  EXPECT_NE(text.find(R"("temp_c":{"cpu-thermal":51.23})"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("temp_max_c":51.23)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("p50":22.123)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("fps":0.33)"), std::string::npos) << text;
}

TEST(IntervalStats, ACounterThatWentBackwardsIsMeasuredFromItsRestart) {
  IntervalStats stats("pi5", kStart);
  stats.add(sample(kStart, 500.0));
  stats.add(sample(kStart + 2s, 4.0));  // the sampler restarted
  stats.add(sample(kStart + 4s, 10.0));
  stats.add(frame(model("fp32"), 20));
  const auto line = stats.line(kWall, kStart + 4s);
  EXPECT_EQ(line["power_w"], 3.0);
}

TEST(IntervalStats, NoPowerSourceLeavesPowerAndEnergyOut) {
  IntervalStats stats("pi4", kStart);
  stats.add(sample(kStart + 1s, std::nullopt));
  stats.add(sample(kStart + 2s, std::nullopt));
  for (int i = 0; i < 10; ++i) stats.add(frame(model("fp32"), 20));
  const auto line = stats.line(kWall, kStart + 2s);
  EXPECT_TRUE(line.contains("temp_c"));
  EXPECT_FALSE(line.contains("power_w"));
  EXPECT_FALSE(line.contains("power_sources_w"));
  EXPECT_FALSE(line.contains("energy_per_frame_mj"));
}

TEST(IntervalStats, OneEnergyReadingGivesNoEnergyPerFrame) {
  IntervalStats stats("pi5", kStart);
  stats.add(sample(kStart + 1s, 100.0));
  stats.add(frame(model("fp32"), 20));
  const auto line = stats.line(kWall, kStart + 2s);
  // Only the instantaneous reading: no difference to take.
  EXPECT_EQ(line["power_w"], 9.99);
  EXPECT_FALSE(line.contains("energy_per_frame_mj"));
}

TEST(IntervalStats, CpuUseIsTheIntervalsMean) {
  IntervalStats stats("pi5", kStart);
  auto a = sample(kStart + 1s, std::nullopt);
  a.cpu_busy = {0.2, 0.4};
  a.cpu_busy_total = 0.3;
  a.rss_bytes = 1000;
  auto b = sample(kStart + 2s, std::nullopt);
  b.cpu_busy = {0.6, 0.8};
  b.cpu_busy_total = 0.7;
  b.rss_bytes = 2000;
  stats.add(a);
  stats.add(b);
  const auto line = stats.line(kWall, kStart + 2s);
  EXPECT_EQ(line["cpu_busy_total"], 0.5);
  EXPECT_EQ(line["cpu_busy"], nlohmann::ordered_json::array({0.4, 0.6}));
  EXPECT_EQ(line["rss_bytes"], 2000);
}

TEST(IntervalStats, AnIntervalWithoutFramesStillHasALine) {
  IntervalStats first("pi5", kStart);
  first.add(frame(model("int8"), 20, 3));
  first.add(sample(kStart + 1s, std::nullopt, 70));
  IntervalStats empty = first.next(kStart + 2s);
  const auto line = empty.line(kWall, kStart + 4s);
  EXPECT_EQ(line["frames"], 0);
  EXPECT_EQ(line["fps"], 0.0);
  EXPECT_EQ(line["dropped"], 0);
  EXPECT_FALSE(line.contains("latency_ms"));
  EXPECT_EQ(line["detections"], nlohmann::ordered_json::object());
  // The last model and thread count carry over, and so does the last device reading, marked
  // by telemetry_samples 0.
  EXPECT_EQ(line["precision"], "int8");
  EXPECT_EQ(line["threads"], 3);
  EXPECT_EQ(line["telemetry_samples"], 0);
  EXPECT_EQ(line["temp_c"]["cpu-thermal"], 70.0);
  EXPECT_EQ(line["temp_max_c"], 70.0);
}

TEST(IntervalStats, BeforeAnyFrameModelFieldsAreAbsent) {
  IntervalStats stats("pi5", kStart);
  const auto line = stats.line(kWall, kStart + 1s);
  EXPECT_FALSE(line.contains("model"));
  EXPECT_FALSE(line.contains("precision"));
  EXPECT_FALSE(line.contains("threads"));
  EXPECT_EQ(line["frames"], 0);
}

TEST(IntervalStats, ASwapSplitsTheInterval) {
  const auto fp32 = model("fp32");
  IntervalStats stats("pi5", kStart);
  // A first frame of any model belongs to an empty interval.
  EXPECT_FALSE(stats.runs_other_model(frame(model("int8"), 20)));
  stats.add(frame(fp32, 20));
  EXPECT_FALSE(stats.runs_other_model(frame(fp32, 20)));
  // An equal description from another reload is the same model.
  EXPECT_FALSE(stats.runs_other_model(frame(model("fp32"), 20)));
  const auto int8 = model("int8");
  ASSERT_TRUE(stats.runs_other_model(frame(int8, 20)));
  auto bigger = std::make_shared<ModelInfo>(*fp32);
  bigger->input_width = bigger->input_height = 640;
  EXPECT_TRUE(stats.runs_other_model(frame(bigger, 20)));

  // What the field log does on a swap: close this line, start the next at the swap.
  const auto fp32_line = stats.line(kWall, kStart + 3s);
  IntervalStats after = stats.next(kStart + 3s);
  after.add(frame(int8, 40));
  after.add(frame(int8, 40));
  const auto int8_line = after.line(kWall + 7s, kStart + 10s);
  EXPECT_EQ(fp32_line["precision"], "fp32");
  EXPECT_EQ(fp32_line["frames"], 1);
  EXPECT_EQ(fp32_line["duration_s"], 3.0);
  EXPECT_EQ(int8_line["precision"], "int8");
  EXPECT_EQ(int8_line["frames"], 2);
  EXPECT_EQ(int8_line["duration_s"], 7.0);
  EXPECT_EQ(int8_line["latency_ms"]["inference"]["p50"], 40.0);
}

TEST(IntervalStats, FrameNumbersAndGapsBetweenResultsCarryAcrossIntervals) {
  const auto fp32 = model("fp32");
  // Results 100 ms apart, then one 350 ms after its predecessor (a stalled frame).
  auto at = [&](std::int64_t index, std::chrono::milliseconds captured) {
    FrameResult r = frame(fp32, 20);
    r.index = index;
    r.captured = kStart + captured;
    return r;
  };
  IntervalStats stats("pi5", kStart);
  EXPECT_FALSE(stats.line(kWall, kStart + 1s).contains("result_gap_ms"));
  stats.add(at(40, 0ms));
  stats.add(at(41, 100ms));
  stats.add(at(42, 200ms));
  stats.add(at(43, 550ms));
  const auto line = stats.line(kWall, kStart + 1s);
  EXPECT_EQ(line["frame_first"], 40);
  EXPECT_EQ(line["frame_last"], 43);
  EXPECT_DOUBLE_EQ(line["result_gap_ms"]["p50"].get<double>(), 100.0);
  EXPECT_DOUBLE_EQ(line["result_gap_ms"]["max"].get<double>(), 350.0);
  // The next interval's first gap is measured from this one's last result.
  IntervalStats next = stats.next(kStart + 1s);
  EXPECT_FALSE(next.line(kWall, kStart + 2s).contains("frame_first"));
  next.add(at(44, 1250ms));
  const auto after = next.line(kWall, kStart + 2s);
  EXPECT_EQ(after["frame_first"], 44);
  EXPECT_DOUBLE_EQ(after["result_gap_ms"]["max"].get<double>(), 700.0);
}

}  // namespace
}  // namespace yolo::daemon
