// SPDX-License-Identifier: Apache-2.0
// GpioOutput with its real thread on a fake chip (tests/daemon/outputs/gpio/fake_chip.h): frames
// set an alert line off, the daemon's status drives the LED, a press calls the precision callback
// once, a line that cannot be had is a warning, and lines go at reload and stop.
#include "daemon/outputs/gpio/gpio_output.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "tests/daemon/outputs/gpio/fake_chip.h"
#include "tests/support/eventually.h"

namespace yolo::daemon {
namespace {

using namespace std::chrono_literals;
using gpio::test::FakeGpio;

// Waits up to 2 s for `done`.
bool eventually(const std::function<bool()>& done) {
  return test::eventually(done, 2s, 2ms);
}

std::shared_ptr<const FrameResult> frame_with(int class_id) {
  auto r = std::make_shared<FrameResult>();
  r->captured = std::chrono::steady_clock::now();
  r->detections = {{class_id, 0.9f, {0, 0, 10, 10}}};
  return r;
}

config::Config with_gpio(config::GpioConfig gpio) {
  config::Config c;
  c.gpio = std::move(gpio);
  return c;
}

class GpioPublisherTest : public ::testing::Test {
 protected:
  GpioPublisherTest() {
    gpio_.add_chip("gpiochip0", "pinctrl-bcm2711", 58);
    auto backend = std::make_unique<FakeGpio>(gpio_);
    publisher_ = std::make_unique<GpioOutput>(
        events_, [this](std::string_view request) { requests_.push_back(std::string(request)); },
        std::move(backend));
  }

  void start(const config::GpioConfig& gpio) {
    publisher_->configure(with_gpio(gpio));
    publisher_->start();
  }

