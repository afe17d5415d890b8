// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/gpio/controller.h"

#include <gtest/gtest.h>

#include "tests/daemon/outputs/gpio/fake_chip.h"

namespace yolo::daemon::gpio {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using test::FakeGpio;
using Clock = Controller::Clock;

const Clock::time_point t0 = Clock::time_point() + std::chrono::hours(1);

vision::Detections person(float score = 0.9f) {
  return {vision::Detection{0, score, {0, 0, 10, 10}}};
}

config::GpioAlertConfig alert(int line, int hold_ms = 1000, int frames = 1) {
  return {line, "", {0}, 0.5, frames, hold_ms, false, ""};
}

// A controller on a fake Pi 4 header, run on a clock the test moves.
class ControllerTest : public ::testing::Test {
 protected:
  ControllerTest() {
    gpio_.add_chip("gpiochip0", "pinctrl-bcm2711", 58);
    gpio_.set_time(t0);
  }

  // Moves the clock to t0 + `at` and runs the controller there, as its thread would.
  void at(milliseconds t) {
    now_ = t0 + t;
    gpio_.set_time(now_);
    presses_ += controller_.read_button(now_);
    controller_.update(now_);
  }
  // The physical levels line `offset` went through, with the time of each from t0.
  std::vector<std::pair<long, bool>> wire(unsigned offset) const {
    std::vector<std::pair<long, bool>> out;
    for (const auto& c : gpio_.history("gpiochip0", offset)) {
      out.emplace_back(std::chrono::duration_cast<milliseconds>(c.time - t0).count(), c.high);
    }
    return out;
  }

