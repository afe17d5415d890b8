// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace yolo::telemetry {

// The Raspberry Pi firmware as vcgencmd asks it: a command line in ("get_throttled",
// "measure_clock arm", "pmic_read_adc"), the firmware's reply text out ("throttled=0x50005").
// Tests give the sampler a fake one.
class Firmware {
 public:
  virtual ~Firmware() = default;
  // The reply, or nullopt when the firmware could not be asked or refused the command (unknown
  // on this board or firmware version).
  virtual std::optional<std::string> command(std::string_view cmd) = 0;
};

// What opening the firmware gave: the firmware, or null and why.
struct FirmwareOpenResult {
  std::shared_ptr<Firmware> firmware;
  // Why `firmware` is null, for the sampler's inventory; empty when it is not.
  std::string missing_reason;
};

// The firmware through the VideoCore mailbox device, as vcgencmd reaches it but without a process
// per question: one open file and one ioctl per command. Null with a reason where the device is
// absent (not a Raspberry Pi) or not openable (the user is not in group video).
FirmwareOpenResult open_vcio_firmware(const std::filesystem::path& device = "/dev/vcio");

}  // namespace yolo::telemetry
