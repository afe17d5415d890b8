// SPDX-License-Identifier: Apache-2.0
// The motion section and motion_masks: detection where something moved, on every camera or on
// those whose motion key says on.
#include <string>

#include "config/sections/places.h"
#include "config/sections/sections.h"

namespace yolo::config::section_files {

using namespace rows;

namespace {

std::string mask_corners(const Value& value) {
  return fewer_than_three_corners(value, "a mask", "[[0, 0], [0.3, 0], [0.3, 0.1]]");
}

}  // namespace

void add_motion_fields(std::vector<FieldSpec>& t) {
  const SectionAdder<MotionConfig> add{t, &Config::motion};
  for (Member<MotionConfig>& m : std::vector<Member<MotionConfig>>{
           member(
               "enabled", &MotionConfig::enabled, false,
               "Run the model only where something moved (crops at its input size, merged where "
               "they overlap), and on the whole frame every full_frame_s; objects that stand still "
               "keep their boxes and tracks in between. false: every frame detected whole."),
           member(
               "width", &MotionConfig::width, 320, {.min = 16, .max = 1920},
               "Width in pixels of the small grey copy motion is found on: smaller is cheaper and "
               "sees less noise, larger sees smaller objects."),
           member(
               "threshold", &MotionConfig::threshold, 40, {.min = 1, .max = 255},
               "Grey levels a pixel must differ from the running background by to count as moved."),
           member(
               "min_area", &MotionConfig::min_area, 0.0005, {.min = 0, .max = 0.5},
               "Smallest moving blob that counts, as a fraction of the frame's area (0.0005: 21x21 "
               "px of 1280x720)."),
           member("learning_rate", &MotionConfig::learning_rate, 0.1, {.min = 0.001, .max = 1},
                  "Weight of each detected frame in the background: it takes up a change in about "
                  "1/learning_rate frames (2 s at detect_fps 5)."),
           member("full_frame_s", &MotionConfig::full_frame_s, 10.0, {.min = 0.5, .max = 3600},
                  "Seconds between whole-frame passes: what motion missed is found then, and what "
                  "left "
                  "unseen loses its box."),
           member("max_regions", &MotionConfig::max_regions, 4, {.min = 0, .max = 16},
                  "More crops than this in one frame and the whole frame is detected instead (each "
                  "crop is a model run); 0: always the whole frame when anything moved."),
       }) {
    add(std::move(m));
  }
}

SectionSpec motion_spec() {
  return {"motion",
          "Detection where something moved, for every camera (a camera's motion: on or off "
          "overrides enabled); docs/cameras.md."};
}

SectionSpec motion_masks_spec() {
  return {"motion_masks",
          "Areas of a camera's frame where motion never counts: a timestamp, a tree in the wind, "
          "the sky (polygons in frame fractions).",
          true, "- {camera: main, points: [[0, 0], [0.35, 0], [0.35, 0.08], [0, 0.08]]}"};
}

void add_motion_masks_fields(std::vector<FieldSpec>& t) {
  add_list_section(
      t, &Config::motion_masks, "Each mask a mapping; none by default.",
      {camera_member<MotionMaskConfig>(),
       member("points", &MotionMaskConfig::points, {},
              {.min = 0, .max = 1, .rule = mask_corners, .required = true},
              "Its corners in order, [x, y] each a fraction of the frame: (0, 0) top left, (1, 1) "
              "bottom right.")});
}

void check_motion_masks(std::vector<MotionMaskConfig>& masks,
                        const std::vector<CameraConfig>& cameras, Problems& problems) {
  for (std::size_t i = 0; i < masks.size(); ++i) {
    check_camera(masks[i].camera, "motion_masks[" + std::to_string(i) + "]", cameras, problems);
  }
}

}  // namespace yolo::config::section_files
