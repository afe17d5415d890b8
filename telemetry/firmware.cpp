// SPDX-License-Identifier: Apache-2.0
#include "telemetry/firmware.h"

#include <fcntl.h>
#include <sys/ioctl.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <system_error>

#include "os/unique_fd.h"

namespace yolo::telemetry {

namespace {

// The vcio driver's one ioctl: pass a property message to the firmware and get it back answered
// (raspberrypi/linux drivers/char/broadcom/vcio.c).
constexpr unsigned long kMailboxProperty = _IOWR(100, 0, char*);
// The property tag that carries a gencmd command line and its reply.
constexpr std::uint32_t kGencmdTag = 0x00030080;
constexpr std::uint32_t kProcessRequest = 0;
constexpr std::uint32_t kRequestSucceeded = 0x80000000;
// Set by the firmware in a tag's length word once it has answered that tag.
constexpr std::uint32_t kTagAnswered = 0x80000000;
// Longest command or reply; vcgencmd allows the same, and pmic_read_adc's reply fits.
constexpr std::size_t kTextSize = 1024;

// A property message holding the one gencmd tag: the layout the firmware reads, all 32-bit words
// in the Pi's (little-endian) order.
struct GencmdMessage {
  // Bytes in the whole message.
  std::uint32_t size;
  // kProcessRequest in; kRequestSucceeded out.
  std::uint32_t code;
  std::uint32_t tag;
  // Bytes of the tag's value: `result` and `text`.
  std::uint32_t value_size;
  // 0 in; kTagAnswered | reply bytes out.
  std::uint32_t value_length;
  // The gencmd's own status out: 0 when the command ran.
  std::uint32_t result;
  // The command in, NUL-terminated; the reply out.
  char text[kTextSize];
  // A zero tag ends the message.
  std::uint32_t end_tag;
};
static_assert(sizeof(GencmdMessage) == 6 * sizeof(std::uint32_t) + kTextSize + 4);

class VcioFirmware : public Firmware {
 public:
  explicit VcioFirmware(os::UniqueFd device) : device_(std::move(device)) {}

  std::optional<std::string> command(std::string_view cmd) override {
    if (cmd.size() >= kTextSize || cmd.find('\0') != std::string_view::npos) return std::nullopt;
    GencmdMessage message{};
    message.size = sizeof message;
    message.code = kProcessRequest;
    message.tag = kGencmdTag;
    message.value_size = sizeof message.result + sizeof message.text;
    std::memcpy(message.text, cmd.data(), cmd.size());
    int status = 0;
    do {
      status = ::ioctl(device_.get(), kMailboxProperty, &message);
    } while (status < 0 && errno == EINTR);
    if (status < 0 || message.code != kRequestSucceeded ||
        (message.value_length & kTagAnswered) == 0 || message.result != 0) {
      return std::nullopt;
    }
    return std::string(message.text, ::strnlen(message.text, sizeof message.text));
  }

 private:
  os::UniqueFd device_;
};

}  // namespace

FirmwareOpenResult open_vcio_firmware(const std::filesystem::path& device) {
  os::UniqueFd fd(::open(device.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.valid()) return {std::make_shared<VcioFirmware>(std::move(fd)), ""};
  const int error = errno;
  std::string reason = device.string() + ": " + std::generic_category().message(error);
  if (error == ENOENT) {
    reason +=
        " (not a Raspberry Pi, or its vcio driver is not loaded): no firmware throttle word, "
        "Arm clock or Pi 5 PMIC power";
  } else if (error == EACCES || error == EPERM) {
    reason +=
        ": add the user to group video (the service has SupplementaryGroups=video) and allow the "
        "device (DeviceAllow=/dev/vcio rw)";
  }
  return {nullptr, std::move(reason)};
}

}  // namespace yolo::telemetry
