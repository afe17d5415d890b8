// SPDX-License-Identifier: Apache-2.0
#include "daemon/core/event_log.h"

#include <algorithm>
#include <stdexcept>

namespace yolo::daemon {

EventLog::EventLog(std::size_t history) : history_(std::max<std::size_t>(history, 1)) {}

void EventLog::set_history(std::size_t history) {
  std::lock_guard lock(mutex_);
  history_ = std::max<std::size_t>(history, 1);
  while (events_.size() > history_) events_.pop_front();
}

void EventLog::add(std::vector<tracking::ObjectEvent>& events) {
  if (events.empty()) return;
  std::lock_guard lock(mutex_);
  for (tracking::ObjectEvent& e : events) {
    e.id = ++last_id_;
    events_.push_back(e);
  }
  while (events_.size() > history_) events_.pop_front();
  ++version_;
}

EventLog::Page EventLog::since(std::int64_t since, std::size_t limit) const {
  std::lock_guard lock(mutex_);
  Page page;
  // Ids only grow along the deque: the first one past `since` is found by bisection.
  auto it =
      std::upper_bound(events_.begin(), events_.end(), since,
                       [](std::int64_t id, const tracking::ObjectEvent& e) { return id < e.id; });
  for (; it != events_.end() && page.events.size() < limit; ++it) page.events.push_back(*it);
  page.more = it != events_.end();
  return page;
}

std::vector<tracking::ObjectEvent> EventLog::latest(std::size_t limit) const {
  std::lock_guard lock(mutex_);
  std::vector<tracking::ObjectEvent> out;
  for (auto it = events_.rbegin(); it != events_.rend() && out.size() < limit; ++it) {
    out.push_back(*it);
  }
  return out;
}

std::int64_t EventLog::last_id() const {
  std::lock_guard lock(mutex_);
  return last_id_;
}

std::uint64_t EventLog::version() const {
  std::lock_guard lock(mutex_);
  return version_;
}

nlohmann::json EventLog::to_json() const {
  std::lock_guard lock(mutex_);
  nlohmann::json list = nlohmann::json::array();
  for (const tracking::ObjectEvent& e : events_) list.push_back(tracking::to_json(e));
  return {{"last_id", last_id_}, {"events", std::move(list)}};
}

void EventLog::restore(const nlohmann::json& json) {
  if (!json.is_object() || !json.contains("last_id") || !json["last_id"].is_number_integer() ||
      !json.contains("events") || !json["events"].is_array()) {
    throw std::runtime_error(
        "expected {\"last_id\": N, \"events\": [...]} as the daemon writes it");
  }
  std::deque<tracking::ObjectEvent> events;
  for (const nlohmann::json& e : json["events"])
    events.push_back(tracking::object_event_from_json(e));
  std::sort(events.begin(), events.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  const std::int64_t last = json["last_id"].get<std::int64_t>();
  std::lock_guard lock(mutex_);
  events_ = std::move(events);
  while (events_.size() > history_) events_.pop_front();
  last_id_ = std::max(last, events_.empty() ? std::int64_t{0} : events_.back().id);
  ++version_;
}

}  // namespace yolo::daemon
