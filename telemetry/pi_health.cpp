// SPDX-License-Identifier: Apache-2.0
#include "telemetry/pi_health.h"

#include "telemetry/firmware_replies.h"
#include "telemetry/hwmon.h"

namespace yolo::telemetry {

namespace fs = std::filesystem;

namespace {

// <sysfs>/devices/platform/soc/soc:firmware/get_throttled on a Pi 4; the soc node's name carries
// its address on some boards ("soc@107c000000"), so any soc*/ *:firmware is accepted.
std::optional<KernelFile> open_sysfs_throttle(const fs::path& sysfs_root) {
  std::error_code error;
  for (const auto& soc : fs::directory_iterator(sysfs_root / "devices/platform", error)) {
    if (!soc.path().filename().string().starts_with("soc")) continue;
    for (const auto& node : fs::directory_iterator(soc.path(), error)) {
      if (!node.path().filename().string().ends_with(":firmware")) continue;
      if (auto file = KernelFile::open(node.path() / "get_throttled")) return file;
    }
  }
  return std::nullopt;
}

}  // namespace

PiHealth::PiHealth(const fs::path& sysfs_root, std::shared_ptr<Firmware> firmware)
    : firmware_(std::move(firmware)), sysfs_throttle_(open_sysfs_throttle(sysfs_root)) {
  if (firmware_) {
    const auto throttled = firmware_->command("get_throttled");
    firmware_throttle_ = throttled && parse_throttled(*throttled);
    const auto clock = firmware_->command("measure_clock arm");
    firmware_clock_ = clock && parse_clock_hz(*clock);
  }
  for (const HwmonDevice& device : find_hwmon_devices(sysfs_root)) {
    if (device.name == "rpi_volt") {
      volt_alarm_ = KernelFile::open(device.dir / "in0_lcrit_alarm");
      break;
    }
  }
}

std::optional<std::uint32_t> PiHealth::throttle_word() {
  if (firmware_throttle_) {
    if (const auto reply = firmware_->command("get_throttled")) {
      if (const auto word = parse_throttled(*reply)) return word;
    }
  }
  if (sysfs_throttle_) {
    const auto word = sysfs_throttle_->read_int(16);
    if (word && *word >= 0 && *word <= 0xFFFFFFFF) return static_cast<std::uint32_t>(*word);
  }
  return std::nullopt;
}

void PiHealth::read(Sample& sample) {
  if (const auto word = throttle_word()) sample.throttle = ThrottleState{*word};
  if (firmware_clock_) {
    const auto reply = firmware_->command("measure_clock arm");
    if (const auto hz = reply ? parse_clock_hz(*reply) : std::nullopt) {
      sample.arm_clock_mhz = *hz / 1e6;
    }
  }
  if (volt_alarm_) {
    if (const auto alarm = volt_alarm_->read_int()) sample.under_voltage_alarm = *alarm != 0;
  }
}

void PiHealth::describe(Inventory& inventory) const {
  if (firmware_throttle_) {
    inventory.found.push_back("firmware throttle flags");
  } else if (sysfs_throttle_) {
    inventory.found.push_back("throttle flags (" + sysfs_throttle_->path().string() + ")");
  } else if (firmware_) {
    inventory.missing.push_back(
        "Pi throttle flags: the firmware did not answer get_throttled and there is no "
        "soc:firmware/get_throttled");
  } else {
    inventory.missing.push_back(
        "Pi throttle flags: no firmware and no soc:firmware/get_throttled (not a Raspberry Pi)");
  }
  if (firmware_clock_) inventory.found.push_back("firmware Arm clock");
  if (volt_alarm_) inventory.found.push_back("under-voltage alarm (rpi_volt)");
}

}  // namespace yolo::telemetry
