// SPDX-License-Identifier: Apache-2.0
// The JSON of tracked-object events and of counts, as the API and the event stream give them.
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

#include "config/sections/events.h"
#include "daemon/core/frame_result.h"
#include "tracking/object_event.h"

namespace yolo::daemon::http {

// An event as GET /api/events and the event stream give it: tracking::to_json() and the
// addresses of its snapshot, crop and clip, each when its file is in `state_dir`'s events folder
// or, with `expected`, when events.* say one is made for such an event (it may be written a
// moment after the event is sent).
nlohmann::json event_json(const tracking::ObjectEvent& event,
                          const std::filesystem::path& state_dir,
                          const config::EventsConfig* expected = nullptr);

// A scene's zones and lines with their counts (by class; by local hour with `hours`) and
// occupancy, in the order of the config.
nlohmann::json counts_json(const SceneState& scene, bool hours);

}  // namespace yolo::daemon::http
