// SPDX-License-Identifier: Apache-2.0
#include "daemon/core/event_media.h"

#include <array>
#include <charconv>
#include <cstdio>
#include <string>

namespace yolo::daemon {

namespace {

// Digits of the zero-padded id that starts every name.
constexpr std::size_t kIdDigits = 12;
// What follows the id: snapshot, crop, clip.
constexpr std::array<std::string_view, 3> kSuffixes{".jpg", "-crop.jpg", ".avi"};

}  // namespace

std::filesystem::path event_media_dir(const std::filesystem::path& state_dir) {
  return state_dir / "events";
}

EventMedia event_media(const std::filesystem::path& state_dir, std::int64_t event_id) {
  // Zero-padded so that a listing sorts by id.
  char stem[32];
  std::snprintf(stem, sizeof stem, "%0*lld", static_cast<int>(kIdDigits),
                static_cast<long long>(event_id));
  const std::filesystem::path dir = event_media_dir(state_dir);
  return {dir / (stem + std::string(kSuffixes[0])), dir / (stem + std::string(kSuffixes[1])),
          dir / (stem + std::string(kSuffixes[2]))};
}

std::optional<std::int64_t> event_media_id(std::string_view file_name) {
  if (file_name.size() <= kIdDigits) return std::nullopt;
  const std::string_view suffix = file_name.substr(kIdDigits);
  bool known = false;
  for (const std::string_view s : kSuffixes) known = known || suffix == s;
  if (!known) return std::nullopt;
  std::int64_t id = 0;
  const char* end = file_name.data() + kIdDigits;
  const auto [stop, error] = std::from_chars(file_name.data(), end, id);
  if (error != std::errc() || stop != end || id < 0) return std::nullopt;
  return id;
}

}  // namespace yolo::daemon
