// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "daemon/core/publisher.h"
#include "tests/daemon/recorded_event.h"

namespace yolo::test {

// A publisher that keeps every event it is given (as recorded() shows it) and ignores the rest,
// so a test can look at what the daemon's parts announced. A test that also wants the results
// derives from it and overrides publish().
class EventRecorder : public daemon::Publisher {
 public:
  std::string_view name() const override { return "events"; }
  void configure(const config::Config&) override {}
  void start() override {}
  void publish(std::shared_ptr<const daemon::FrameResult>) override {}
  void event(const daemon::Event& e) override {
    std::lock_guard lock(mutex_);
    events_.push_back(recorded(e));
  }
  bool stop() override { return true; }

  // The events of kind `name`, oldest first.
  std::vector<nlohmann::json> named(const std::string& name) const {
    std::lock_guard lock(mutex_);
    std::vector<nlohmann::json> found;
    for (const auto& e : events_) {
      if (e["event"] == name) found.push_back(e);
    }
    return found;
  }
  int count(const std::string& name) const { return static_cast<int>(named(name).size()); }
  // The kinds of all events, oldest first.
  std::vector<std::string> names() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> kinds;
    for (const auto& e : events_) kinds.push_back(e["event"]);
    return kinds;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<nlohmann::json> events_;
};

}  // namespace yolo::test
