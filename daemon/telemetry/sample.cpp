#include "daemon/telemetry/sample.h"

#include <algorithm>

namespace yolo::daemon::telemetry {

std::optional<double> Sample::max_celsius() const {
  if (thermal.empty()) return std::nullopt;
  return std::max_element(thermal.begin(), thermal.end(),
                          [](const auto& a, const auto& b) { return a.celsius < b.celsius; })
      ->celsius;
}

}  // namespace yolo::daemon::telemetry
