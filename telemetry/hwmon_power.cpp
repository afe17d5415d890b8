// SPDX-License-Identifier: Apache-2.0
#include "telemetry/hwmon_power.h"

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include "telemetry/kernel_file.h"

namespace yolo::telemetry {

namespace {

// hwmon drivers of single-channel INA chips that give power1_input (ina2xx, ina209, ina238).
constexpr std::array<std::string_view, 8> kIna2xxNames = {"ina209", "ina219", "ina220", "ina226",
                                                          "ina230", "ina231", "ina238", "ina260"};

// One bus voltage (mV) and current (mA) pair; mV x mA is microwatts.
struct Channel {
  KernelFile bus_mv;
  KernelFile curr_ma;

  std::optional<double> watts() {
    const auto mv = bus_mv.read_int();
    const auto ma = curr_ma.read_int();
    if (!mv || !ma) return std::nullopt;
    return static_cast<double>(*mv) * static_cast<double>(*ma) / 1e6;
  }
};

std::optional<Channel> open_channel(const HwmonDevice& device, int n) {
  const std::string i = std::to_string(n);
  auto bus = KernelFile::open(device.dir / ("in" + i + "_input"));
  auto curr = KernelFile::open(device.dir / ("curr" + i + "_input"));
  if (!bus || !curr) return std::nullopt;
  return Channel{std::move(*bus), std::move(*curr)};
}

std::string label_of(const HwmonDevice& device) {
  return device.name + " (" + device.stable_id + ")";
}

class Ina2xx : public PowerSource {
 public:
  Ina2xx(const HwmonDevice& device, std::optional<KernelFile> power_uw,
         std::optional<Channel> channel)
      : PowerSource(label_of(device)),
        power_uw_(std::move(power_uw)),
        channel_(std::move(channel)) {}

  std::optional<PowerMeasurement> read(std::chrono::steady_clock::time_point) override {
    if (power_uw_) {
      const auto uw = power_uw_->read_int();
      if (!uw) return std::nullopt;
      return PowerMeasurement{static_cast<double>(*uw) / 1e6, std::nullopt};
    }
    const auto watts = channel_->watts();
    if (!watts) return std::nullopt;
    return PowerMeasurement{*watts, std::nullopt};
  }

 private:
  std::optional<KernelFile> power_uw_;
  // Bus voltage and current, used when the chip gives no power file.
  std::optional<Channel> channel_;
};

class Ina3221 : public PowerSource {
 public:
  Ina3221(const HwmonDevice& device, std::vector<Channel> channels)
      : PowerSource(label_of(device)), channels_(std::move(channels)) {}

  std::optional<PowerMeasurement> read(std::chrono::steady_clock::time_point) override {
    // A disabled or unconnected channel fails its read (ENODATA) and adds nothing.
    std::optional<double> sum;
    for (Channel& channel : channels_) {
      if (const auto watts = channel.watts()) sum = sum.value_or(0) + *watts;
    }
    if (!sum) return std::nullopt;
    return PowerMeasurement{*sum, std::nullopt};
  }

 private:
  std::vector<Channel> channels_;
};

}  // namespace

std::vector<std::unique_ptr<PowerSource>> find_hwmon_power(
    const std::vector<HwmonDevice>& devices) {
  std::vector<std::unique_ptr<PowerSource>> sources;
  for (const HwmonDevice& device : devices) {
    if (std::find(kIna2xxNames.begin(), kIna2xxNames.end(), device.name) != kIna2xxNames.end()) {
      auto power = KernelFile::open(device.dir / "power1_input");
      auto channel = power ? std::nullopt : open_channel(device, 1);
      if (power || channel) {
        sources.push_back(std::make_unique<Ina2xx>(device, std::move(power), std::move(channel)));
      }
    } else if (device.name == "ina3221") {
      std::vector<Channel> channels;
      for (int n = 1; n <= 3; ++n) {
        if (auto channel = open_channel(device, n)) channels.push_back(std::move(*channel));
      }
      if (!channels.empty())
        sources.push_back(std::make_unique<Ina3221>(device, std::move(channels)));
    }
  }
  return sources;
}

}  // namespace yolo::telemetry
