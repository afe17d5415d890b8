// SPDX-License-Identifier: Apache-2.0
// yolo-edged with several cameras, end to end on two real clips: one model serves both, each at
// its detect fps; a reload that adds, changes or removes a camera leaves the others streaming; a
// camera whose source never opens leaves the others running and says so; a reload that breaks a
// camera is refused with its key and line, and every camera keeps what it had.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

#include "tests/daemon/daemon_process.h"
#include "tests/daemon/status_client.h"
#include "tests/support/fixtures.h"

namespace yolo::test {
namespace {

using namespace std::chrono_literals;

std::string camera(const std::string& name, const std::string& uri, double detect_fps) {
  return "  - {name: " + name + ", uri: \"" + uri +
         "\", loop: true, realtime: true, reconnect_s: 0.5, detect_fps: " +
         std::to_string(detect_fps) + "}\n";
}

std::string with_cameras(const std::string& cameras, const std::filesystem::path& logs) {
  std::string text = config_text(paced_video(), logs, "yolo11n_320_fp32", "",
                                 "  listen: 127.0.0.1:0\n  auth: none\n");
  // Cameras instead of the source section.
  text.erase(0, text.find("model:\n"));
  return "cameras:\n" + cameras + text;
}

class ServiceCameras : public HttpDaemonTest {
 protected:
  std::string two_cameras(const std::string& cameras) const {
    return with_cameras(cameras, s_.logs);
  }
  nlohmann::json status() const { return api_status(port_); }
  static std::optional<nlohmann::json> camera_of(const nlohmann::json& s, const std::string& name) {
    for (const auto& c : s.value("cameras", nlohmann::json::array())) {
      if (c["name"] == name) return c;
    }
    return std::nullopt;
  }
  nlohmann::json wait_status(const std::function<bool(const nlohmann::json&)>& pred,
                             std::chrono::seconds timeout) const {
    return wait_for_status(port_, pred, timeout);
  }
  void reload(const std::string& config, const std::string& marker) {
    s_.write_config(config);
    const std::size_t before = s_.daemon_output().size();
    daemon_->signal(SIGHUP);
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (s_.daemon_output().find(marker, before) == std::string::npos &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(50ms);
    }
    ASSERT_NE(s_.daemon_output().find(marker, before), std::string::npos) << s_.daemon_output();
  }
};

TEST_F(ServiceCameras, TwoCamerasShareOneModelAndAReloadTouchesOnlyTheCameraItChanges) {
  YOLO_REQUIRE_FIXTURES();
  const std::string road = fixture("video/traffic_720p_30fps.mp4");
  const std::string birds = fixture("video/birds_720p_10fps.mp4");
  start_serving(two_cameras(camera("road", road, 4) + camera("birds", birds, 4)), 60s);
  if (HasFatalFailure()) return;

  // Both detected at their 4 fps (the road's 30 fps source and the birds' 10 fps alike).
  auto s = wait_status(
      [](const nlohmann::json& j) {
        const auto r = camera_of(j, "road");
        const auto b = camera_of(j, "birds");
        return r && b && (*r)["detected"] >= 20 && (*b)["detected"] >= 20;
      },
      90s);
  ASSERT_TRUE(camera_of(s, "road") && camera_of(s, "birds")) << s.dump(1);
  for (const char* name : {"road", "birds"}) {
    const nlohmann::json c = *camera_of(s, name);
    ASSERT_GE(c["detected"], 20) << s.dump(1);
    EXPECT_EQ(c["source"]["state"], "streaming") << name;
    // At most its detect fps; its 4 on a quiet machine, less when other tests load the cores
    // (1.8 seen beside three other daemons on 2 cores), but never starved.
    EXPECT_LE(c["detection_fps"].get<double>(), 4.5) << name << ": " << c.dump();
    EXPECT_GE(c["detection_fps"].get<double>(), 1) << name << ": " << c.dump();
    EXPECT_GT(c["camera_fps"].get<double>(), c["detection_fps"].get<double>()) << name;
  }
  // Fair turns: neither camera takes the other's.
  EXPECT_NEAR((*camera_of(s, "road"))["detection_fps"].get<double>(),
              (*camera_of(s, "birds"))["detection_fps"].get<double>(), 1)
      << s.dump(1);
  EXPECT_EQ(s["source"], (*camera_of(s, "road"))["source"]) << "the first camera's";
  const std::int64_t road_detected = (*camera_of(s, "road"))["detected"];

  // Each camera's snapshot is its own; /snapshot.jpg is the first camera's; a camera there is
  // not is a 404 naming those there are.
  httplib::Client c("127.0.0.1", port_);
  c.set_read_timeout(15s);
  const auto road_jpeg = c.Get("/cameras/road/snapshot.jpg");
  const auto birds_jpeg = c.Get("/cameras/birds/snapshot.jpg");
  ASSERT_TRUE(road_jpeg && birds_jpeg);
  EXPECT_EQ(road_jpeg->status, 200) << road_jpeg->body;
  EXPECT_EQ(birds_jpeg->status, 200) << birds_jpeg->body;
  EXPECT_EQ(road_jpeg->get_header_value("Content-Type"), "image/jpeg");
  const cv::Mat road_image =
      cv::imdecode(std::vector<unsigned char>(road_jpeg->body.begin(), road_jpeg->body.end()),
                   cv::IMREAD_GRAYSCALE);
  const cv::Mat birds_image =
      cv::imdecode(std::vector<unsigned char>(birds_jpeg->body.begin(), birds_jpeg->body.end()),
                   cv::IMREAD_GRAYSCALE);
  ASSERT_FALSE(road_image.empty());
  ASSERT_FALSE(birds_image.empty());
  // Two different scenes: far apart pixel by pixel (two frames of one clip would be close).
  EXPECT_GT(cv::norm(road_image, birds_image, cv::NORM_L1) / road_image.total(), 20);
  const auto missing = c.Get("/cameras/garage/stream.mjpg");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_NE(missing->body.find("the cameras are road, birds"), std::string::npos) << missing->body;

  // A third camera whose stream never opens, and the birds at 1 fps: the road is left alone.
  reload(two_cameras(camera("road", road, 4) + camera("birds", birds, 1) +
                     camera("gone", "rtsp://127.0.0.1:1/nothing", 2)),
         "reloaded");
  s = wait_status(
      [](const nlohmann::json& j) {
        const auto g = camera_of(j, "gone");
        return g && (*g)["source"]["state"] == "lost";
      },
      60s);
  const auto gone = camera_of(s, "gone");
  ASSERT_TRUE(gone) << s.dump(1);
  EXPECT_EQ((*gone)["source"]["state"], "lost");
  EXPECT_FALSE((*gone)["source"].value("last_error", "").empty()) << gone->dump();
  EXPECT_NE(s_.daemon_output().find("camera gone: "), std::string::npos) << s_.daemon_output();
  EXPECT_NE(s["status_line"].get<std::string>().find("camera gone lost"), std::string::npos)
      << s["status_line"];
  std::this_thread::sleep_for(6s);
  s = status();
  const nlohmann::json road_now = *camera_of(s, "road");
  EXPECT_EQ(road_now["source"]["reopened"], 0) << "the road was never reopened";
  EXPECT_EQ(road_now["source"]["state"], "streaming");
  // Still detected (at its 4 fps on a quiet machine; at least a frame a second on a busy one).
  EXPECT_GT(road_now["detected"].get<std::int64_t>(), road_detected + 6);
  EXPECT_NEAR((*camera_of(s, "birds"))["detection_fps"].get<double>(), 1, 0.5) << s.dump(1);
  EXPECT_EQ((*camera_of(s, "birds"))["source"]["reopened"], 0) << "only its detect fps changed";

  // A reload that breaks one camera is refused, naming the key and the line: all three go on.
  reload(two_cameras(camera("road", road, 4) + camera("birds", birds, -3)), "refused");
  const std::string out = s_.daemon_output();
  EXPECT_NE(out.find(":3:"), std::string::npos) << out;
  EXPECT_NE(out.find("cameras[1].detect_fps"), std::string::npos) << out;
  EXPECT_NE(out.find("(camera 'birds')"), std::string::npos) << out;
  EXPECT_EQ(status()["cameras"].size(), 3u);

  // Removing two leaves the road alone, still never reopened.
  reload(two_cameras(camera("road", road, 4)), "reloaded");
  s = wait_status([](const nlohmann::json& j) { return j["cameras"].size() == 1; }, 20s);
  ASSERT_EQ(s["cameras"].size(), 1u) << s.dump(1);
  EXPECT_EQ(s["cameras"][0]["name"], "road");
  // A camera removed has no address any more: a 404 naming the cameras there are.
  const auto removed = c.Get("/cameras/birds/snapshot.jpg");
  ASSERT_TRUE(removed);
  EXPECT_EQ(removed->status, 404) << removed->body;
  EXPECT_NE(removed->body.find("the cameras are road"), std::string::npos) << removed->body;
  const std::int64_t detected = s["cameras"][0]["detected"];
  std::this_thread::sleep_for(2s);
  s = status();
  EXPECT_GT(s["cameras"][0]["detected"].get<std::int64_t>(), detected);
  EXPECT_EQ(s["cameras"][0]["source"]["reopened"], 0);

  daemon_->signal(SIGTERM);
  const auto exit = daemon_->wait_exit(10s);
  ASSERT_TRUE(exit);
  EXPECT_EQ(*exit, 0) << s_.daemon_output();
}

// A camera whose scene stands still, with motion on, runs the model only at its whole-frame
// passes and keeps reporting the cars it found; the other camera, with motion off, is detected
// whole at every frame. A reload turns motion on for the other too without reopening either, and
// a mask outside the frame is refused with its key and line.
TEST_F(ServiceCameras, MotionRunsTheModelWhereSomethingMovedAndKeepsWhatStandsStill) {
  YOLO_REQUIRE_FIXTURES();
  const std::string road = fixture("video/traffic_720p_30fps.mp4");
  // A still scene: one frame of the road, as a 2 s video the camera loops.
  cv::VideoCapture clip(road);
  cv::Mat frame;
  ASSERT_TRUE(clip.read(frame));
  const std::string still = (s_.folder.path() / "still.avi").string();
  {
    cv::VideoWriter out(still, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 10, frame.size());
    ASSERT_TRUE(out.isOpened());
    for (int i = 0; i < 20; ++i) out.write(frame);
  }
  const std::string motion_on =
      "  - {name: still, uri: \"" + still + "\", loop: true, detect_fps: 5, motion: on}\n";
  start_serving(two_cameras(motion_on + camera("road", road, 5)), 60s);
  if (HasFatalFailure()) return;

  auto s = wait_status(
      [](const nlohmann::json& j) {
        const auto c = camera_of(j, "still");
        return c && c->contains("motion") && (*c)["motion"]["frames"] >= 40;
      },
      90s);
  ASSERT_TRUE(camera_of(s, "still")) << s.dump(1);
  const nlohmann::json m = (*camera_of(s, "still"))["motion"];
  ASSERT_GE(m["frames"], 40) << s.dump(1);
  // Whole every 10 s (and once where the cars were first found): the rest still.
  EXPECT_GE(m["still_share"].get<double>(), 0.85) << m.dump();
  EXPECT_LE(m["runs_per_frame"].get<double>(), 0.15) << m.dump();
  EXPECT_GT(m["ms_p50"].get<double>(), 0) << m.dump();
  EXPECT_FALSE(camera_of(s, "road")->contains("motion")) << "motion is off for the road";

  // Still frames report the cars of the last pass, and say how they were detected.
  httplib::Client c("127.0.0.1", port_);
  c.set_read_timeout(20s);
  std::string received;
  std::optional<nlohmann::json> still_frame;
  c.Get("/api/detections", [&](const char* data, std::size_t size) {
    received.append(data, size);
    for (std::size_t at = 0; (at = received.find("data: {", at)) != std::string::npos;) {
      const auto end = received.find("\n\n", at);
      if (end == std::string::npos) break;
      const auto j = nlohmann::json::parse(received.substr(at + 6, end - at - 6), nullptr, false);
      at = end;
      if (j.is_object() && j.value("camera", "") == "still" && j.contains("motion") &&
          j["motion"]["pass"] == "still") {
        still_frame = j;
      }
    }
    return !still_frame;
  });
  ASSERT_TRUE(still_frame) << received.substr(0, 2000);
  EXPECT_FALSE((*still_frame)["detections"].empty()) << still_frame->dump();
  EXPECT_TRUE((*still_frame)["motion"]["regions"].empty());

  // Motion on for the road too; neither camera reopens.
  std::string road_motion = camera("road", road, 5);
  road_motion.insert(road_motion.rfind('}'), ", motion: on");
  reload(two_cameras(motion_on + road_motion), "reloaded");
  s = wait_status(
      [](const nlohmann::json& j) {
        const auto r = camera_of(j, "road");
        return r && r->contains("motion") && (*r)["motion"]["frames"] >= 10;
      },
      30s);
  ASSERT_TRUE(camera_of(s, "road") && camera_of(s, "road")->contains("motion")) << s.dump(1);
  EXPECT_EQ((*camera_of(s, "road"))["source"]["reopened"], 0);
  EXPECT_EQ((*camera_of(s, "still"))["source"]["reopened"], 0);

  // A mask with a corner outside the frame: refused, its key and line said; nothing changes.
  reload(two_cameras(motion_on + camera("road", road, 5)) +
             "motion_masks:\n  - {camera: road, points: [[0, 0], [1.5, 0], [0.5, 0.5]]}\n",
         "refused");
  const std::string out = s_.daemon_output();
  EXPECT_NE(out.find("motion_masks[0].points[1]"), std::string::npos) << out;
  EXPECT_NE(out.find("outside the frame"), std::string::npos) << out;
  EXPECT_TRUE(camera_of(status(), "road")->contains("motion")) << "the road keeps its motion";

  daemon_->signal(SIGTERM);
  const auto exit = daemon_->wait_exit(10s);
  ASSERT_TRUE(exit);
  EXPECT_EQ(*exit, 0) << s_.daemon_output();
}

}  // namespace
}  // namespace yolo::test
