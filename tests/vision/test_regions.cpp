// SPDX-License-Identifier: Apache-2.0
#include "vision/regions.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace yolo::vision {
namespace {

const cv::Size kFrame(1280, 720);
const cv::Size kInput(320, 320);

bool inside(const cv::Rect& r, cv::Size frame) {
  return r.x >= 0 && r.y >= 0 && r.x + r.width <= frame.width && r.y + r.height <= frame.height;
}

bool covers(const cv::Rect& r, const Box& b) {
  return r.x <= b.x1 && r.y <= b.y1 && r.x + r.width >= b.x2 && r.y + r.height >= b.y2;
}

TEST(Regions, NoMotionNoRegions) {
  const RegionPlan plan = plan_regions({}, kFrame, kInput);
  EXPECT_TRUE(plan.regions.empty());
  EXPECT_FALSE(plan.whole_frame);
}

TEST(Regions, OneSmallMotionIsOneModelSizedCropCentredOnIt) {
  const std::vector<Box> motion{{600, 300, 640, 380}};
  const RegionPlan plan = plan_regions(motion, kFrame, kInput);
  EXPECT_FALSE(plan.whole_frame);
  ASSERT_EQ(plan.regions.size(), 1u);
  EXPECT_EQ(plan.regions[0], cv::Rect(460, 180, 320, 320));
}

TEST(Regions, TwoCloseMotionsAreMerged) {
  const std::vector<Box> motion{{400, 300, 440, 340}, {600, 320, 640, 360}};
  const RegionPlan plan = plan_regions(motion, kFrame, kInput);
  ASSERT_EQ(plan.regions.size(), 1u);
  const cv::Rect& r = plan.regions[0];
  EXPECT_TRUE(covers(r, motion[0]));
  EXPECT_TRUE(covers(r, motion[1]));
  EXPECT_TRUE(inside(r, kFrame));
  // The union of the two 320 px crops (centres 420 and 620) is 520 px wide; square like the input.
  EXPECT_EQ(r.width, 520);
  EXPECT_EQ(r.height, 520);
}

TEST(Regions, FarMotionsKeepTheirOwnCrops) {
  const std::vector<Box> motion{{100, 100, 140, 140}, {1000, 500, 1040, 540}};
  const RegionPlan plan = plan_regions(motion, kFrame, kInput);
  ASSERT_EQ(plan.regions.size(), 2u);
  EXPECT_EQ(plan.regions[0].size(), kInput);
  EXPECT_EQ(plan.regions[1].size(), kInput);
  EXPECT_EQ((plan.regions[0] & plan.regions[1]).area(), 0);
}

TEST(Regions, MotionAtACornerIsClampedInside) {
  const std::vector<Box> motion{{0, 0, 20, 20}, {1270, 700, 1280, 720}};
  const RegionPlan plan = plan_regions(motion, kFrame, kInput);
  ASSERT_EQ(plan.regions.size(), 2u);
  EXPECT_EQ(plan.regions[0], cv::Rect(0, 0, 320, 320));
  EXPECT_EQ(plan.regions[1], cv::Rect(960, 400, 320, 320));
}

TEST(Regions, MotionLargerThanTheInputIsCoveredAtTheInputsAspect) {
  const std::vector<Box> motion{{300.5f, 200, 800, 400}};
  const RegionPlan plan = plan_regions(motion, kFrame, kInput);
  ASSERT_EQ(plan.regions.size(), 1u);
  const cv::Rect& r = plan.regions[0];
  EXPECT_TRUE(covers(r, motion[0]));
  EXPECT_EQ(r.width, 500);  // 300..800 after rounding outwards
  EXPECT_EQ(r.height, 500);
  EXPECT_TRUE(inside(r, kFrame));

  // A wide input keeps its aspect: a 400 px tall motion for 640x384 needs 667x400.
  const std::vector<Box> tall{{600, 100, 620, 500}};
  const RegionPlan wide = plan_regions(tall, kFrame, {640, 384});
  ASSERT_EQ(wide.regions.size(), 1u);
  EXPECT_EQ(wide.regions[0].size(), cv::Size(667, 400));
}

TEST(Regions, ACropIsNeverLargerThanTheFrame) {
  const std::vector<Box> motion{{20, 300, 1220, 400}};
  const RegionPlan plan = plan_regions(motion, kFrame, kInput);
  ASSERT_EQ(plan.regions.size(), 1u);
  EXPECT_EQ(plan.regions[0], cv::Rect(20, 0, 1200, 720));
}

TEST(Regions, TooManyRegionsIsTheWholeFrame) {
  std::vector<Box> motion;
  for (int i = 0; i < 5; ++i) {
    const float x = 100 + 400.0f * static_cast<float>(i % 3);
    const float y = i < 3 ? 50 : 600;
    motion.push_back({x, y, x + 30, y + 30});
  }
  const RegionPlan five = plan_regions(motion, kFrame, kInput, {.max_regions = 5});
  EXPECT_EQ(five.regions.size(), 5u);
  EXPECT_FALSE(five.whole_frame);
  const RegionPlan four = plan_regions(motion, kFrame, kInput, {.max_regions = 4});
  EXPECT_TRUE(four.regions.empty());
  EXPECT_TRUE(four.whole_frame);
}

TEST(Regions, CropsCoveringTheFrameAreTheWholeFrame) {
  // A frame no bigger than the input: any crop is all of it.
  const std::vector<Box> one{{10, 10, 20, 20}};
  EXPECT_TRUE(plan_regions(one, {320, 240}, kInput).whole_frame);
  // Two crops that tile a 640x320 frame.
  const std::vector<Box> two{{0, 100, 10, 110}, {630, 100, 640, 110}};
  const RegionPlan plan = plan_regions(two, {640, 320}, kInput);
  EXPECT_TRUE(plan.whole_frame);
  EXPECT_TRUE(plan.regions.empty());
}

// The rule's promises on random motion: crops inside the frame, at least the input's size, none
// overlapping, every motion box covered; or the whole frame for a reason the rule gives.
TEST(Regions, RandomMotionKeepsTheRulesPromises) {
  for (unsigned seed = 1; seed <= 500; ++seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> pos(0, 1), size(0, 0.4f);
    std::vector<Box> motion(1 + rng() % 8);
    for (Box& b : motion) {
      const float x = pos(rng) * kFrame.width, y = pos(rng) * kFrame.height;
      b = {x, y, std::min<float>(kFrame.width, x + size(rng) * kFrame.width),
           std::min<float>(kFrame.height, y + size(rng) * kFrame.height)};
    }
    const RegionOptions options{.max_regions = 3};
    const RegionPlan plan = plan_regions(motion, kFrame, kInput, options);
    SCOPED_TRACE("seed " + std::to_string(seed));
    if (plan.whole_frame) {
      ASSERT_TRUE(plan.regions.empty());
      continue;
    }
    ASSERT_LE(plan.regions.size(), 3u);
    for (std::size_t i = 0; i < plan.regions.size(); ++i) {
      const cv::Rect& r = plan.regions[i];
      EXPECT_TRUE(inside(r, kFrame));
      EXPECT_GE(r.width, kInput.width);
      EXPECT_GE(r.height, kInput.height);
      if (r.height < kFrame.height) {
        EXPECT_EQ(r.width, r.height);
      }
      for (std::size_t j = i + 1; j < plan.regions.size(); ++j)
        EXPECT_EQ((r & plan.regions[j]).area(), 0);
    }
    for (const Box& b : motion) {
      bool covered = false;
      for (const cv::Rect& r : plan.regions) covered = covered || covers(r, b);
      EXPECT_TRUE(covered) << b.x1 << "," << b.y1 << " " << b.x2 << "," << b.y2;
    }
  }
}

TEST(Regions, RefusesEmptySizes) {
  const std::vector<Box> motion{{0, 0, 10, 10}};
  EXPECT_THROW(plan_regions(motion, {0, 720}, kInput), std::invalid_argument);
  EXPECT_THROW(plan_regions(motion, kFrame, {320, 0}), std::invalid_argument);
  EXPECT_THROW(plan_regions(motion, kFrame, kInput, {.max_regions = -1}), std::invalid_argument);
}

TEST(Regions, CropToFrameIsExact) {
  EXPECT_EQ(crop_to_frame({10.5f, 20.25f, 30, 40.75f}, {100, 200, 320, 320}),
            (Box{110.5f, 220.25f, 130, 240.75f}));
  EXPECT_EQ(crop_to_frame({0, 0, 320, 320}, {960, 400, 320, 320}), (Box{960, 400, 1280, 720}));
}

TEST(Regions, JoinMapsEachCropsDetectionsToTheFrame) {
  const std::vector<cv::Rect> regions{{0, 0, 320, 320}, {900, 300, 320, 320}};
  const std::vector<Detections> per_region{{{0, 0.9f, {10, 10, 50, 50}}},
                                           {{2, 0.8f, {10, 20, 30, 40}}}};
  const Detections out = join_region_detections(per_region, regions, {});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].box, (Box{10, 10, 50, 50}));
  EXPECT_EQ(out[1].class_id, 2);
  EXPECT_EQ(out[1].box, (Box{910, 320, 930, 340}));
}