  FakeGpio gpio_;
  Logger log_{Logger::Sink::kStderr, config::LogLevel::kError};
  Events events_{log_};
  // Written by the publisher's thread, read once it has stopped.
  std::vector<std::string> requests_;
  std::unique_ptr<GpioOutput> publisher_;
};

TEST_F(GpioPublisherTest, APressCallsTheCallbackOnce) {
  start({"gpiochip0",
         {},
         std::nullopt,
         config::GpioButtonConfig{22, "", true, config::GpioBias::kPullUp, 20}});
  ASSERT_TRUE(eventually([&] { return gpio_.holder("gpiochip0", 22) == "yolo-edged"; }));
  for (bool high : {false, true, false, true, false}) gpio_.input("gpiochip0", 22, high);
  ASSERT_TRUE(eventually([&] { return publisher_->status()["lines"][0]["presses"] == 1; }));
  std::this_thread::sleep_for(100ms);
  gpio_.input("gpiochip0", 22, true);
  std::this_thread::sleep_for(100ms);
  EXPECT_TRUE(publisher_->stop());
  EXPECT_EQ(requests_, std::vector<std::string>{"toggle"});
  EXPECT_EQ(gpio_.holder("gpiochip0", 22), "");
}

TEST_F(GpioPublisherTest, FramesSetAnAlertOffAndTheHoldLetsItGo) {
  start({"gpiochip0", {{17, "", {0}, 0.5, 1, 200, false, ""}}, std::nullopt, std::nullopt});
  ASSERT_TRUE(eventually([&] { return gpio_.level("gpiochip0", 17) == false; }));
  publisher_->publish(frame_with(2));
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(gpio_.level("gpiochip0", 17), false);
  const auto seen = frame_with(0);
  publisher_->publish(seen);
  EXPECT_TRUE(eventually([&] { return gpio_.level("gpiochip0", 17) == true; }));
  publisher_->publish(frame_with(2));
  // The hold (200 ms) ends without a new frame: the thread wakes for it.
  EXPECT_TRUE(eventually([&] { return gpio_.level("gpiochip0", 17) == false; }));
  const auto history = gpio_.history("gpiochip0", 17);
  ASSERT_EQ(history.size(), 3u);
  EXPECT_GE(history[2].time - seen->captured, 200ms);
  EXPECT_LT(history[2].time - seen->captured, 400ms);
}

// A frame of a person in zone `zone` (occupancy `inside`), on the scene tracking keeps.
std::shared_ptr<const FrameResult> frame_in_zone(const std::string& zone, int inside) {
  auto scene = std::make_shared<SceneState>();
  scene->camera = "main";
  scene->occupancy[zone] = inside;
  auto r = std::make_shared<FrameResult>(*frame_with(0));
  r->scene = std::move(scene);
  return r;
}

TEST_F(GpioPublisherTest, AZoneAlertFollowsTheZonesOccupancy) {
  config::GpioAlertConfig gate{17, "", {}, 0.5, 1, 200, false, "gate"};
  start({"gpiochip0", {gate}, std::nullopt, std::nullopt});
  ASSERT_TRUE(eventually([&] { return gpio_.level("gpiochip0", 17) == false; }));
  // A person seen, but not in the gate, or with tracking off (no scene): the line stays off.
  publisher_->publish(frame_in_zone("door", 1));
  publisher_->publish(frame_in_zone("gate", 0));
  publisher_->publish(frame_with(0));
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(gpio_.level("gpiochip0", 17), false);
  const auto in = frame_in_zone("gate", 2);
  publisher_->publish(in);
  EXPECT_TRUE(eventually([&] { return gpio_.level("gpiochip0", 17) == true; }));
  publisher_->publish(frame_in_zone("gate", 0));
  // The hold (200 ms) after the last occupied frame lets it go.
  EXPECT_TRUE(eventually([&] { return gpio_.level("gpiochip0", 17) == false; }));
  const auto history = gpio_.history("gpiochip0", 17);
  ASSERT_EQ(history.size(), 3u);
  EXPECT_GE(history[2].time - in->captured, 200ms);
}

TEST_F(GpioPublisherTest, TheLedShowsALostCameraFromTheStatus) {
  start({"gpiochip0", {}, config::GpioLedConfig{27, "", false}, std::nullopt});
  ASSERT_TRUE(eventually([&] { return gpio_.holder("gpiochip0", 27) == "yolo-edged"; }));
  DaemonStatus status;
  status.cameras.resize(2);
  status.cameras[0].name = "main";
  status.cameras[1].name = "yard";
  status.cameras.at(0).source.state = SourceState::kLost;
  publisher_->stats(status);
  EXPECT_TRUE(eventually([&] { return gpio_.level("gpiochip0", 27) == true; }));
  EXPECT_TRUE(eventually([&] { return publisher_->status()["lines"][0]["mode"] == "steady"; }));
  status.cameras.at(0).source.state = SourceState::kStreaming;
  status.last_error = LastError{"2026-11-26T00:00:00Z", "x"};
  publisher_->stats(status);
  EXPECT_TRUE(eventually([&] { return publisher_->status()["lines"][0]["mode"] == "fast-blink"; }));
}

TEST_F(GpioPublisherTest, AMissingChipIsAWarningAndTheRestRuns) {
  start({"gpiochip0",
         {{17, "gpiochip4", {}, 0.5, 1, 1000, false, ""}, {18, "", {}, 0.5, 1, 1000, false, ""}},
         std::nullopt,
         std::nullopt});
  ASSERT_TRUE(eventually([&] { return publisher_->status().contains("warning"); }));
  const nlohmann::json s = publisher_->status();
  EXPECT_FALSE(s["ok"]);
  EXPECT_EQ(s["library"], "fake GPIO");
  EXPECT_NE(s["warning"].get<std::string>().find("gpio.alerts[0]: no GPIO chip 'gpiochip4'"),
            std::string::npos)
      << s.dump();
  publisher_->publish(frame_with(5));
  EXPECT_TRUE(eventually([&] { return gpio_.level("gpiochip0", 18) == true; }));
}

TEST_F(GpioPublisherTest, AReloadReleasesWhatItDropsAndKeepsTheRest) {
  const config::GpioConfig first{"gpiochip0",
                                 {{17, "", {0}, 0.5, 1, 60000, false, ""}},
                                 config::GpioLedConfig{27, "", false},
                                 std::nullopt};
  start(first);
  publisher_->publish(frame_with(0));
  ASSERT_TRUE(eventually([&] { return gpio_.level("gpiochip0", 17) == true; }));
  config::GpioConfig second = first;
  second.status_led.reset();
  second.alerts[0].min_score = 0.8;
  publisher_->configure(with_gpio(second));
  EXPECT_TRUE(eventually([&] { return gpio_.holder("gpiochip0", 27).empty(); }));
  EXPECT_EQ(gpio_.requests("gpiochip0", 17), 1);
  EXPECT_TRUE(publisher_->stop());
  // Released inactive at stop.
  EXPECT_EQ(gpio_.holder("gpiochip0", 17), "");
  EXPECT_EQ(gpio_.level("gpiochip0", 17), std::nullopt);
  EXPECT_EQ(gpio_.history("gpiochip0", 17).back().high, false);
}

TEST_F(GpioPublisherTest, NothingConfiguredHoldsNothingAndStopsAtOnce) {
  start({"gpiochip0", {}, std::nullopt, std::nullopt});
  publisher_->publish(frame_with(0));
  const auto before = std::chrono::steady_clock::now();
  EXPECT_TRUE(publisher_->stop());
  EXPECT_LT(std::chrono::steady_clock::now() - before, 500ms);
  EXPECT_TRUE(publisher_->status()["ok"]);
  EXPECT_TRUE(publisher_->status()["lines"].empty());
}

}  // namespace
}  // namespace yolo::daemon
