// SPDX-License-Identifier: Apache-2.0
#include "vision/metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace yolo::vision {
namespace {

Detection det(int class_id, float score, float x1, float y1, float x2, float y2) {
  return Detection{class_id, score, Box{x1, y1, x2, y2}};
}

Agreement one_image(const Detections& a, const Detections& b, float count_conf = 0.25f) {
  AgreementAccumulator acc(count_conf);
  acc.add(a, b);
  return acc.result();
}

const ClassAgreement* find_class(const Agreement& r, int class_id) {
  for (const auto& c : r.classes) {
    if (c.class_id == class_id) return &c;
  }
  return nullptr;
}

TEST(IouThreshold, RunsFromHalfToNinetyFivePercentInStepsOfFive) {
  EXPECT_DOUBLE_EQ(iou_threshold(0), 0.50);
  EXPECT_DOUBLE_EQ(iou_threshold(5), 0.75);
  EXPECT_DOUBLE_EQ(iou_threshold(9), 0.95);
  EXPECT_THROW(iou_threshold(10), std::out_of_range);
  EXPECT_THROW(iou_threshold(-1), std::out_of_range);
}

TEST(AveragePrecision, AllHitsCoveringEveryTruthIsOne) {
  EXPECT_DOUBLE_EQ(average_precision({true, true, true}, 3), 1.0);
}

TEST(AveragePrecision, NoPredictionsIsZero) {
  EXPECT_DOUBLE_EQ(average_precision({}, 2), 0.0);
}

TEST(AveragePrecision, HalfTheTruthsFoundCoversRecallsUpToHalf) {
  // Recall 0.5 at precision 1: the points 0, 0.01, ..., 0.50 (51 of 101) see precision 1.
  EXPECT_NEAR(average_precision({true}, 2), 51.0 / 101.0, 1e-12);
}

TEST(AveragePrecision, AMissRankedFirstHalvesThePrecisionEverywhere) {
  // Precision 0 then 1/2; the envelope lifts rank 1 to 1/2, and recall 1 is reached at rank 2.
  EXPECT_NEAR(average_precision({false, true}, 1), 0.5, 1e-12);
  // The same miss ranked last costs nothing: recall 1 is reached at precision 1 before it.
  EXPECT_DOUBLE_EQ(average_precision({true, false}, 1), 1.0);
}

TEST(AveragePrecision, EnvelopeTakesTheBestPrecisionAtOrBeyondEachRecall) {
  // hit, miss, hit over 2 truths: precision 1, 1/2, 2/3 at recall 1/2, 1/2, 1. Recalls 0..0.50
  // read rank 1 (precision 1); 0.51..1 read rank 3 (2/3).
  EXPECT_NEAR(average_precision({true, false, true}, 2), (51.0 + 50.0 * 2.0 / 3.0) / 101.0, 1e-12);
}

TEST(AveragePrecision, RejectsAClassWithoutTruths) {
  EXPECT_THROW(average_precision({true}, 0), std::invalid_argument);
}

TEST(Agreement, IdenticalDetectionsAgreePerfectly) {
  const Detections a{det(0, 0.9f, 10, 10, 50, 80), det(0, 0.6f, 100, 20, 160, 90),
                     det(3, 0.4f, 200, 200, 260, 240)};
  const Agreement r = one_image(a, a);
  ASSERT_TRUE(r.map50 && r.map50_95 && r.score_mad);
  EXPECT_DOUBLE_EQ(*r.map50, 1.0);
  EXPECT_DOUBLE_EQ(*r.map50_95, 1.0);
  EXPECT_DOUBLE_EQ(*r.score_mad, 0.0);
  EXPECT_EQ(r.matched_pairs, 3);
  EXPECT_EQ(r.images, 1);
  ASSERT_EQ(r.classes.size(), 2u);
  EXPECT_EQ(r.classes[0].class_id, 0);
  EXPECT_EQ(r.classes[0].a_count, 2);
  EXPECT_EQ(r.classes[0].b_count, 2);
  EXPECT_EQ(r.classes[0].matched, 2);
  EXPECT_EQ(r.classes[1].class_id, 3);
  EXPECT_EQ(r.classes[1].a_count, 1);
}

TEST(Agreement, OneMissedBoxHalvesTheRecall) {
  const Detections a{det(0, 0.9f, 0, 0, 100, 100), det(0, 0.8f, 200, 0, 300, 100)};
  const Detections b{det(0, 0.9f, 0, 0, 100, 100)};
  const Agreement r = one_image(a, b);
  EXPECT_NEAR(*r.map50, 51.0 / 101.0, 1e-12);
  EXPECT_NEAR(*r.map50_95, 51.0 / 101.0, 1e-12);
  EXPECT_EQ(r.classes[0].a_count, 2);
  EXPECT_EQ(r.classes[0].b_count, 1);
  EXPECT_EQ(r.classes[0].matched, 1);
}

// One box that B finds exactly (at score 0.9), and an extra B box elsewhere at `score`: where
// the extra one ranks against the match is all that differs.
Agreement with_an_extra_box(float score) {
  const Detections a{det(0, 0.9f, 0, 0, 100, 100)};
  const Detections b{det(0, 0.9f, 0, 0, 100, 100), det(0, score, 300, 300, 400, 400)};
  return one_image(a, b);
}

TEST(Agreement, AnExtraBoxScoredBelowTheMatchesCostsNoAp) {
  const Agreement r = with_an_extra_box(0.5f);
  EXPECT_DOUBLE_EQ(*r.map50, 1.0);
  EXPECT_DOUBLE_EQ(*r.map50_95, 1.0);
  EXPECT_EQ(r.classes[0].b_count, 2);
  EXPECT_EQ(r.classes[0].matched, 1);
}

TEST(Agreement, AnExtraBoxScoredAboveTheMatchHalvesTheAp) {
  const Agreement r = with_an_extra_box(0.95f);
  EXPECT_NEAR(*r.map50, 0.5, 1e-12);
  EXPECT_NEAR(*r.map50_95, 0.5, 1e-12);
}

TEST(Agreement, AShiftedBoxPassesLowThresholdsOnly) {
  // 20 px shift of a 100 px box: IoU 8000 / 12000 = 2/3, which passes 0.50, 0.55, 0.60, 0.65
  // and fails 0.70 and above, so AP50 = 1 and AP50-95 = 4/10.
  const Detections a{det(0, 0.9f, 0, 0, 100, 100)};
  const Detections b{det(0, 0.9f, 20, 0, 120, 100)};
  const Agreement r = one_image(a, b);
  EXPECT_DOUBLE_EQ(*r.map50, 1.0);
  EXPECT_NEAR(*r.map50_95, 0.4, 1e-12);
  const ClassAgreement& c = r.classes[0];
  EXPECT_DOUBLE_EQ(c.ap[3], 1.0);  // 0.65
  EXPECT_DOUBLE_EQ(c.ap[4], 0.0);  // 0.70
  EXPECT_DOUBLE_EQ(c.ap[5], 0.0);  // 0.75
}

TEST(Agreement, ScoreOrderDecidesWhichDuplicateMatches) {
  // Two B boxes on one A box: only one can match. Greedy by score gives it to the higher
  // score even though the other overlaps better; that one then counts as a false positive.
  const Detections a{det(0, 0.9f, 0, 0, 100, 100)};
  const Detections b{det(0, 0.7f, 0, 0, 100, 100), det(0, 0.8f, 10, 0, 110, 100)};
  const Agreement r = one_image(a, b);
  // The 0.8 box (IoU 9000 / 11000 = 0.818) matches up to 0.80; the exact 0.7 box picks up
  // 0.85..0.95 behind a miss, at precision 1/2.
  const ClassAgreement& c = r.classes[0];
  EXPECT_DOUBLE_EQ(c.ap[6], 1.0);    // 0.80
  EXPECT_NEAR(c.ap[7], 0.5, 1e-12);  // 0.85
  EXPECT_NEAR(c.ap50_95(), (7 * 1.0 + 3 * 0.5) / 10.0, 1e-12);
  EXPECT_EQ(r.matched_pairs, 1);
  EXPECT_NEAR(*r.score_mad, 0.1, 1e-6);
}

TEST(Agreement, RankingAcrossImagesInterleavesScores) {
  // Image 1: a miss at 0.8 above a hit at 0.7; image 2: a hit at 0.9. Over both images the
  // ranking is hit, miss, hit with 2 truths.
  AgreementAccumulator acc;
  acc.add({det(0, 0.9f, 0, 0, 100, 100)},
          {det(0, 0.8f, 500, 500, 600, 600), det(0, 0.7f, 0, 0, 100, 100)});
  acc.add({det(0, 0.9f, 0, 0, 100, 100)}, {det(0, 0.9f, 0, 0, 100, 100)});
  const Agreement r = acc.result();
  EXPECT_NEAR(*r.map50, (51.0 + 50.0 * 2.0 / 3.0) / 101.0, 1e-12);
  EXPECT_EQ(r.images, 2);
}

TEST(Agreement, ClassesMustAgreeToMatch) {
  const Detections a{det(0, 0.9f, 0, 0, 100, 100)};
  const Detections b{det(1, 0.9f, 0, 0, 100, 100)};
  const Agreement r = one_image(a, b);
  EXPECT_DOUBLE_EQ(*r.map50, 0.0);
  EXPECT_EQ(r.matched_pairs, 0);
  EXPECT_FALSE(r.score_mad);
}

TEST(Agreement, ClassesOnlyInBAreCountedButNotAveraged) {
  const Detections a{det(0, 0.9f, 0, 0, 100, 100)};
  const Detections b{det(0, 0.9f, 0, 0, 100, 100), det(7, 0.95f, 200, 200, 300, 300)};
  const Agreement r = one_image(a, b);
  EXPECT_DOUBLE_EQ(*r.map50, 1.0);
  EXPECT_DOUBLE_EQ(*r.map50_95, 1.0);
  const ClassAgreement* only_b = find_class(r, 7);
  ASSERT_NE(only_b, nullptr);
  EXPECT_FALSE(only_b->has_truth());
  EXPECT_EQ(only_b->a_count, 0);
  EXPECT_EQ(only_b->b_count, 1);
  EXPECT_EQ(only_b->matched, 0);
}

TEST(Agreement, EmptyImagesChangeNothingAndNothingAtAllHasNoMap) {
  const Agreement nothing = one_image({}, {});
  EXPECT_EQ(nothing.images, 1);
  EXPECT_TRUE(nothing.classes.empty());
  EXPECT_FALSE(nothing.map50);
  EXPECT_FALSE(nothing.map50_95);
  EXPECT_FALSE(nothing.score_mad);

  AgreementAccumulator acc;
  acc.add({}, {});
  acc.add({det(2, 0.5f, 0, 0, 10, 10)}, {det(2, 0.5f, 0, 0, 10, 10)});
  acc.add({}, {});
  const Agreement r = acc.result();
  EXPECT_EQ(r.images, 3);
  EXPECT_DOUBLE_EQ(*r.map50_95, 1.0);
}

TEST(Agreement, BoxesOnAnImageWithoutTruthAreFalsePositives) {
  AgreementAccumulator acc;
  acc.add({det(0, 0.9f, 0, 0, 100, 100)}, {det(0, 0.8f, 0, 0, 100, 100)});
  acc.add({}, {det(0, 0.9f, 0, 0, 100, 100)});
  EXPECT_NEAR(*acc.result().map50, 0.5, 1e-12);
}

TEST(Agreement, LowScoredPredictionsCountInApButNotInTheCounts) {
  const Detections a{det(0, 0.9f, 0, 0, 100, 100), det(0, 0.3f, 200, 0, 300, 100)};
  const Detections b{det(0, 0.9f, 0, 0, 100, 100), det(0, 0.1f, 200, 0, 300, 100)};
  const Agreement r = one_image(a, b, 0.25f);
  EXPECT_DOUBLE_EQ(*r.map50, 1.0);
  EXPECT_EQ(r.classes[0].b_count, 1);
  EXPECT_EQ(r.classes[0].matched, 1);
  // Both pairs enter the score difference: (0 + 0.2) / 2.
  EXPECT_EQ(r.matched_pairs, 2);
  EXPECT_NEAR(*r.score_mad, 0.1, 1e-6);
}

TEST(Agreement, ClassesWithFewBoxesLeaveTheJudgedMeanAndWeighByTheirBoxes) {
  // Class 0: 12 boxes, all found; class 5: one box, missed (B calls it class 6).
  AgreementAccumulator acc;
  for (int i = 0; i < 12; ++i) {
    const Detections a{det(0, 0.9f, 0, 0, 100, 100)};
    acc.add(a, a);
  }
  acc.add({det(5, 0.4f, 0, 0, 50, 50)}, {det(6, 0.4f, 0, 0, 50, 50)});
  const Agreement r = acc.result(10);
  EXPECT_DOUBLE_EQ(*r.map50, 0.5);
  EXPECT_EQ(r.min_boxes, 10);
  EXPECT_EQ(r.judged_classes, 1);
  EXPECT_DOUBLE_EQ(*r.map50_judged, 1.0);
  EXPECT_DOUBLE_EQ(*r.map50_95_judged, 1.0);
  EXPECT_EQ(r.truth_boxes, 13);
  EXPECT_NEAR(*r.box_ap50, 12.0 / 13.0, 1e-12);
  EXPECT_NEAR(*r.box_ap50_95, 12.0 / 13.0, 1e-12);

  // No class reaches 20 boxes: nothing to judge, the other figures stay.
  const Agreement strict = acc.result(20);
  EXPECT_EQ(strict.judged_classes, 0);
  EXPECT_FALSE(strict.map50_judged);
  EXPECT_NEAR(*strict.box_ap50, 12.0 / 13.0, 1e-12);
  // Nothing detected by A: no weighted AP either.
  EXPECT_FALSE(one_image({}, {det(1, 0.9f, 0, 0, 9, 9)}).box_ap50);
}

// Random images of non-overlapping boxes on a grid (some images empty), several classes.
std::vector<Detections> random_images(std::mt19937& rng, int count) {
  std::uniform_int_distribution<int> boxes_per_image(0, 12);
  std::uniform_int_distribution<int> class_id(0, 4);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::vector<Detections> images(static_cast<std::size_t>(count));
  for (auto& image : images) {
    const int n = boxes_per_image(rng);
    for (int i = 0; i < n; ++i) {
      // Cells of 200 px on a 4-wide grid; boxes 40..120 px inside their cell.
      const float cx = 200.0f * static_cast<float>(i % 4) + 100.0f;
      const float cy = 200.0f * static_cast<float>(i / 4) + 100.0f;
      const float w = 40.0f + 80.0f * unit(rng);
      const float h = 40.0f + 80.0f * unit(rng);
      image.push_back(det(class_id(rng), 0.05f + 0.9f * unit(rng), cx - w / 2, cy - h / 2,
                          cx + w / 2, cy + h / 2));
    }
  }
  return images;
}

TEST(AgreementProperty, BEqualToAIsPerfectForRandomSets) {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 20; ++trial) {
    const auto images = random_images(rng, 8);
    AgreementAccumulator acc;
    bool any = false;
    for (const auto& image : images) {
      acc.add(image, image);
      any = any || !image.empty();
    }
    const Agreement r = acc.result();
    ASSERT_EQ(r.map50.has_value(), any);
    if (!any) continue;
    EXPECT_DOUBLE_EQ(*r.map50, 1.0) << "trial " << trial;
    EXPECT_DOUBLE_EQ(*r.map50_95, 1.0) << "trial " << trial;
    EXPECT_DOUBLE_EQ(*r.score_mad, 0.0) << "trial " << trial;
  }
}

