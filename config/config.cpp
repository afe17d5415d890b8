// SPDX-License-Identifier: Apache-2.0
#include "config/config.h"

#include "config/schema.h"

namespace yolo::config {

Config::Config() {
  for (const FieldSpec& field : fields()) field.store(*this, field.default_value);
}

std::vector<CameraConfig> camera_list(const Config& config) {
  if (!config.cameras.empty()) return config.cameras;
  return {CameraConfig{std::string(kMainCamera), config.source, 0, CameraMotion::kSection}};
}

bool motion_enabled(const Config& config, const CameraConfig& camera) {
  return camera.motion == CameraMotion::kSection ? config.motion.enabled
                                                 : camera.motion == CameraMotion::kOn;
}

}  // namespace yolo::config
