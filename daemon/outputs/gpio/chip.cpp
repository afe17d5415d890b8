// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/gpio/chip.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

namespace yolo::daemon::gpio {

namespace fs = std::filesystem;

namespace {

// The number of "gpiochipN", or -1.
long chip_number(std::string_view name) {
  constexpr std::string_view kPrefix = "gpiochip";
  if (!name.starts_with(kPrefix)) return -1;
  name.remove_prefix(kPrefix.size());
  long n = -1;
  const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), n);
  if (ec != std::errc() || end != name.data() + name.size() || name.empty()) return -1;
  return n;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "gpiochip0 (pinctrl-bcm2711, 58 lines), gpiochip1 (...)" for messages; chips that cannot be
// opened are named with why.
std::string chips_present(Backend& backend) {
  std::string out;
  for (const fs::path& device : backend.devices()) {
    if (!out.empty()) out += ", ";
    try {
      const ChipInfo info = backend.open(device)->info();
      out += info.name + " (" + info.label + ", " + std::to_string(info.lines) + " lines)";
    } catch (const GpioError& e) {
      out += device.filename().string() + " (cannot open: " + e.what() + ")";
    }
  }
  return out;
}

GpioError not_found(Backend& backend, const std::string& what) {
  const std::string present = chips_present(backend);
  if (present.empty()) {
    return GpioError(ErrorKind::kNoChip,
                     "no GPIO chip " + what +
                         ": there is none here (no /dev/gpiochip*); on a Raspberry Pi check that "
                         "the service may see it (DeviceAllow=char-gpiochip rw)");
  }
  return GpioError(ErrorKind::kNoChip, "no GPIO chip " + what + "; the chips here are " + present +
                                           ": name one, its path or its label");
}

}  // namespace

std::vector<fs::path> gpiochip_devices(const fs::path& dev) {
  std::vector<std::pair<long, fs::path>> found;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dev, ec)) {
    const long n = chip_number(entry.path().filename().string());
    struct stat st {};
    if (n < 0 || stat(entry.path().c_str(), &st) != 0 || !S_ISCHR(st.st_mode)) continue;
    found.emplace_back(n, entry.path());
  }
  std::sort(found.begin(), found.end());
  std::vector<fs::path> out;
  for (auto& [n, path] : found) out.push_back(std::move(path));
  return out;
}

std::shared_ptr<Chip> open_chip(Backend& backend, std::string_view spec) {
  if (spec.empty()) throw GpioError(ErrorKind::kNoChip, "no GPIO chip named: set gpio.chip");
  const std::string text(spec);
  if (spec.front() == '/') return backend.open(text);
  const std::vector<fs::path> devices = backend.devices();
  const auto named = [&](const fs::path& device) { return device.filename() == text; };
  if (const auto it = std::find_if(devices.begin(), devices.end(), named); it != devices.end()) {
    return backend.open(*it);
  }
  if (all_digits(spec)) {
    const std::string name = "gpiochip" + text;
    const auto numbered = [&](const fs::path& device) { return device.filename() == name; };
    if (const auto it = std::find_if(devices.begin(), devices.end(), numbered);
        it != devices.end()) {
      return backend.open(*it);
    }
    throw not_found(backend, "number " + text);
  }
  if (chip_number(spec) >= 0) throw not_found(backend, "'" + text + "'");
  // A label: the first chip that has it. A chip that cannot be opened may be the one: say so.
  std::string unopened;
  for (const fs::path& device : devices) {
    try {
      std::shared_ptr<Chip> chip = backend.open(device);
      if (chip->info().label == text) return chip;
    } catch (const GpioError& e) {
      unopened += "; " + device.string() + ": " + e.what();
    }
  }
  GpioError missing = not_found(backend, "labelled '" + text + "'");
  if (unopened.empty()) throw missing;
  throw GpioError(ErrorKind::kNoChip, missing.what() + unopened);
}

GpioError open_error(int err, const fs::path& device) {
  const std::string what = "cannot open " + device.string() + ": " + std::strerror(err);
  switch (err) {
    case ENOENT:
      return GpioError(ErrorKind::kNoChip,
                       what +
                           " (gpiodetect lists the chips; on a Pi 5 the header is the chip "
                           "labelled pinctrl-rp1)");
    case EACCES:
    case EPERM:
      return GpioError(ErrorKind::kPermission,
                       what +
                           ": the daemon's user needs the group that owns it (gpio on "
                           "Raspberry Pi OS; scripts/install.sh adds it)");
    case ENOTTY:
    case ENODEV:
      return GpioError(ErrorKind::kNoChip, what + ": not a GPIO chip (gpiodetect lists them)");
    default:
      return GpioError(ErrorKind::kOther, what);
  }
}

GpioError request_error(int err, const ChipInfo& chip, unsigned offset, std::string_view holder) {
  const std::string line = "line " + std::to_string(offset) + " of " + chip.name;
  switch (err) {
    case EBUSY:
      return GpioError(ErrorKind::kBusy,
                       line + " is in use" +
                           (holder.empty() ? std::string(" by another program")
                                           : " by '" + std::string(holder) + "'") +
                           " (gpioinfo " + chip.name +
                           " shows who holds it): free it, or choose another line");
    case EACCES:
    case EPERM:
      return GpioError(ErrorKind::kPermission,
                       "cannot request " + line + ": " + std::strerror(err) +
                           ": the daemon's user needs the group that owns " + chip.path.string());
    case EINVAL:
    case ENOTSUP:
    case ENXIO:
    case EIO:
      return GpioError(ErrorKind::kUnsupported, "cannot request " + line + ": " +
                                                    std::strerror(err) +
                                                    " (the chip may not do edges or this bias)");
    default:
      return GpioError(ErrorKind::kOther,
                       "cannot request " + line + ": " + std::string(std::strerror(err)));
  }
}

GpioError call_error(const ChipInfo& chip, unsigned offset, std::string_view doing) {
  const int err = errno;
  return GpioError(ErrorKind::kOther, std::string(doing) + " line " + std::to_string(offset) +
                                          " of " + chip.name + " failed: " + std::strerror(err));
}

void check_offset(const ChipInfo& chip, unsigned offset) {
  if (offset < chip.lines) return;
  throw GpioError(ErrorKind::kNoLine, chip.name + " (" + chip.label + ") has lines 0 to " +
                                          std::to_string(chip.lines == 0 ? 0 : chip.lines - 1) +
                                          ", not " + std::to_string(offset) +
                                          ": on a Pi, lines are BCM GPIO numbers");
}

}  // namespace yolo::daemon::gpio
