// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/state/state_output.h"

#include <system_error>
#include <utility>

#include "daemon/base/atomic_file.h"
#include "daemon/core/state_files.h"
#include "tracking/counts.h"

namespace yolo::daemon {

namespace {

// How long stop() waits for the last write.
constexpr auto kStopLimit = std::chrono::seconds(5);

}  // namespace

StateOutput::StateOutput(Events& events, EventLog& log, std::filesystem::path state_dir,
                         std::chrono::milliseconds period)
    : events_(events),
      log_(log),
      dir_(std::move(state_dir)),
      period_(period),
      // What the log holds now was read from the folder at start: not written again.
      saved_events_(log.version()) {}

StateOutput::~StateOutput() {
  stop();
}

void StateOutput::configure(const config::Config&) {}

void StateOutput::start() {
  if (!worker_.running()) worker_.start("state", [this] { run(); });
}

void StateOutput::publish(std::shared_ptr<const FrameResult> result) {
  if (!result->scene) return;
  std::lock_guard lock(mutex_);
  scenes_[result->scene->camera] = result->scene;
}

nlohmann::json StateOutput::status() const {
  std::lock_guard lock(mutex_);
  nlohmann::json j = {{"ok", error_.empty()}, {"writes", writes_}};
  if (!error_.empty()) j["warning"] = error_;
  return j;
}

bool StateOutput::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  return worker_.stop_within(std::chrono::duration_cast<std::chrono::milliseconds>(kStopLimit));
}

void StateOutput::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait_for(lock, period_, [this] { return stopping_; });
    const bool last = stopping_;
    lock.unlock();
    save();
    lock.lock();
    if (last) return;
  }
}

void StateOutput::save() {
  std::map<std::string, std::shared_ptr<const SceneState>, std::less<>> scenes;
  {
    std::lock_guard lock(mutex_);
    scenes = scenes_;
  }
  std::map<std::string, std::uint64_t, std::less<>> versions;
  tracking::Counts counts;
  for (const auto& [camera, scene] : scenes) {
    versions[camera] = scene->version;
    counts.places.insert(counts.places.end(), scene->counts.places.begin(),
                         scene->counts.places.end());
  }
  std::string error;
  int written = 0;
  try {
    if (versions != saved_scenes_) {
      write_file_atomically(counts_file(dir_), tracking::to_json(counts).dump(1) + "\n");
      saved_scenes_ = std::move(versions);
      ++written;
    }
    if (const std::uint64_t version = log_.version(); version != saved_events_) {
      write_file_atomically(events_file(dir_), log_.to_json().dump() + "\n");
      saved_events_ = version;
      ++written;
    }
  } catch (const std::system_error& e) {
    error = e.what();
  }
  // Said once when writing starts failing and once when it works again, not every minute.
  if (!error.empty() && !failing_) {
    events_.log().warning("state: " + error +
                          "; the counts and events go on in memory and are written again once "
                          "the disk takes them");
  } else if (error.empty() && failing_) {
    events_.log().info("state: counts and events are written again to " + dir_.string());
  }
  failing_ = !error.empty();
  std::lock_guard lock(mutex_);
  writes_ += written;
  error_ = error;
}

}  // namespace yolo::daemon
