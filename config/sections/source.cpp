// SPDX-License-Identifier: Apache-2.0
// The source section: where frames come from.
#include <string>
#include <utility>

#include "config/schema_rows.h"
#include "config/sections/sections.h"

namespace yolo::config::section_files {

using namespace rows;

SectionSpec source_spec() {
  return {"source", "Where frames come from."};
}

void add_source_fields(std::vector<FieldSpec>& t) {
  const SectionAdder<SourceConfig> add{t, "source", &Config::source};
  using F = FieldType;
  add({.name = "uri",
       .type = F::kString,
       .default_value = text("/dev/video0"),
       .description = "Camera or stream: /dev/videoN or N (V4L2), a GStreamer pipeline (with '!'), "
                      "rtsp:// or http(s):// URL, a video, an image or a folder of images.",
       .rule = require_text},
      &SourceConfig::uri);
  add({.name = "loop",
       .type = F::kBool,
       .default_value = false,
       .description = "Start a video file or image folder again when it ends."},
      &SourceConfig::loop);
  add({.name = "realtime",
       .type = F::kBool,
       .default_value = true,
       .description = "Pace a video file or image folder at its own frame rate, as a camera "
                      "would, instead of as fast as it decodes."},
      &SourceConfig::realtime);
  add({.name = "width",
       .type = F::kInt,
       .default_value = whole(0),
       .min = 0,
       .max = 7680,
       .description = "Capture width in pixels to ask the camera for; 0 keeps the source's own."},
      &SourceConfig::width);
  add({.name = "height",
       .type = F::kInt,
       .default_value = whole(0),
       .min = 0,
       .max = 4320,
       .description = "Capture height in pixels to ask the camera for; 0 keeps the source's own."},
      &SourceConfig::height);
  add({.name = "fps",
       .type = F::kFloat,
       .default_value = 0.0,
       .min = 0,
       .max = 240,
       .description = "Frames per second to ask the camera for; 0 keeps the source's own."},
      &SourceConfig::fps);
  add({.name = "reconnect_s",
       .type = F::kFloat,
       .default_value = 2.0,
       .min = 0.1,
       .max = 3600,
       .description = "Seconds to wait before reopening a source that failed (camera unplugged, "
                      "stream dropped)."},
      &SourceConfig::reconnect_s);
}

// The capture code decides what a source is (LoadOptions::check_source); a relative file or
// folder it names resolves against the config's folder like every other path.
void check_source(SourceConfig& s, Problems& problems, const LoadOptions& options) {
  const std::string key = "source.uri";
  if (!problems.usable(key) || !options.check_source) return;
  SourceCheck check = options.check_source(s.uri, problems.base());
  if (!check.error.empty()) problems.add(key, problems.written_at(key), check.error);
  if (!check.warning.empty()) problems.warn(key, problems.written_at(key), check.warning);
  s.uri = std::move(check.uri);
}

}  // namespace yolo::config::section_files
