// SPDX-License-Identifier: Apache-2.0
#include "vision/nms.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace yolo::vision {
namespace {

// The textbook O(n^2) greedy NMS: sort, then each surviving box suppresses every later one of the
// same class (any class when agnostic) that overlaps it by more than the threshold.
Detections brute_force(Detections d, float threshold, bool agnostic, int max_detections) {
  std::stable_sort(d.begin(), d.end(),
                   [](const Detection& a, const Detection& b) { return a.score > b.score; });
  std::vector<bool> removed(d.size(), false);
  Detections out;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (removed[i]) continue;
    out.push_back(d[i]);
    for (std::size_t j = i + 1; j < d.size(); ++j) {
      if ((agnostic || d[i].class_id == d[j].class_id) && iou(d[i].box, d[j].box) > threshold)
        removed[j] = true;
    }
  }
  if (out.size() > static_cast<std::size_t>(max_detections)) out.resize(max_detections);
  return out;
}

Detections random_boxes(std::mt19937& rng, int count, int classes) {
  std::uniform_real_distribution<float> pos(0, 200), size(5, 60), score(0.01f, 1.0f);
  std::uniform_int_distribution<int> cls(0, classes - 1);
  Detections d;
  for (int i = 0; i < count; ++i) {
    const float x = pos(rng), y = pos(rng);
    d.push_back({cls(rng), score(rng), {x, y, x + size(rng), y + size(rng)}});
  }
  return d;
}

void expect_same(const Detections& got, const Detections& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].class_id, want[i].class_id) << what << " #" << i;
    EXPECT_EQ(got[i].score, want[i].score) << what << " #" << i;
    EXPECT_EQ(got[i].box.x1, want[i].box.x1) << what << " #" << i;
    EXPECT_EQ(got[i].box.y2, want[i].box.y2) << what << " #" << i;
  }
}

TEST(Nms, MatchesBruteForceOnRandomBoxes) {
  for (unsigned seed = 1; seed <= 200; ++seed) {
    std::mt19937 rng(seed);
    const int count = 1 + static_cast<int>(rng() % 300);
    const int classes = 1 + static_cast<int>(rng() % 5);
    const float threshold = 0.2f + 0.6f * static_cast<float>(rng() % 100) / 100.0f;
    const Detections boxes = random_boxes(rng, count, classes);
    for (const bool agnostic : {false, true}) {
      const std::string what = "seed " + std::to_string(seed) + (agnostic ? " agnostic" : "");
      expect_same(nms(boxes, {threshold, agnostic, 300}),
                  brute_force(boxes, threshold, agnostic, 300), what);
      expect_same(nms(boxes, {threshold, agnostic, 7}), brute_force(boxes, threshold, agnostic, 7),
                  what + " max 7");
    }
  }
}

TEST(Nms, SuppressesOnlyAboveTheThreshold) {
  // Two boxes with IoU exactly 1/3: kept at threshold 1/3 (IoU > iou suppresses), dropped below it.
  const Detections d = {{0, 0.9f, {0, 0, 20, 10}}, {0, 0.8f, {10, 0, 30, 10}}};
  EXPECT_FLOAT_EQ(iou(d[0].box, d[1].box), 1.0f / 3);
  EXPECT_EQ(nms(d, {1.0f / 3, false, 300}).size(), 2u);
  EXPECT_EQ(nms(d, {0.3f, false, 300}).size(), 1u);
}

TEST(Nms, HandlesEmptyInputAndRejectsNegativeClasses) {
  EXPECT_TRUE(nms({}, {}).empty());
  EXPECT_TRUE(nms({{0, 0.5f, {0, 0, 1, 1}}}, {0.45f, false, 0}).empty());
  EXPECT_THROW(nms({{-1, 0.5f, {0, 0, 1, 1}}}, {}), std::invalid_argument);
}

}  // namespace
}  // namespace yolo::vision
