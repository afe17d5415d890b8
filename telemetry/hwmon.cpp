// SPDX-License-Identifier: Apache-2.0
#include "telemetry/hwmon.h"

#include <algorithm>
#include <tuple>

#include "telemetry/kernel_file.h"

namespace yolo::telemetry {

namespace fs = std::filesystem;

std::vector<HwmonDevice> find_hwmon_devices(const fs::path& sysfs_root) {
  std::vector<HwmonDevice> devices;
  for (const auto& [number, dir] : numbered_entries(sysfs_root / "class/hwmon", "hwmon")) {
    std::optional<std::string> name = read_trimmed(dir / "name");
    if (!name) continue;
    std::error_code no_link;
    const fs::path device = fs::read_symlink(dir / "device", no_link);
    std::string stable_id =
        no_link || device.filename().empty() ? dir.filename().string() : device.filename().string();
    devices.push_back({dir, std::move(*name), std::move(stable_id)});
  }
  std::sort(devices.begin(), devices.end(), [](const HwmonDevice& a, const HwmonDevice& b) {
    return std::tie(a.stable_id, a.dir) < std::tie(b.stable_id, b.dir);
  });
  return devices;
}

}  // namespace yolo::telemetry