  FakeGpio gpio_;
  Controller controller_{gpio_};
  Clock::time_point now_ = t0;
  int presses_ = 0;
};

TEST_F(ControllerTest, AnAlertLineFollowsItsRuleOnTheWire) {
  config::GpioConfig c{"gpiochip0", {alert(17, 1000, 2)}, std::nullopt, std::nullopt};
  c.alerts[0].active_low = true;
  EXPECT_TRUE(controller_.configure(c).empty());
  EXPECT_EQ(gpio_.holder("gpiochip0", 17), "yolo-edged");
  controller_.frame(person(), t0 + milliseconds(100));
  at(milliseconds(100));
  controller_.frame(person(), t0 + milliseconds(200));
  at(milliseconds(200));
  controller_.frame({}, t0 + milliseconds(300));
  at(milliseconds(300));
  at(milliseconds(1199));
  at(milliseconds(1200));
  at(milliseconds(5000));
  // Requested inactive (high: active_low), low from the second frame, high again 1 s after it.
  EXPECT_EQ(wire(17), (std::vector<std::pair<long, bool>>{{0, true}, {200, false}, {1200, true}}));
  const nlohmann::json s = controller_.status();
  EXPECT_TRUE(s["ok"]);
  EXPECT_EQ(s["lines"][0]["use"], "gpio.alerts[0]");
  EXPECT_EQ(s["lines"][0]["active"], false);
}

TEST_F(ControllerTest, UpdateSaysWhenTheNextChangeIsDue) {
  controller_.configure(
      {"gpiochip0", {alert(17, 1500)}, config::GpioLedConfig{27, "", false}, std::nullopt});
  controller_.frame(person(), t0);
  // The LED's heartbeat flash ends first, the hold later.
  EXPECT_EQ(controller_.update(t0), t0 + StatusLed::kHeartbeatOn);
  EXPECT_EQ(controller_.update(t0 + milliseconds(1900)), t0 + AlertRule::kSightingStands);
}

TEST_F(ControllerTest, TheLedShowsHeartbeatLostCameraAndErrors) {
  controller_.configure({"gpiochip0", {}, config::GpioLedConfig{27, "", false}, std::nullopt});
  at(milliseconds(0));
  // Frames flow: a flash a second.
  for (int ms = 0; ms <= 2000; ms += 50) {
    controller_.frame({}, t0 + milliseconds(ms));
    at(milliseconds(ms));
  }
  EXPECT_EQ(controller_.status()["lines"][0]["mode"], "heartbeat");
  EXPECT_EQ(wire(27),
            (std::vector<std::pair<long, bool>>{
                {0, false}, {0, true}, {100, false}, {1000, true}, {1100, false}, {2000, true}}));
  // The camera is lost: steady on, whatever frames did before.
  controller_.daemon_state({false, true});
  at(milliseconds(2150));
  at(milliseconds(3000));
  EXPECT_EQ(gpio_.level("gpiochip0", 27), true);
  EXPECT_EQ(controller_.status()["lines"][0]["mode"], "steady");
  // An error: fast blinking (on 100 ms, off 100 ms).
  controller_.daemon_state({true, true});
  for (int ms = 3000; ms < 3400; ms += 50) at(milliseconds(ms));
  const auto w = wire(27);
  ASSERT_GE(w.size(), 3u);
  EXPECT_EQ(std::vector(w.end() - 3, w.end()),
            (std::vector<std::pair<long, bool>>{{3100, false}, {3200, true}, {3300, false}}));
  EXPECT_EQ(controller_.status()["lines"][0]["mode"], "fast-blink");
  // No frames for 2 s and nothing wrong: off.
  controller_.daemon_state({false, false});
  at(milliseconds(4100));
  EXPECT_EQ(gpio_.level("gpiochip0", 27), false);
}

TEST_F(ControllerTest, FramesEveryTenSecondsAreAHeartbeatAndTheirStopIsNoticed) {
  controller_.configure({"gpiochip0", {}, config::GpioLedConfig{27, "", false}, std::nullopt});
  // A slow device (or a 0.1 FPS camera): a frame every 10 s is work going on, not a stall.
  for (int s = 0; s <= 60; ++s) {
    if (s % 10 == 0) controller_.frame({}, t0 + seconds(s));
    at(seconds(s) + milliseconds(500));
    // From the second frame on, when the interval is known.
    if (s >= 10) {
      EXPECT_EQ(controller_.status()["lines"][0]["mode"], "heartbeat") << "at " << s << " s";
    }
  }
  // Frames stop: after 2.5 usual intervals the LED says so.
  at(seconds(60 + 24));
  EXPECT_EQ(controller_.status()["lines"][0]["mode"], "heartbeat");
  at(seconds(60 + 26));
  EXPECT_EQ(controller_.status()["lines"][0]["mode"], "off");
}

TEST_F(ControllerTest, ABouncingButtonPressIsOnePress) {
  controller_.configure({"gpiochip0",
                         {},
                         std::nullopt,
                         config::GpioButtonConfig{22, "", true, config::GpioBias::kPullUp, 50}});
  EXPECT_EQ(gpio_.bias("gpiochip0", 22), Bias::kPullUp);
  at(milliseconds(0));
  EXPECT_GE(controller_.button_fd(), 0);
  EXPECT_FALSE(controller_.button_polled());
  // Pressed (to ground), bouncing.
  for (bool high : {false, true, false, true, false}) gpio_.input("gpiochip0", 22, high);
  at(milliseconds(10));
  at(milliseconds(59));
  EXPECT_EQ(presses_, 0);
  at(milliseconds(60));
  EXPECT_EQ(presses_, 1);
  // Held, then released with bounces: no second press.
  at(milliseconds(800));
  for (bool high : {true, false, true, false, true}) gpio_.input("gpiochip0", 22, high);
  at(milliseconds(810));
  at(milliseconds(900));
  EXPECT_EQ(presses_, 1);
  // A 20 ms glitch is no press.
  gpio_.input("gpiochip0", 22, false);
  at(milliseconds(1000));
  gpio_.input("gpiochip0", 22, true);
  at(milliseconds(1020));
  at(milliseconds(1200));
  EXPECT_EQ(presses_, 1);
  EXPECT_EQ(controller_.status()["lines"][0]["presses"], 1);
}

TEST_F(ControllerTest, AButtonOnAChipWithoutEdgesIsPolled) {
  gpio_.add_chip("gpiochip2", "pca9555", 16, false);
  controller_.configure(
      {"gpiochip0",
       {},
       std::nullopt,
       config::GpioButtonConfig{3, "gpiochip2", false, config::GpioBias::kPullDown, 20}});
  EXPECT_TRUE(controller_.button_polled());
  EXPECT_EQ(controller_.button_fd(), -1);
  at(milliseconds(0));
  gpio_.input("gpiochip2", 3, true);
  at(milliseconds(10));
  at(milliseconds(30));
  EXPECT_EQ(presses_, 1);
  EXPECT_EQ(controller_.status()["lines"][0]["read_by"], "polling");
}

TEST_F(ControllerTest, ALineThatCannotBeHadIsAProblemAndTheOthersWork) {
  gpio_.hold("gpiochip0", 5, "buzzer.py");
  const std::vector<std::string> problems =
      controller_.configure({"gpiochip0",
                             {alert(5),
                              alert(6, 1000),
                              {60, "", {}, 0.5, 1, 1000, false, ""},
                              {7, "gpiochip9", {}, 0.5, 1, 1000, false, ""}},
                             std::nullopt,
                             std::nullopt});
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_NE(problems[0].find("gpio.alerts[0]: line 5 of gpiochip0 is in use by 'buzzer.py'"),
            std::string::npos);
  EXPECT_NE(problems[1].find("gpio.alerts[2]: gpiochip0 (pinctrl-bcm2711) has lines 0 to 57"),
            std::string::npos);
  EXPECT_NE(problems[2].find("gpio.alerts[3]: no GPIO chip 'gpiochip9'"), std::string::npos);
  controller_.frame(person(), t0);
  at(milliseconds(0));
  EXPECT_EQ(gpio_.level("gpiochip0", 6), true);
  EXPECT_EQ(gpio_.holder("gpiochip0", 5), "buzzer.py");
  const nlohmann::json s = controller_.status();
  EXPECT_FALSE(s["ok"]);
  EXPECT_NE(s["warning"].get<std::string>().find("gpio.alerts[0]: line 5 of gpiochip0 is in use"),
            std::string::npos);
  EXPECT_EQ(s["lines"][1]["active"], true);
  // Freed and reloaded: tried again.
  gpio_.hold("gpiochip0", 5, "");
  EXPECT_EQ(controller_.configure({"gpiochip0", {alert(5), alert(6)}, std::nullopt, std::nullopt}),
            std::vector<std::string>{});
  EXPECT_TRUE(controller_.status()["ok"]);
}

TEST_F(ControllerTest, AReloadRequestsOnlyWhatChanged) {
  const config::GpioConfig first{
      "gpiochip0",
      {alert(5), alert(6)},
      config::GpioLedConfig{27, "", false},
      config::GpioButtonConfig{22, "", true, config::GpioBias::kPullUp, 50}};
  controller_.configure(first);
  controller_.frame(person(), t0);
  at(milliseconds(0));
  config::GpioConfig second = first;
  second.alerts[1].active_low = true;  // a new request
  second.alerts[0].hold_ms = 5000;     // the rule only: the line stays
  second.precision_button->debounce_ms = 20;
  second.status_led.reset();  // released
  controller_.configure(second);
  EXPECT_EQ(gpio_.requests("gpiochip0", 5), 1);
  EXPECT_EQ(gpio_.requests("gpiochip0", 6), 2);
  EXPECT_EQ(gpio_.requests("gpiochip0", 22), 1);
  EXPECT_EQ(gpio_.holder("gpiochip0", 27), "");
  // Released inactive.
  EXPECT_EQ(gpio_.history("gpiochip0", 27).back().high, false);
  // The same section again changes nothing.
  controller_.configure(second);
  EXPECT_EQ(gpio_.requests("gpiochip0", 6), 2);
  // A line moved to another chip spelling is requested again.
  second.chip = "pinctrl-bcm2711";
  controller_.configure(second);
  EXPECT_EQ(gpio_.requests("gpiochip0", 5), 2);
}

TEST_F(ControllerTest, LinesAreReleasedInactiveWhenItGoes) {
  {
    Controller c(gpio_);
    c.configure({"gpiochip0",
                 {alert(5)},
                 std::nullopt,
                 config::GpioButtonConfig{22, "", true, config::GpioBias::kPullUp, 50}});
    c.frame(person(), t0);
    c.update(t0);
    EXPECT_EQ(gpio_.level("gpiochip0", 5), true);
  }
  EXPECT_EQ(gpio_.holder("gpiochip0", 5), "");
  EXPECT_EQ(gpio_.holder("gpiochip0", 22), "");
  EXPECT_EQ(gpio_.history("gpiochip0", 5).back().high, false);
}

}  // namespace
}  // namespace yolo::daemon::gpio
