// SPDX-License-Identifier: Apache-2.0
// The cameras section: several cameras served by one model, each with its own source.
#include <map>
#include <string>
#include <utility>

#include "config/sections/places.h"
#include "config/sections/sections.h"
#include "text/format.h"

namespace yolo::config::section_files {

using namespace rows;

SectionSpec cameras_spec() {
  return {"cameras",
          "Several cameras in one daemon, one model serving them all, each detected at most at "
          "its detect_fps; their zones and lines name them (camera:). Without it the daemon has "
          "one camera, named main, whose source is the source section; docs/cameras.md.",
          true, "- {name: door, uri: /dev/video0, detect_fps: 5}"};
}

void add_cameras_fields(std::vector<FieldSpec>& t) {
  std::vector<Member<CameraConfig>> members;
  members.push_back(member("name", &CameraConfig::name, "",
                           {.rule = place_name_rule, .required = true},
                           "Its name, unique among the cameras: it names the camera's stream "
                           "(/cameras/NAME/stream.mjpg), MQTT topics, metric labels and events, "
                           "and its zones and lines name it."));
  for (Member<SourceConfig>& m : source_members()) {
    // A camera without a source is no camera: each names its own.
    if (m.spec.name == "uri") m.spec.required = true;
    members.push_back(within(&CameraConfig::source, std::move(m)));
  }
  members.push_back(member("detect_fps", &CameraConfig::detect_fps, 0.0, {.min = 0, .max = 240},
                           "The most frames per second it is detected at (a camera whose frames "
                           "cannot all be served at it counts the rest as skipped); 0: every "
                           "frame the daemon can take."));
  members.push_back(member("motion", &CameraConfig::motion, CameraMotion::kSection,
                           {.choices = {"section", "on", "off"}},
                           "Motion-gated detection for it: on or off whatever motion.enabled says, "
                           "or as it says (section); the motion section's other keys serve every "
                           "camera."));
  add_list_section(t, &Config::cameras, "Each camera a mapping; none by default.",
                   std::move(members));
}

void check_cameras(Config& c, Problems& problems) {
  std::map<std::string, std::string> names;
  for (std::size_t i = 0; i < c.cameras.size(); ++i) {
    const CameraConfig& camera = c.cameras[i];
    const std::string key = "cameras[" + std::to_string(i) + "]";
    const auto [first, fresh] = names.emplace(camera.name, key);
    if (!fresh && problems.usable(key + ".name")) {
      problems.add(key + ".name", problems.written_at(key + ".name"),
                   "'" + camera.name + "' is already the name of " + first->second +
                       ": each camera needs a name of its own");
    }
    if (camera.source.fps > 0 && camera.detect_fps > camera.source.fps &&
        problems.usable(key + ".detect_fps")) {
      problems.add(
          key + ".detect_fps", problems.written_at(key + ".detect_fps"),
          "is above the camera's own fps (" +
              text::fixed(camera.source.fps,
                          camera.source.fps == static_cast<int>(camera.source.fps) ? 0 : 2) +
              "): it can be detected at most that often; lower it or leave it at 0 "
              "(every frame)");
    }
  }
  if (c.cameras.empty()) return;
  // With cameras: the source section would be a camera nobody runs.
  for (const FieldSpec& f : fields()) {
    if (f.section != "source") continue;
    const std::string key = f.path();
    const Where at = problems.written_at(key);
    if (at.line == 0) continue;
    problems.add(key, at,
                 "is set beside cameras:, where each camera names its own source: move it into "
                 "the camera it is for (uri: under its - name: ...) and remove the source "
                 "section");
  }
}

}  // namespace yolo::config::section_files
