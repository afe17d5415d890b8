// SPDX-License-Identifier: Apache-2.0
// The libgpiod backend against the kernel. Built twice: test_libgpiod on the installed libgpiod
// (v1 on bookworm) and test_libgpiod_v2 on the libgpiod 2 sources in ../shared/third_party.
// Without a GPIO chip only the failures can be checked; with the kernel's gpio-sim (configfs,
// root) a simulated chip is made and every kind of request runs on it.
#include "daemon/outputs/gpio/libgpiod.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace yolo::daemon::gpio {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

const fs::path kSimRoot = "/sys/kernel/config/gpio-sim";

std::string read_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

bool write_text(const fs::path& file, const std::string& text) {
  std::ofstream out(file);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

// A simulated chip of 8 lines, made through gpio-sim's configfs and removed at the end.
class SimChip {
 public:
  static constexpr const char* kLabel = "yolo-edge-sim";

  SimChip() : dir_(kSimRoot / ("yolo-edge-" + std::to_string(getpid()))) {
    std::error_code ec;
    fs::create_directories(dir_ / "bank0", ec);
    if (ec) {
      problem_ = "cannot make " + (dir_ / "bank0").string() + ": " + ec.message();
      return;
    }
    if (!write_text(dir_ / "bank0" / "num_lines", "8") ||
        !write_text(dir_ / "bank0" / "label", kLabel) || !write_text(dir_ / "live", "1")) {
      problem_ = "cannot set up " + dir_.string();
      return;
    }
    chip_name_ = read_line(dir_ / "bank0" / "chip_name");
    device_ = read_line(dir_ / "dev_name");
  }
  ~SimChip() {
    write_text(dir_ / "live", "0");
    std::error_code ec;
    fs::remove(dir_ / "bank0", ec);
    fs::remove(dir_, ec);
  }

  const std::string& problem() const { return problem_; }
  const std::string& chip_name() const { return chip_name_; }
  // The level the simulated pin has (an output's value as driven).
  bool pin(unsigned offset) const { return read_line(line_dir(offset) / "value") == "1"; }
  // Pulls an input's pin up or down, as a button would.
  void pull(unsigned offset, bool up) const {
    write_text(line_dir(offset) / "pull", up ? "pull-up" : "pull-down");
  }

 private:
  fs::path line_dir(unsigned offset) const {
    return fs::path("/sys/devices/platform") / device_ / chip_name_ /
           ("sim_gpio" + std::to_string(offset));
  }

  fs::path dir_;
  std::string problem_;
  std::string chip_name_;
  std::string device_;
};

GpioError open_failure(Backend& backend, const fs::path& device) {
  try {
    backend.open(device);
  } catch (const GpioError& e) {
    return e;
  }
  ADD_FAILURE() << "opened " << device;
  return GpioError(ErrorKind::kOther, "");
}

TEST(YOLO_GPIOD_SUITE, IsTheApiThisTestWasBuiltFor) {
  const std::string name = libgpiod_backend()->name();
  EXPECT_EQ(name.rfind("libgpiod ", 0), 0u) << name;
  EXPECT_NE(name.find(std::string("(") + YOLO_GPIOD_API + " API)"), std::string::npos) << name;
}

TEST(YOLO_GPIOD_SUITE, AMissingChipIsNoChip) {
  const auto backend = libgpiod_backend();
  const GpioError e = open_failure(*backend, "/dev/gpiochip-yolo-edge-missing");
  EXPECT_EQ(e.kind(), ErrorKind::kNoChip);
  EXPECT_NE(std::string(e.what()).find("cannot open /dev/gpiochip-yolo-edge-missing: No such file"),
            std::string::npos)
      << e.what();
}

TEST(YOLO_GPIOD_SUITE, ADeviceThatIsNoGpioChipIsRefused) {
  const auto backend = libgpiod_backend();
  const GpioError e = open_failure(*backend, "/dev/null");
  EXPECT_EQ(e.kind(), ErrorKind::kNoChip) << e.what();
}

TEST(YOLO_GPIOD_SUITE, FindsTheChipsThisMachineHas) {
  const auto backend = libgpiod_backend();
  for (const fs::path& device : backend->devices()) {
    try {
      const ChipInfo info = backend->open(device)->info();
      EXPECT_EQ(info.path, device);
      EXPECT_FALSE(info.name.empty());
    } catch (const GpioError& e) {
      // Present but not ours to open: the error says so.
      EXPECT_EQ(e.kind(), ErrorKind::kPermission) << e.what();
    }
  }
}

// The suites are named by the build (YOLO_GPIOD_SUITE): this file is built twice.
#define SIM_SUITE_NAME(suite) suite##OnGpioSim
#define SIM_SUITE(suite) SIM_SUITE_NAME(suite)

class SIM_SUITE(YOLO_GPIOD_SUITE) : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::is_directory(kSimRoot)) {
      GTEST_SKIP() << "no gpio-sim here (" << kSimRoot
                   << " is missing): as root, modprobe gpio-sim (Linux 5.17 or later, configfs "
                      "mounted) to run the library against a simulated chip";
    }
    sim_ = std::make_unique<SimChip>();
    if (!sim_->problem().empty()) GTEST_SKIP() << "gpio-sim: " << sim_->problem();
    chip_ = open_chip(*backend_, SimChip::kLabel);
  }

  std::unique_ptr<Backend> backend_ = libgpiod_backend();
  std::unique_ptr<SimChip> sim_;
  std::shared_ptr<Chip> chip_;
};

