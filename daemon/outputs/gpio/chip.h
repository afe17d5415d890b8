// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace yolo::daemon::gpio {

// GPIO chips and lines behind one small interface: libgpiod's v1 API (Debian bookworm) or v2 API
// (trixie), chosen at build time (daemon/outputs/gpio/libgpiod.h), or a fake in tests. Values are
// logical everywhere: true means active, and a line requested active_low is active at 0 V.

// Why a chip or a line could not be had. The daemon runs on without that line either way; the
// kind only decides the advice.
enum class ErrorKind { kNoChip, kNoLine, kBusy, kPermission, kUnsupported, kOther };

class GpioError : public std::runtime_error {
 public:
  GpioError(ErrorKind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

enum class Bias { kAsIs, kDisabled, kPullUp, kPullDown };

struct OutputRequest {
  unsigned offset = 0;
  bool active_low = false;
  // The value the line takes when it is requested.
  bool initial = false;
  // Who holds the line, as gpioinfo shows it.
  std::string consumer = "yolo-edged";
};

struct InputRequest {
  unsigned offset = 0;
  bool active_low = false;
  Bias bias = Bias::kAsIs;
  // Edge events (read_edge, event_fd); without them the line can only be read (polled).
  bool edges = true;
  std::string consumer = "yolo-edged";
};

// One change of an input line: rising means it became active.
struct Edge {
  bool rising = false;
  // The kernel's timestamp (CLOCK_MONOTONIC).
  std::chrono::nanoseconds timestamp{};
};

// A requested output line, released when destroyed: it is driven inactive first, so a buzzer
// or a relay does not stay on after the daemon lets go of it.
class OutputLine {
 public:
  virtual ~OutputLine() = default;
  // Throws GpioError.
  virtual void set(bool active) = 0;
};

// A requested input line, released when destroyed.
class InputLine {
 public:
  virtual ~InputLine() = default;
  // The current value; throws GpioError.
  virtual bool get() = 0;
  // The next edge, waiting up to `timeout` (0: only what is already there); nothing when none
  // came, or when the line was requested without edges. Throws GpioError.
  virtual std::optional<Edge> read_edge(std::chrono::milliseconds timeout) = 0;
  // Readable when an edge waits (for a poll() over several sources); -1 without edges.
  virtual int event_fd() const = 0;
};

struct ChipInfo {
  std::string name;   // "gpiochip0"
  std::string label;  // "pinctrl-bcm2711"
  std::filesystem::path path;
  unsigned lines = 0;
};

// An open GPIO chip. Lines it hands out keep what they need of it alive.
class Chip {
 public:
  virtual ~Chip() = default;
  virtual const ChipInfo& info() const = 0;
  // Throw GpioError: kNoLine for an offset the chip does not have, kBusy when another program
  // (or another request of ours) holds the line, kPermission, kUnsupported (edges or bias the
  // chip cannot do).
  virtual std::unique_ptr<OutputLine> request_output(const OutputRequest& request) = 0;
  virtual std::unique_ptr<InputLine> request_input(const InputRequest& request) = 0;
};

// Where chips come from: a GPIO library or a fake.
class Backend {
 public:
  virtual ~Backend() = default;
  // What runs the lines, for the status: "libgpiod 1.6.3 (v1 API)".
  virtual std::string name() const = 0;
  // Opens the chip at a character device path; throws GpioError (kNoChip, kPermission, ...).
  virtual std::shared_ptr<Chip> open(const std::filesystem::path& device) = 0;
  // The GPIO chip devices present, in number order (/dev/gpiochip0, /dev/gpiochip1, ...).
  virtual std::vector<std::filesystem::path> devices() const = 0;
};

// A chip by name (gpiochip0), path (/dev/gpiochip0), number (0) or label (pinctrl-rp1). Labels
// are what stays the same across kernels (the Pi 5's header chip was gpiochip4 and is
// gpiochip0 on newer kernels). Throws GpioError; a chip that is not found is named with the
// chips that are there.
std::shared_ptr<Chip> open_chip(Backend& backend, std::string_view spec);

// The gpiochip character devices in `dev`, in number order.
std::vector<std::filesystem::path> gpiochip_devices(const std::filesystem::path& dev = "/dev");

// The GpioError for a failed open of `device` (errno `err`), with what to do about it.
GpioError open_error(int err, const std::filesystem::path& device);

// The GpioError for a failed request of `offset` on `chip` (errno `err`); `holder` is who holds
// the line when it is busy ("" when unknown).
GpioError request_error(int err, const ChipInfo& chip, unsigned offset, std::string_view holder);

// The GpioError for a failed call on a requested line, from errno: "setting line 17 of gpiochip0
// failed: ...".
GpioError call_error(const ChipInfo& chip, unsigned offset, std::string_view doing);

// Checks the offset exists on the chip before asking the kernel (its EINVAL says nothing).
void check_offset(const ChipInfo& chip, unsigned offset);

}  // namespace yolo::daemon::gpio
