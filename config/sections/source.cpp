// SPDX-License-Identifier: Apache-2.0
// The source section: where frames come from. Its rows are also each camera's (cameras.cpp).
#include <algorithm>
#include <string>
#include <utility>

#include "config/schema_rows.h"
#include "config/sections/sections.h"

namespace yolo::config::section_files {

using namespace rows;

namespace {

// V4L2 names a pixel format by four characters, padded with spaces ("Y16 ").
std::string fourcc_rule(const Value& v) {
  const std::string& code = std::get<std::string>(v);
  if (code.empty()) return "";
  const bool printable =
      std::all_of(code.begin(), code.end(), [](char c) { return c >= ' ' && c <= '~'; });
  if (code.size() == 4 && printable) return "";
  return "'" + code +
         "' is not a pixel format's four characters: use MJPG, YUYV, ... (v4l2-ctl "
         "--list-formats-ext lists the camera's), or leave it empty for the camera's own";
}

}  // namespace

SectionSpec source_spec() {
  return {"source",
          "Where frames come from, for a daemon with one camera (named main); several cameras "
          "are listed under cameras: instead."};
}

std::vector<Member<SourceConfig>> source_members() {
  return {
      member("uri", &SourceConfig::uri, "/dev/video0", {.rule = require_text},
             "Camera or stream: /dev/videoN or N (V4L2), a GStreamer pipeline (with '!'), "
             "rtsp:// or http(s):// URL, a video, an image or a folder of images."),
      member("loop", &SourceConfig::loop, false,
             "Start a video file or image folder again when it ends."),
      member("realtime", &SourceConfig::realtime, true,
             "Pace a video file or image folder at its own frame rate, as a camera would, instead "
             "of as fast as it decodes."),
      member("width", &SourceConfig::width, 0, {.min = 0, .max = 7680},
             "Capture width in pixels to ask the camera for; 0 keeps the source's own."),
      member("height", &SourceConfig::height, 0, {.min = 0, .max = 4320},
             "Capture height in pixels to ask the camera for; 0 keeps the source's own."),
      member("fps", &SourceConfig::fps, 0.0, {.min = 0, .max = 240},
             "Frames per second to ask the camera for; 0 keeps the source's own."),
      member("fourcc", &SourceConfig::fourcc, "", {.rule = fourcc_rule},
             "Pixel format to ask a V4L2 camera for, as four characters: MJPG for the 720p and "
             "1080p at 30 fps most USB webcams give only compressed (decoded on the CPU; "
             "docs/cameras.md); empty keeps the camera's own. Other sources ignore it."),
      member("reconnect_s", &SourceConfig::reconnect_s, 2.0, {.min = 0.1, .max = 3600},
             "Seconds to wait before reopening a source that failed (camera unplugged, stream "
             "dropped)."),
  };
}

void add_source_fields(std::vector<FieldSpec>& t) {
  const SectionAdder<SourceConfig> add{t, &Config::source};
  for (Member<SourceConfig>& m : source_members()) add(std::move(m));
}

// The capture code decides what a source is (LoadOptions::check_source); a relative file or
// folder it names resolves against the config's folder like every other path.
void check_source(SourceConfig& s, const std::string& key, Problems& problems,
                  const LoadOptions& options) {
  if (!problems.usable(key) || !options.check_source) return;
  SourceCheck check = options.check_source(s.uri, problems.base());
  if (!check.error.empty()) problems.add(key, problems.written_at(key), check.error);
  if (!check.warning.empty()) problems.warn(key, problems.written_at(key), check.warning);
  s.uri = std::move(check.uri);
}

}  // namespace yolo::config::section_files
