// SPDX-License-Identifier: Apache-2.0
#pragma once

// The parts of a FrameResult that the outputs' tests build alike: the model a frame ran on, and
// the zones and lines of the camera "main" with their counts.
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "daemon/core/frame_result.h"

namespace yolo::test {

// The FP32 model `name` with these class names.
inline std::shared_ptr<const daemon::ModelInfo> model_info(std::string name,
                                                           std::vector<std::string> names) {
  auto model = std::make_shared<daemon::ModelInfo>();
  model->name = std::move(name);
  model->precision = runtime::Precision::kFp32;
  model->names = vision::ClassNames(std::move(names));
  return model;
}

// In and out (or entered and left) by class.
using Totals = std::map<std::string, tracking::Tally>;

// The counts of the place `name` of the camera "main" in `scene`.
inline void add_counts(daemon::SceneState& scene, const std::string& name, bool line, Totals total,
                       std::chrono::system_clock::time_point since) {
  scene.counts.places.push_back({.camera = "main",
                                 .name = name,
                                 .line = line,
                                 .since = since,
                                 .total = std::move(total),
                                 .hours = {}});
}

// Adds the zone `name` of the camera "main" to `scene`, with its counts `total` since `since` and
// `inside` in it now; returns the zone, for its points.
inline config::ZoneConfig& add_zone(daemon::SceneState& scene, const std::string& name,
                                    Totals total, int inside,
                                    std::chrono::system_clock::time_point since = {}) {
  add_counts(scene, name, false, std::move(total), since);
  scene.occupancy[name] = inside;
  config::ZoneConfig& zone = scene.zones.emplace_back();
  zone.name = name;
  zone.camera = "main";
  return zone;
}

// Adds the line `name` of the camera "main" to `scene`, with its counts `total` since `since`;
// returns the line, for its ends.
inline config::LineConfig& add_line(daemon::SceneState& scene, const std::string& name,
                                    Totals total,
                                    std::chrono::system_clock::time_point since = {}) {
  add_counts(scene, name, true, std::move(total), since);
  config::LineConfig& line = scene.lines.emplace_back();
  line.name = name;
  line.camera = "main";
  return line;
}

}  // namespace yolo::test
