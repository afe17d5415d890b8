// SPDX-License-Identifier: Apache-2.0
// The event kinds' table: every kind named once, names read back, unknown names refused.
#include "fieldlog/events.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace yolo::fieldlog {
namespace {

TEST(EventKinds, EveryKindHasOneNameThatReadsBack) {
  std::set<std::string_view> names;
  for (const EventSpec& spec : event_specs()) {
    EXPECT_TRUE(names.insert(spec.name).second) << spec.name << " named twice";
    EXPECT_EQ(event_name(spec.kind), spec.name);
    EXPECT_EQ(event_kind(spec.name), spec.kind) << spec.name;
    // Names are what the field log, the journal's YOLO_EVENT and Prometheus labels carry: a
    // lower-case letter, then lower-case letters, digits and underscores ("int8_drift").
    ASSERT_FALSE(spec.name.empty());
    EXPECT_TRUE(spec.name[0] >= 'a' && spec.name[0] <= 'z') << spec.name;
    for (char c : spec.name) {
      EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') << spec.name;
    }
  }
  EXPECT_EQ(event_name(EventKind::kSourceLost), "source_lost");
  EXPECT_EQ(event_name(EventKind::kLogLinesLost), "log_lines_lost");
}

TEST(EventKinds, UnknownNamesAreNotGuessed) {
  EXPECT_EQ(event_kind("Source_Lost"), std::nullopt);
  EXPECT_EQ(event_kind("thread_decision"), std::nullopt);
  EXPECT_EQ(event_kind(""), std::nullopt);
}

TEST(EventKinds, TheErrorsAreTheOnesTheDaemonReportsAtLevelError) {
  std::set<std::string_view> errors;
  for (const EventSpec& spec : event_specs()) {
    if (spec.error) errors.insert(spec.name);
    EXPECT_EQ(is_error(spec.kind), spec.error);
  }
  EXPECT_EQ(errors, (std::set<std::string_view>{"config_rejected", "frame_failed", "model_error",
                                                "model_failed", "quantize_failed"}));
}

}  // namespace
}  // namespace yolo::fieldlog