TEST(Regions, JoinMendsAnObjectCutWhereTwoCropsMeet) {
  // Two crops side by side meeting at x = 320; a car from x 280 to 380 is cut there.
  const std::vector<cv::Rect> regions{{0, 100, 320, 320}, {320, 120, 320, 320}};
  const std::vector<Detections> per_region{
      {{2, 0.7f, {280, 50, 319, 110}}, {0, 0.9f, {290, 50, 320, 110}}},
      {{2, 0.6f, {0.5f, 32, 60, 88}}, {0, 0.9f, {200, 10, 240, 50}}}};
  const Detections out = join_region_detections(per_region, regions, {});
  ASSERT_EQ(out.size(), 3u);
  // Best score first (NMS order): the two people, which touch no shared edge, stay as they are.
  EXPECT_EQ(out[0].box, (Box{290, 150, 320, 210}));
  EXPECT_EQ(out[1].box, (Box{520, 130, 560, 170}));
  EXPECT_EQ(out[2].class_id, 2);
  EXPECT_FLOAT_EQ(out[2].score, 0.7f);
  EXPECT_EQ(out[2].box, (Box{280, 150, 380, 210}));
}

TEST(Regions, JoinLeavesPiecesThatDoNotLineUp) {
  const std::vector<cv::Rect> regions{{0, 0, 320, 320}, {320, 0, 320, 320}};
  // Same class at the shared edge, but one is far above the other: two objects.
  const std::vector<Detections> per_region{{{2, 0.7f, {280, 10, 320, 50}}},
                                           {{2, 0.6f, {0, 200, 60, 260}}}};
  EXPECT_EQ(join_region_detections(per_region, regions, {}).size(), 2u);
  // Regions a caller made overlap: the same car seen twice is one after NMS.
  const std::vector<cv::Rect> overlapping{{0, 0, 320, 320}, {100, 0, 320, 320}};
  const std::vector<Detections> twice{{{2, 0.7f, {150, 10, 250, 60}}},
                                      {{2, 0.6f, {51, 11, 150, 61}}}};
  const Detections once = join_region_detections(twice, overlapping, {});
  ASSERT_EQ(once.size(), 1u);
  EXPECT_FLOAT_EQ(once[0].score, 0.7f);
  EXPECT_THROW(join_region_detections(twice, std::vector<cv::Rect>{}, {}), std::invalid_argument);
}

}  // namespace
}  // namespace yolo::vision
