// SPDX-License-Identifier: Apache-2.0
// The event log (daemon/core/event_log.cpp): ids across restarts, pages, history.
#include "daemon/core/event_log.h"

#include <gtest/gtest.h>

namespace yolo::daemon {
namespace {

std::vector<tracking::ObjectEvent> events(int n) {
  std::vector<tracking::ObjectEvent> out(static_cast<std::size_t>(n));
  for (auto& e : out) {
    e.kind = tracking::ObjectEventKind::kNew;
    e.camera = "main";
    e.label = "person";
  }
  return out;
}

TEST(EventLog, NumbersKeepsTheNewestAndPages) {
  EventLog log(5);
  auto batch = events(3);
  log.add(batch);
  EXPECT_EQ(batch[2].id, 3);
  auto more = events(4);
  log.add(more);
  EXPECT_EQ(log.last_id(), 7);
  // Only the newest five are kept.
  const EventLog::Page all = log.since(0, 100);
  ASSERT_EQ(all.events.size(), 5u);
  EXPECT_EQ(all.events.front().id, 3);
  EXPECT_FALSE(all.more);
  const EventLog::Page page = log.since(3, 2);
  ASSERT_EQ(page.events.size(), 2u);
  EXPECT_EQ(page.events[0].id, 4);
  EXPECT_TRUE(page.more);
  EXPECT_TRUE(log.since(7, 10).events.empty());
  const auto latest = log.latest(2);
  ASSERT_EQ(latest.size(), 2u);
  EXPECT_EQ(latest[0].id, 7);
  log.set_history(2);
  EXPECT_EQ(log.since(0, 10).events.size(), 2u);
}

TEST(EventLog, GoesOnFromWhatAnEarlierRunKept) {
  EventLog first(10);
  auto batch = events(4);
  first.add(batch);
  const std::uint64_t version = first.version();
  EventLog second(10);
  second.restore(nlohmann::json::parse(first.to_json().dump()));
  EXPECT_GT(second.version(), 0u);
  EXPECT_EQ(second.since(0, 10).events.size(), 4u);
  auto next = events(1);
  second.add(next);
  EXPECT_EQ(next[0].id, 5);
  EXPECT_EQ(version, first.version());
  EXPECT_THROW(second.restore(nlohmann::json::parse("{\"events\": 3}")), std::runtime_error);
}

}  // namespace
}  // namespace yolo::daemon