TEST_F(SIM_SUITE(YOLO_GPIOD_SUITE), OpensByLabelAndName) {
  EXPECT_EQ(chip_->info().name, sim_->chip_name());
  EXPECT_EQ(chip_->info().lines, 8u);
  EXPECT_EQ(open_chip(*backend_, sim_->chip_name())->info().label, SimChip::kLabel);
}

TEST_F(SIM_SUITE(YOLO_GPIOD_SUITE), OutputsDriveThePinAndGoInactiveOnRelease) {
  {
    auto line = chip_->request_output({3, true, false, "yolo-edge-test"});
    EXPECT_TRUE(sim_->pin(3));  // inactive, active low: high
    line->set(true);
    EXPECT_FALSE(sim_->pin(3));
    // Held: a second request is busy, and says by whom.
    try {
      chip_->request_output({3, false, false, "other"});
      ADD_FAILURE() << "line 3 requested twice";
    } catch (const GpioError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kBusy);
      EXPECT_NE(std::string(e.what()).find("'yolo-edge-test'"), std::string::npos) << e.what();
    }
  }
  auto again = chip_->request_output({3, false, false, "yolo-edge-test"});
  EXPECT_FALSE(sim_->pin(3));
}

TEST_F(SIM_SUITE(YOLO_GPIOD_SUITE), InputsGiveEdgesWithActiveLowApplied) {
  sim_->pull(5, true);
  auto line = chip_->request_input({5, true, Bias::kAsIs, true, "yolo-edge-test"});
  EXPECT_FALSE(line->get());
  EXPECT_GE(line->event_fd(), 0);
  EXPECT_EQ(line->read_edge(milliseconds(0)), std::nullopt);
  sim_->pull(5, false);
  const std::optional<Edge> pressed = line->read_edge(milliseconds(1000));
  ASSERT_TRUE(pressed);
  EXPECT_TRUE(pressed->rising);
  EXPECT_TRUE(line->get());
}

TEST_F(SIM_SUITE(YOLO_GPIOD_SUITE), OffsetsBeyondTheChipAreNoLine) {
  try {
    chip_->request_output({8, false, false, "yolo-edge-test"});
    FAIL() << "line 8 of 8 requested";
  } catch (const GpioError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kNoLine) << e.what();
  }
}

}  // namespace
}  // namespace yolo::daemon::gpio
