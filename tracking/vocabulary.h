// SPDX-License-Identifier: Apache-2.0
#pragma once

// The words of tracked-object events, named once: the config (which events get a snapshot, where a
// line's "in" side is), the tracker's scene, the daemon's outputs and `yolo-edge track` all use
// these. Header only, so config/ can name them without linking the tracker.

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace yolo::tracking {

// What happened to a tracked object.
enum class ObjectEventKind {
  kNew,     // a track is confirmed (seen for tracking.confirm_frames frames)
  kEnter,   // its reference point entered a zone
  kLeave,   // ... and left it (or the track ended inside it)
  kCross,   // it crossed a line, in or out
  kLoiter,  // it has stayed in a zone longer than the zone's loiter_s
  kEnd,     // the track was lost for longer than tracking.lost_s
};
inline constexpr std::array<std::string_view, 6> kObjectEventNames{"new",   "enter",  "leave",
                                                                   "cross", "loiter", "end"};

// Which point of a box stands for the object when it is placed in a zone or against a line: its
// bottom centre (where a person's feet or a car's wheels touch the ground) by default.
enum class Anchor { kBottomCenter, kCenter, kTopCenter };
inline constexpr std::array<std::string_view, 3> kAnchorNames{"bottom_center", "center",
                                                              "top_center"};

// The side of a line that is "in", as seen in the image.
enum class Side { kAbove, kBelow, kLeft, kRight };
inline constexpr std::array<std::string_view, 4> kSideNames{"above", "below", "left", "right"};

// Which way a line was crossed: into its "in" side, or out of it.
enum class Direction { kIn, kOut };
inline constexpr std::array<std::string_view, 2> kDirectionNames{"in", "out"};

template <class E, std::size_t N>
constexpr std::string_view name_of(E value, const std::array<std::string_view, N>& names) {
  return names.at(static_cast<std::size_t>(value));
}
constexpr std::string_view event_kind_name(ObjectEventKind k) {
  return name_of(k, kObjectEventNames);
}
constexpr std::string_view anchor_name(Anchor a) {
  return name_of(a, kAnchorNames);
}
constexpr std::string_view side_name(Side s) {
  return name_of(s, kSideNames);
}
constexpr std::string_view direction_name(Direction d) {
  return name_of(d, kDirectionNames);
}

// The kind named `name`; nullopt for a name this version does not know.
constexpr std::optional<ObjectEventKind> event_kind(std::string_view name) {
  for (std::size_t i = 0; i < kObjectEventNames.size(); ++i) {
    if (kObjectEventNames[i] == name) return static_cast<ObjectEventKind>(i);
  }
  return std::nullopt;
}

}  // namespace yolo::tracking