TEST(AgreementProperty, LargerPerturbationsGiveLowerMap) {
  std::mt19937 rng(99);
  const auto images = random_images(rng, 30);
  // One fixed direction per box, scaled by the perturbation: the IoU with its original falls
  // as the scale grows.
  std::uniform_real_distribution<float> angle(0.0f, 6.2831853f);
  std::vector<std::vector<float>> directions;
  for (const auto& image : images) {
    directions.emplace_back();
    for (std::size_t i = 0; i < image.size(); ++i) directions.back().push_back(angle(rng));
  }
  auto map_at = [&](float scale) {
    AgreementAccumulator acc;
    for (std::size_t n = 0; n < images.size(); ++n) {
      Detections moved = images[n];
      for (std::size_t i = 0; i < moved.size(); ++i) {
        Box& b = moved[i].box;
        const float dx = scale * b.width() * std::cos(directions[n][i]);
        const float dy = scale * b.height() * std::sin(directions[n][i]);
        b = Box{b.x1 + dx, b.y1 + dy, b.x2 + dx, b.y2 + dy};
      }
      acc.add(images[n], moved);
    }
    return *acc.result().map50_95;
  };
  double previous = map_at(0.0f);
  EXPECT_DOUBLE_EQ(previous, 1.0);
  for (const float scale : {0.02f, 0.05f, 0.1f, 0.15f, 0.2f, 0.3f}) {
    const double current = map_at(scale);
    EXPECT_LT(current, previous) << "perturbation " << scale;
    previous = current;
  }
  EXPECT_LT(previous, 0.3);
}

}  // namespace
}  // namespace yolo::vision
