// SPDX-License-Identifier: Apache-2.0
// yolo-edged with an RTSP H.264 camera beside a file camera, end to end: a local RTSP server
// (tests/support/rtsp_serve.py) serves the traffic clip; both cameras stream and detect. When the
// server is killed, or falls silent with its connections open, the RTSP camera goes lost while the
// file camera streams on; when the server is back, so is the camera.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/daemon/daemon_process.h"
#include "tests/daemon/status_client.h"
#include "tests/support/fixtures.h"
#include "tests/support/rtsp_server.h"

namespace yolo::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

class ServiceRtsp : public HttpDaemonTest {
 protected:
  nlohmann::json status() const { return api_status(port_); }
  static nlohmann::json camera_of(const nlohmann::json& s, const std::string& name) {
    for (const auto& c : s.value("cameras", nlohmann::json::array())) {
      if (c["name"] == name) return c;
    }
    return nlohmann::json::object();
  }
  static std::string state_of(const nlohmann::json& s, const std::string& name) {
    const nlohmann::json c = camera_of(s, name);
    return c.contains("source") ? c["source"].value("state", "") : "";
  }
  static std::int64_t detected(const nlohmann::json& s, const std::string& name) {
    return camera_of(s, name).value("detected", std::int64_t{0});
  }
  nlohmann::json wait_status(const std::function<bool(const nlohmann::json&)>& pred,
                             std::chrono::seconds timeout) const {
    return wait_for_status(port_, pred, timeout);
  }
  // For `period`, per camera: the frames detected (/api/detections) and those with an object.
  std::map<std::string, std::pair<int, int>> detections_for(std::chrono::seconds period) const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(10s);
    std::string received;
    const auto until = Clock::now() + period;
    c.Get("/api/detections", [&](const char* data, std::size_t size) {
      received.append(data, size);
      return Clock::now() < until;
    });
    std::map<std::string, std::pair<int, int>> frames;
    const std::string marker = "event: detections\ndata: ";
    for (std::size_t at = received.find(marker); at != std::string::npos;
         at = received.find(marker, at)) {
      at += marker.size();
      const auto end = received.find("\n\n", at);
      if (end == std::string::npos) break;
      const nlohmann::json e = nlohmann::json::parse(received.substr(at, end - at));
      auto& [all, with_objects] = frames[e.value("camera", "")];
      ++all;
      if (!e["detections"].empty()) ++with_objects;
    }
    return frames;
  }
};

TEST_F(ServiceRtsp, AnRtspCameraDropsAndReturnsWhileAFileCameraStreamsOn) {
  YOLO_REQUIRE_FIXTURES();
  RtspServer server(fixture("video/traffic_720p_30fps.mp4"), s_.folder.path() / "rtsp.log");
  if (!server.start()) {
    if (server.missing_tools()) GTEST_SKIP() << server.problem();
    FAIL() << server.problem();
  }
  std::string config = config_text(paced_video(), s_.logs, "yolo11n_320_fp32", "",
                                   "  listen: 127.0.0.1:0\n  auth: none\n");
  config.erase(0, config.find("model:\n"));
  const std::string road = fixture("video/traffic_720p_30fps.mp4");
  config = "cameras:\n  - {name: street, uri: \"" + server.url() +
           "\", reconnect_s: 0.5, detect_fps: 4}\n  - {name: road, uri: \"" + road +
           "\", loop: true, realtime: true, reconnect_s: 0.5, detect_fps: 4}\n" + config;
  start_serving(config, 60s);
  if (HasFatalFailure()) return;

  auto both_streaming = [](std::int64_t street_after, std::int64_t road_after) {
    return [=](const nlohmann::json& j) {
      return state_of(j, "street") == "streaming" && state_of(j, "road") == "streaming" &&
             detected(j, "street") > street_after && detected(j, "road") > road_after;
    };
  };
  nlohmann::json s = wait_status(both_streaming(10, 10), 90s);
  ASSERT_TRUE(both_streaming(10, 10)(s)) << s.dump(1) << s_.daemon_output();
  const std::string described = camera_of(s, "street")["source"].value("description", "");
  EXPECT_NE(described.find("network stream " + server.url() + " (1280x720"), std::string::npos)
      << described;
  // Both see the clip's vehicles.
  const auto frames = detections_for(4s);
  for (const char* name : {"street", "road"}) {
    const auto it = frames.find(name);
    ASSERT_NE(it, frames.end()) << name << " sent no detections";
    EXPECT_GT(it->second.second, 0) << name << ": no frame with an object in " << it->second.first;
  }

  // The server killed: its connection closes, the camera is lost at once; the road streams on.
  server.kill();
  s = wait_status([](const nlohmann::json& j) { return state_of(j, "street") == "lost"; }, 15s);
  ASSERT_EQ(state_of(s, "street"), "lost") << s.dump(1);
  EXPECT_FALSE(camera_of(s, "street")["source"].value("last_error", "").empty()) << s.dump(1);
  EXPECT_NE(s.value("status_line", "").find("camera street lost"), std::string::npos)
      << s.value("status_line", "");
  // Detected on at its pace meanwhile (a few seconds; longer on a busy machine).
  const std::int64_t road_before = detected(s, "road");
  s = wait_status([&](const nlohmann::json& j) { return detected(j, "road") >= road_before + 8; },
                  30s);
  EXPECT_GE(detected(s, "road"), road_before + 8) << "the road was held up: " << s.dump(1);
  EXPECT_EQ(state_of(s, "road"), "streaming");
  EXPECT_EQ(camera_of(s, "road")["source"]["reopened"], 0);
  EXPECT_EQ(state_of(s, "street"), "lost") << "no server, no stream";

  // The server back on its port: the camera reopens on its next retry.
  ASSERT_TRUE(server.start()) << server.problem();
  const std::int64_t street_before = detected(s, "street");
  s = wait_status(both_streaming(street_before + 4, 0), 60s);
  ASSERT_TRUE(both_streaming(street_before + 4, 0)(s)) << s.dump(1);
  EXPECT_GE(camera_of(s, "street")["source"]["reopened"], 1);

  // The server silent with its connection open (a camera cut off the network): the read waits
  // for the stream's timeout (5 s), not FFmpeg's own 30 s, and the road streams on meanwhile.
  server.freeze();
  const auto frozen = Clock::now();
  s = wait_status([](const nlohmann::json& j) { return state_of(j, "street") == "lost"; }, 25s);
  EXPECT_EQ(state_of(s, "street"), "lost") << s.dump(1);
  EXPECT_LT(Clock::now() - frozen, 15s);
  EXPECT_EQ(state_of(s, "road"), "streaming");
  EXPECT_EQ(camera_of(s, "road")["source"]["reopened"], 0);
  server.thaw();
  server.kill();
  ASSERT_TRUE(server.start()) << server.problem();
  const std::int64_t street_then = detected(status(), "street");
  s = wait_status(both_streaming(street_then + 4, 0), 60s);
  EXPECT_TRUE(both_streaming(street_then + 4, 0)(s)) << s.dump(1);

  server.kill();
  daemon_->signal(SIGTERM);
  const auto exit = daemon_->wait_exit(10s);
  ASSERT_TRUE(exit);
  EXPECT_EQ(*exit, 0) << s_.daemon_output();
}

}  // namespace
}  // namespace yolo::test
