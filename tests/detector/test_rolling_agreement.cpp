// SPDX-License-Identifier: Apache-2.0
#include "detector/rolling_agreement.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace yolo::detector {
namespace {

using Clock = RollingAgreement::Clock;
using std::chrono::minutes;
using std::chrono::seconds;

// A frame FP32 saw: `people` people and `cars` cars, side by side.
vision::Detections scene(int people, int cars) {
  vision::Detections d;
  for (int i = 0; i < people + cars; ++i) {
    const float x = 20.0f * static_cast<float>(i);
    d.push_back({i < people ? 0 : 2, 0.8f, {x, 10, x + 15, 40}});
  }
  return d;
}

// The same frame as an INT8 file that has lost the cars would see it.
vision::Detections without_cars(vision::Detections d) {
  std::erase_if(d, [](const vision::Detection& x) { return x.class_id == 2; });
  return d;
}

TEST(RollingAgreement, IdenticalDetectionsAgreeFully) {
  RollingAgreement rolling({minutes(60), 100}, 0.25f);
  const Clock::time_point t0{};
  for (int i = 0; i < 10; ++i) rolling.add(t0 + seconds(10 * i), scene(3, 2), scene(3, 2));
  EXPECT_EQ(rolling.checks(), 10u);
  EXPECT_EQ(rolling.fp32_boxes(), 50);
  std::string what;
  ASSERT_TRUE(rolling.value(&what).has_value());
  EXPECT_DOUBLE_EQ(*rolling.value(), 1.0);
  EXPECT_NE(what.find("mAP50"), std::string::npos) << what;
  const vision::Agreement a = rolling.agreement();
  EXPECT_EQ(a.images, 10);
  EXPECT_EQ(a.judged_classes, 2);
  ASSERT_TRUE(a.score_mad.has_value());
  EXPECT_DOUBLE_EQ(*a.score_mad, 0.0);
}

TEST(RollingAgreement, APlantedDropIsFoundAndLeavesWithTheWindow) {
  RollingAgreement rolling({minutes(10), 1000}, 0.25f);
  const Clock::time_point t0{};
  // Ten minutes of agreement, then INT8 loses the cars.
  for (int i = 0; i < 20; ++i) rolling.add(t0 + seconds(30 * i), scene(3, 2), scene(3, 2));
  EXPECT_DOUBLE_EQ(*rolling.value(), 1.0);
  const Clock::time_point drop = t0 + minutes(10);
  for (int i = 0; i < 20; ++i) {
    rolling.add(drop + seconds(30 * i), scene(3, 2), without_cars(scene(3, 2)));
  }
  // The window holds only the last ten minutes: the cars' AP50 is 0, the people's 1.
  EXPECT_EQ(rolling.checks(), 20u);
  EXPECT_NEAR(*rolling.value(), 0.5, 1e-9);
  const vision::Agreement a = rolling.agreement();
  for (const auto& k : a.classes) {
    if (k.class_id == 2) {
      EXPECT_EQ(k.a_count, 40);
      EXPECT_EQ(k.matched, 0);
    }
  }
}

// The agreement is kept between checks (the drift watch and the status both read it), and
// forgotten whenever the window's checks change: a check added, expired or cleared.
TEST(RollingAgreement, WhatIsKeptFollowsTheWindow) {
  RollingAgreement rolling({minutes(10), 1000}, 0.25f);
  const Clock::time_point t0{};
  for (int i = 0; i < 4; ++i) rolling.add(t0 + seconds(i), scene(3, 2), scene(3, 2));
  EXPECT_DOUBLE_EQ(*rolling.value(), 1.0);
  EXPECT_DOUBLE_EQ(*rolling.value(), 1.0);
  rolling.add(t0 + minutes(9), scene(3, 2), without_cars(scene(3, 2)));
  EXPECT_LT(*rolling.value(), 1.0);
  // The first four leave the window; the check without cars stays: too few boxes for a class
  // mean, so the box-weighted AP50, 3 of 5.
  rolling.expire(t0 + minutes(10) + seconds(30));
  EXPECT_EQ(rolling.checks(), 1u);
  EXPECT_NEAR(*rolling.value(), 0.6, 1e-9);
  rolling.clear();
  EXPECT_FALSE(rolling.value().has_value());
}

TEST(RollingAgreement, TheTrendShowsWhenTheDropCame) {
  RollingAgreement rolling({minutes(60), 1000}, 0.25f);
  const Clock::time_point t0{};
  for (int i = 0; i < 60; ++i) {
    const auto int8 = i < 30 ? scene(3, 2) : without_cars(scene(3, 2));
    rolling.add(t0 + minutes(i), scene(3, 2), int8);
  }
  const auto trend = rolling.trend(t0 + minutes(60), 6);
  ASSERT_EQ(trend.size(), 6u);
  for (int s = 0; s < 6; ++s) {
    ASSERT_TRUE(trend[static_cast<std::size_t>(s)].has_value()) << s;
    EXPECT_NEAR(*trend[static_cast<std::size_t>(s)], s < 3 ? 1.0 : 0.5, 1e-9) << s;
  }
  // Slices with no check have no value: 40 minutes later, the last 20 are left.
  const auto later = rolling.trend(t0 + minutes(100), 6);
  for (int s = 0; s < 6; ++s) EXPECT_EQ(later[static_cast<std::size_t>(s)].has_value(), s < 2) << s;
}

TEST(RollingAgreement, NothingFoundJudgesNothing) {
  RollingAgreement rolling({minutes(60), 10}, 0.25f);
  EXPECT_FALSE(rolling.value().has_value());
  rolling.add(Clock::time_point{}, {}, scene(1, 0));
  EXPECT_FALSE(rolling.value().has_value());
  // At most max_checks are kept, the newest.
  for (int i = 0; i < 25; ++i)
    rolling.add(Clock::time_point{} + seconds(i), scene(1, 0), scene(1, 0));
  EXPECT_EQ(rolling.checks(), 10u);
  rolling.clear();
  EXPECT_EQ(rolling.checks(), 0u);
}

TEST(RollingAgreement, AWindowWithoutSpanOrRoomIsRefused) {
  EXPECT_THROW(RollingAgreement({seconds(0), 10}, 0.25f), std::invalid_argument);
  EXPECT_THROW(RollingAgreement({seconds(60), 0}, 0.25f), std::invalid_argument);
}

}  // namespace
}  // namespace yolo::detector
