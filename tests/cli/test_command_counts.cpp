// SPDX-License-Identifier: Apache-2.0
// yolo-edge counts against the real yolo-edged: it reads the counts of the daemon's counting line
// over its API, logging in with the config's password, starts them again with --reset, and says
// what is wrong when the name, the login or the daemon is.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "tests/cli/run_cli.h"
#include "tests/daemon/daemon_process.h"

namespace yolo::test {
namespace {

using namespace std::chrono_literals;

class CliCounts : public HttpDaemonTest {
 protected:
  void SetUp() override {
    YOLO_REQUIRE_FIXTURES();
    // The traffic clip read once, every frame: 11 vehicles cross (tests/tracking/data).
    std::string config = config_text("  uri: " + fixture("video/traffic_720p_30fps.mp4") +
                                         "\n  loop: false\n  realtime: false\n",
                                     s_.logs, "yolo11n_320_fp32", "",
                                     "  listen: 127.0.0.1:0\n  password: counting-pass-1\n");
    // Not reopened while the test runs.
    const std::string quick = "reconnect_s: 0.5";
    config.replace(config.find(quick), quick.size(), "reconnect_s: 600");
    start_serving(config +
                      "lines:\n"
                      "  - name: near_carriageway\n"
                      "    from: [0.08, 0.55]\n"
                      "    to: [0.85, 0.55]\n"
                      "    in: below\n"
                      "    classes: [car, truck, bus, motorcycle]\n",
                  60s);
    ASSERT_TRUE(s_.wait_for_output("stopped delivering frames", 120s)) << s_.daemon_output();
  }

  CliResult counts(std::vector<std::string> more) const {
    std::vector<std::string> args{"counts", "--config", s_.config.string(), "--url",
                                  "http://127.0.0.1:" + std::to_string(port_)};
    args.insert(args.end(), more.begin(), more.end());
    return run_cli(args);
  }
};

TEST_F(CliCounts, ShowsAndResetsALinesCounts) {
  const CliResult shown = counts({});
  ASSERT_EQ(shown.status, 0) << shown.err;
  expect_contains_all(shown.out, {"line near_carriageway (camera main)", "11 in, 0 out", "car"});

  const CliResult json = counts({"--json"});
  ASSERT_EQ(json.status, 0) << json.err;
  const auto parsed = nlohmann::json::parse(json.out);
  EXPECT_EQ(parsed["places"][0]["all"]["in"], 11) << json.out;

  const CliResult unknown = counts({"--reset", "nowhere"});
  EXPECT_EQ(unknown.status, 2);
  expect_contains_all(unknown.err, {"404", "nowhere", "near_carriageway"});

  const CliResult reset = counts({"--reset", "near_carriageway"});
  ASSERT_EQ(reset.status, 0) << reset.err;
  expect_contains_all(reset.out, {"near_carriageway", "start again"});
  // Applied by the inference thread, at once although no frame comes (the clip has ended).
  bool zero = false;
  for (int i = 0; i < 50 && !zero; ++i) {
    zero = contains(counts({}).out, "0 in, 0 out");
    if (!zero) std::this_thread::sleep_for(100ms);
  }
  EXPECT_TRUE(zero) << counts({}).out;
}

TEST_F(CliCounts, SaysWhatIsWrongWithTheLoginTheAddressAndTheDaemon) {
  const CliResult wrong = counts({"--token", "not-the-password"});
  EXPECT_EQ(wrong.status, 2);
  expect_contains_all(wrong.err, {"401", "--token"});

  // The config's own address is port 0: the CLI cannot know which port the daemon took.
  const CliResult no_port = run_cli({"counts", "--config", s_.config.string()});
  EXPECT_EQ(no_port.status, 2);
  expect_contains_all(no_port.err, {"port 0", "--url"});

  daemon_->signal(SIGTERM);
  ASSERT_TRUE(daemon_->wait_exit(10s));
  const CliResult gone = counts({});
  EXPECT_EQ(gone.status, 1);
  expect_contains_all(gone.err, {"cannot reach yolo-edged", "systemctl status yolo-edged"});
}

}  // namespace
}  // namespace yolo::test
