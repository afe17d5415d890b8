// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the Prometheus output's series are made with: families registered with valid help text,
// label values made valid UTF-8, and gauge families replaced whole at each update.
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace yolo::daemon::metrics {

// `text` with every byte that is not part of a valid UTF-8 sequence replaced by U+FFFD:
// Prometheus refuses a whole scrape over one bad label value, and class names and paths can be
// any bytes.
std::string valid_utf8(std::string_view text);
// HELP text as the format wants it: prometheus-cpp writes it unescaped, and a backslash or a
// newline in it would make the whole scrape unparsable.
std::string help_text(std::string_view help);

prometheus::Family<prometheus::Counter>& counter_family(prometheus::Registry& registry,
                                                        const std::string& name,
                                                        std::string_view help);
prometheus::Family<prometheus::Gauge>& gauge_family(prometheus::Registry& registry,
                                                    const std::string& name, std::string_view help);

// A gauge family whose series are all replaced by each update: a sensor gone from the latest
// sample loses its series instead of showing its last value forever.
class GaugeSnapshot {
 public:
  using Values = std::vector<std::pair<prometheus::Labels, double>>;

  explicit GaugeSnapshot(prometheus::Family<prometheus::Gauge>& family) : family_(family) {}

  // The series are now `values`; a value that is not finite (a sensor that read garbage) is
  // left out like a missing one.
  void update(const Values& values) {
    std::map<prometheus::Labels, prometheus::Gauge*> next;
    for (const auto& [labels, value] : values) {
      if (!std::isfinite(value)) continue;
      const auto found = series_.find(labels);
      prometheus::Gauge& gauge = found != series_.end() ? *found->second : family_.Add(labels);
      gauge.Set(value);
      next.emplace(labels, &gauge);
    }
    for (const auto& [labels, gauge] : series_) {
      if (!next.contains(labels)) family_.Remove(gauge);
    }
    series_ = std::move(next);
  }

  // One series without labels, or none when `value` is empty.
  void update(std::optional<double> value) { update(value ? Values{{{}, *value}} : Values{}); }

 private:
  prometheus::Family<prometheus::Gauge>& family_;
  std::map<prometheus::Labels, prometheus::Gauge*> series_;
};

}  // namespace yolo::daemon::metrics
