// SPDX-License-Identifier: Apache-2.0
// yolo-edged end to end: the real binary on the fixture video, talked to as systemd would (its
// notify socket, signals) and read through its field log.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include "daemon/app/service.h"
#include "tests/daemon/daemon_process.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_folder.h"

namespace yolo::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A small tmpfs the test can remount read-only and back, as an SD card that turned read-only
// does: writes fail with EROFS even through descriptors already open. Needs root with
// CAP_SYS_ADMIN; mounted() says whether it could.
class ScratchMount {
 public:
  explicit ScratchMount(const fs::path& path) : path_(path) {
    fs::create_directories(path);
    if (geteuid() != 0) return;
    const std::string options =
        "size=4m,mode=0755,uid=" + std::to_string(kNobody) + ",gid=" + std::to_string(kNobody);
    mounted_ = mount("yolo-edge-test", path.c_str(), "tmpfs", 0, options.c_str()) == 0;
  }
  ~ScratchMount() {
    if (mounted_) umount2(path_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  bool set_read_only(bool read_only) {
    const unsigned long flags = MS_REMOUNT | (read_only ? MS_RDONLY : 0);
    return mount("yolo-edge-test", path_.c_str(), "tmpfs", flags, nullptr) == 0;
  }

 private:
  fs::path path_;
  bool mounted_ = false;
};

TEST(ServiceConfig, ChangedKeysAreListedInSchemaOrder) {
  config::Config before;
  config::Config after;
  EXPECT_TRUE(daemon::changed_keys(before, after).empty());
  after.model.precision = config::Precision::kInt8;
  after.source.uri = "/dev/video1";
  after.detect.classes = {0};
  EXPECT_EQ(daemon::changed_keys(before, after),
            (std::vector<std::string>{"source.uri", "model.precision", "detect.classes"}));
}

TEST(ServiceConfig, ZeroThreadsMeansOnePerCore) {
  config::ThreadsConfig t;
  t.mode = config::ThreadMode::kEfficiency;
  t.margin = 0.2;
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  const daemon::ThreadPolicy p = daemon::thread_policy(t);
  EXPECT_EQ(p.fixed, cores);
  EXPECT_EQ(p.max, cores);
  EXPECT_EQ(p.mode, config::ThreadMode::kEfficiency);
  EXPECT_EQ(p.margin, 0.2);
  t.count = 3;
  t.max = 2;
  EXPECT_EQ(daemon::thread_policy(t).fixed, 3);
  EXPECT_EQ(daemon::thread_policy(t).max, 2);
}

TEST(Service, RunsSwitchesPrecisionSurvivesBadConfigAndDiskTroubleAndStopsCleanly) {
  YOLO_REQUIRE_FIXTURES();
  DaemonSetup s;
  // The log folder on a disk of its own (when the test may mount one), to make it read-only.
  ScratchMount disk(s.logs);
  const std::string fp32 = config_text(paced_video(), s.logs, "yolo11n_320_fp32");
  s.write_config(fp32);
  // The README installs models with `sudo install -D ... STATE/models/...`, which leaves that
  // folder root's: what the daemon makes must not need it (as root the daemon runs as nobody).
  fs::create_directories(s.state / "models");
  auto daemon = s.start();
  FieldLogReader log(s.logs);

  // READY once frames flow, then interval lines with real numbers.
  ASSERT_TRUE(s.notify->wait_for("READY=1", 0, 60s)) << s.daemon_output();
  const auto first =
      log.wait_for([](const auto& j) { return is_interval(j) && j.value("frames", 0) > 0; }, 30s);
  ASSERT_TRUE(first) << s.daemon_output();
  EXPECT_EQ((*first)["precision"], "fp32");
  EXPECT_GT((*first)["fps"].get<double>(), 0);
  for (const char* stage :
       {"capture_age", "preprocess", "inference", "postprocess", "end_to_end"}) {
    EXPECT_GT((*first)["latency_ms"][stage]["p50"].get<double>(), 0) << stage;
  }
  EXPECT_TRUE(first->contains("rss_bytes"));
  if (fs::exists("/sys/class/thermal/thermal_zone0/temp")) {
    EXPECT_TRUE(first->contains("temp_c"));
  }
  EXPECT_TRUE(s.notify->wait_for("WATCHDOG=1", 0, 10s)) << "the watchdog is fed while frames flow";
  EXPECT_TRUE(s.notify->wait_for("STATUS=", 0, 5s));

  // Switch to INT8 made from the camera's own frames: RELOADING, READY, the swap, INT8 frames.
  std::size_t seen = s.notify->messages().size();
  s.write_config(config_text(paced_video(), s.logs, "yolo11n_320_fp32",
                             "  precision: int8\n  quantize: auto\n  calibration_frames: 16\n"));
  daemon->signal(SIGHUP);
  const auto reloading = s.notify->wait_for("RELOADING=1", seen, 10s);
  ASSERT_TRUE(reloading) << s.daemon_output();
  EXPECT_TRUE(s.notify->wait_for("MONOTONIC_USEC=", *reloading, 1s));
  EXPECT_TRUE(s.notify->wait_for("READY=1", *reloading, 10s));
  const auto config_event = log.wait_for([](const auto& j) { return is_event(j, "config"); }, 10s);
  ASSERT_TRUE(config_event);
  const std::set<std::string> changed = (*config_event)["changed"].get<std::set<std::string>>();
  EXPECT_TRUE(changed.contains("model.precision"));
  EXPECT_TRUE(changed.contains("model.quantize"));

  const auto started =
      log.wait_for([](const auto& j) { return is_event(j, "quantize_started"); }, 90s);
  ASSERT_TRUE(started) << s.daemon_output();
  EXPECT_EQ(fs::path((*started)["file"].get<std::string>()).parent_path(), s.state / "int8")
      << "INT8 models made here go into the daemon's own folder";
  // The quantizer runs at nice 10 and yields to every other process: beside a build it has
  // taken over 400 s here (its FP32 choices time each conv), so the bound is wide.
  const auto swap = log.wait_for(
      [](const auto& j) { return is_event(j, "swap") && j.value("to_precision", "") == "int8"; },
      700s);
  ASSERT_TRUE(swap) << s.daemon_output();
  EXPECT_EQ((*swap)["frames_lost"], 0) << swap->dump();
  EXPECT_EQ((*swap)["first_frame_after"].get<std::int64_t>(),
            (*swap)["last_frame_before"].get<std::int64_t>() + 1);
  EXPECT_GT((*swap)["build_ms"].get<double>(), 0);
  const auto int8_line = log.wait_for(
      [](const auto& j) {
        return is_interval(j) && j.value("precision", "") == "int8" && j.value("frames", 0) > 0;
      },
      20s);
  ASSERT_TRUE(int8_line) << s.daemon_output();

  // An invalid file changes nothing: the error names its line, frames keep coming at int8.
  seen = s.notify->messages().size();
  s.write_config("model:\n  path: " + fixture("models/yolo11n_320_fp32.onnx") +
                 "\ndetect:\n  conf: 7\n");
  daemon->signal(SIGHUP);
  const auto rejected =
      log.wait_for([](const auto& j) { return is_event(j, "config_rejected"); }, 10s);
  ASSERT_TRUE(rejected) << s.daemon_output();
  EXPECT_EQ((*rejected)["line"], 4);
  EXPECT_EQ((*rejected)["key"], "detect.conf");
  EXPECT_TRUE(s.notify->wait_for("READY=1", seen, 5s));
  const auto after_rejected = log.wait_for(
      [](const auto& j) {
        return is_interval(j) && j.value("precision", "") == "int8" && j.value("frames", 0) > 0;
      },
      5s, log.lines().size());
  ASSERT_TRUE(after_rejected) << s.daemon_output();

  // The log's disk turns read-only: a warning in the status, inference goes on, and the held
  // lines arrive once it is writable again.
  if (disk.mounted()) {
    ASSERT_TRUE(disk.set_read_only(true));
    seen = s.notify->messages().size();
    EXPECT_TRUE(s.notify->wait_for("STATUS=", seen, 5s));
    bool warned = false;
    const auto deadline = Clock::now() + 10s;
    while (!warned && Clock::now() < deadline) {
      for (const auto& m : s.notify->messages()) {
        warned = warned || m.find("field-log:") != std::string::npos;
      }
      std::this_thread::sleep_for(200ms);
    }
    EXPECT_TRUE(warned) << "no field-log warning in STATUS=";
    const std::size_t frozen = log.lines().size();
    std::this_thread::sleep_for(3s);
    EXPECT_EQ(log.lines().size(), frozen) << "lines were written to a read-only disk";
    ASSERT_TRUE(disk.set_read_only(false));
    // Three intervals passed while it was read-only: they arrive, in order.
    const auto back = log.wait_for([](const auto& j) { return is_interval(j); }, 10s, frozen + 3);
    EXPECT_TRUE(back) << "held lines did not arrive once the disk was writable";
  } else {
    std::cout << "[ SKIPPED  ] the read-only disk part: mounting a tmpfs needs root with "
                 "CAP_SYS_ADMIN\n";
  }

  // SIGTERM: exit 0 within 5 s, STOPPING, and the last partial interval written.
  seen = s.notify->messages().size();
  const auto stop_sent = Clock::now();
  daemon->signal(SIGTERM);
  const auto status = daemon->wait_exit(5s);
  ASSERT_TRUE(status) << "did not exit within 5 s after SIGTERM";
  EXPECT_EQ(*status, 0) << s.daemon_output();
  EXPECT_LT(Clock::now() - stop_sent, 5s);
  EXPECT_TRUE(s.notify->wait_for("STOPPING=1", seen, 1s));
  const auto lines = log.lines();
  ASSERT_GE(lines.size(), 2u);
  const auto stop_event =
      std::find_if(lines.begin(), lines.end(), [](const auto& j) { return is_event(j, "stop"); });
  ASSERT_NE(stop_event, lines.end());
  EXPECT_TRUE(is_interval(lines.back())) << lines.back().dump();
}

TEST(Service, ReopensASourceThatStops) {
  YOLO_REQUIRE_FIXTURES();
  DaemonSetup s;
  // Six photos at 10 fps, not looping: the "camera" stops after 0.6 s, again and again.
  s.write_config(
      config_text("  uri: " + fixture("images") + "\n  loop: false\n  realtime: true\n  fps: 10\n",
                  s.logs, "yolo11n_320_fp32"));
  auto daemon = s.start();
  FieldLogReader log(s.logs);
  ASSERT_TRUE(s.notify->wait_for("READY=1", 0, 60s)) << s.daemon_output();
  const auto lost = log.wait_for([](const auto& j) { return is_event(j, "source_lost"); }, 20s);
  ASSERT_TRUE(lost) << s.daemon_output();
  EXPECT_NE((*lost)["message"].get<std::string>().find("stopped delivering frames"),
            std::string::npos);
  // systemctl status says so at once, not at the status line's next refresh (5 s).
  const auto said = [&] {
    for (const std::string& m : s.notify->messages()) {
      if (m.rfind("STATUS=", 0) == 0 && m.find("; source ") != std::string::npos) return true;
    }
    return false;
  };
  const auto told_by = std::chrono::steady_clock::now() + 2s;
  while (!said() && std::chrono::steady_clock::now() < told_by) std::this_thread::sleep_for(50ms);
  EXPECT_TRUE(said()) << "no STATUS= line naming the lost source within 2 s";
  const auto reopened = log.wait_for(
      [](const auto& j) {
        return is_event(j, "source_opened") &&
               j.value("message", "").find("reopened") != std::string::npos;
      },
      20s);
  ASSERT_TRUE(reopened) << s.daemon_output();
  // Frames flow again after the reopening.
  ASSERT_TRUE(log.wait_for([](const auto& j) { return is_interval(j) && j.value("frames", 0) > 0; },
                           20s, log.lines().size()));
  daemon->signal(SIGTERM);
  EXPECT_EQ(daemon->wait_exit(5s), 0);
}

TEST(Service, InvalidConfigAtStartExitsWithConfigStatus) {
  DaemonSetup s;
  s.write_config("model:\n  path: /no/such/model.onnx\ndetect:\n  conf: 7\n");
  auto daemon = s.start();
  const auto status = daemon->wait_exit(10s);
  ASSERT_TRUE(status);
  EXPECT_EQ(*status, 78);
  const std::string out = s.daemon_output();
  EXPECT_NE(out.find("yolo-edge.yaml:4:9: detect.conf: 7 is out of range"), std::string::npos)
      << out;
  EXPECT_NE(out.find("model.path: no such file '/no/such/model.onnx'"), std::string::npos) << out;
}

}  // namespace
}  // namespace yolo::test
