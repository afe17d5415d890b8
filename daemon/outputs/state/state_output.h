// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "daemon/base/worker.h"
#include "daemon/core/event_log.h"
#include "daemon/core/events.h"
#include "daemon/core/publisher.h"

namespace yolo::daemon {

// Keeps the zones' and lines' counts and the newest tracked-object events in the state folder
// (counts.json, events.json; daemon/core/state_files.h) so that they survive a restart. An SD
// card wears with every write: a file is rewritten only when what it holds changed, at most once
// per `period`, and once more at stop. Written on its own thread, atomically.
class StateOutput : public Publisher {
 public:
  StateOutput(Events& events, EventLog& log, std::filesystem::path state_dir,
              std::chrono::milliseconds period = std::chrono::minutes(1));
  ~StateOutput() override;

  std::string_view name() const override { return "state"; }
  void configure(const config::Config& config) override;
  void start() override;
  void publish(std::shared_ptr<const FrameResult> result) override;
  nlohmann::json status() const override;
  bool stop() override;

 private:
  void run();
  // Writes what changed since the last write; on the thread.
  void save();

  Events& events_;
  EventLog& log_;
  std::filesystem::path dir_;
  std::chrono::milliseconds period_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  // Each camera's, by name: counts.json holds them all.
  std::map<std::string, std::shared_ptr<const SceneState>, std::less<>> scenes_;

  // The thread's own: the version of each camera's scene last written.
  std::map<std::string, std::uint64_t, std::less<>> saved_scenes_;
  std::uint64_t saved_events_;
  bool failing_ = false;

  // What status() shows.
  std::int64_t writes_ = 0;
  std::string error_;

  // Last: its thread uses the members above.
  Worker worker_;
};

}  // namespace yolo::daemon
