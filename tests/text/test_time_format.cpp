// SPDX-License-Identifier: Apache-2.0
// iso8601_utc: the time stamps of field-log lines (text/time_format.cpp).
#include "text/time_format.h"

#include <gtest/gtest.h>

#include <chrono>

namespace yolo::text {
namespace {

using namespace std::chrono_literals;

TEST(UtcTime, MillisecondsAndZulu) {
  const auto time = std::chrono::system_clock::time_point(1'800'000'000s) + 7ms;
  EXPECT_EQ(iso8601_utc(time), "2027-01-15T08:00:00.007Z");
}

TEST(UtcTime, SubMillisecondsAreCutNotRounded) {
  const auto time = std::chrono::system_clock::time_point(86'399s) + 999'999us;
  EXPECT_EQ(iso8601_utc(time), "1970-01-01T23:59:59.999Z");
}

TEST(UtcTime, ReadableToTheSecond) {
  const auto t = std::chrono::system_clock::time_point(std::chrono::milliseconds(1763924846999));
  EXPECT_EQ(readable_utc(t), "2025-11-23 19:07:26");
}

TEST(UtcTime, BeforeTheEpoch) {
  const auto time = std::chrono::system_clock::time_point(-1s) + 250ms;
  EXPECT_EQ(iso8601_utc(time), "1969-12-31T23:59:59.250Z");
}

}  // namespace
}  // namespace yolo::text
