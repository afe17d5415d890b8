// SPDX-License-Identifier: Apache-2.0
#pragma once

// How well detector B agrees with detector A, with A's detections taken as the ground truth: the
// COCO detection metrics (AP per class at IoU 0.50:0.05:0.95, mAP50, mAP50-95) plus how far the
// scores of matched boxes drift. Used to measure what quantizing a model costs.
//
// Conventions (COCO's, as pycocotools computes them):
// - Per image, B's boxes are matched greedily in descending score order, each to the unmatched
//   A box of the same class with the highest IoU, when that IoU is at least the threshold.
// - AP is the mean, over the 101 recalls 0, 0.01, ..., 1, of the precision envelope (the best
//   precision at that recall or beyond) at the first rank reaching that recall; 0 where the
//   recall is never reached.
// - mAP averages over the classes A detected; B's boxes of other classes count in no AP.
//   Beside it: the mean over the classes with at least `min_boxes` of A's boxes (a class seen once
//   or twice moves a class mean by 0.05-0.3 with one borderline call), and the AP50 weighted by
//   each class's box count (what share of the boxes a user sees agree).
// Ultralytics' val differs in two details: it matches by descending IoU rather than by score,
// and integrates a linearly interpolated envelope with the trapezoid rule, which gives 0.995
// instead of 1.0 for a perfect result; its numbers can therefore differ slightly from these.

#include <array>
#include <map>
#include <optional>
#include <vector>

#include "vision/detection.h"

namespace yolo::vision {

// The score down to which B's detections are kept (with every class above it, not only each
// box's best), as Ultralytics val does, so that AP integrates B's whole precision-recall curve.
inline constexpr float kPredictionConf = 0.001f;

// Classes with fewer of A's boxes than this are too few to judge: the class mean over the
// others (Agreement::map50_judged) leaves them out, and compare warns about them.
inline constexpr long kMinJudgedBoxes = 10;

// COCO's IoU thresholds 0.50, 0.55, ..., 0.95.
inline constexpr int kIouThresholdCount = 10;
double iou_threshold(int index);

// COCO average precision of one class at one IoU threshold. `hits` lists that class's
// predictions in descending score order, true where the prediction matched a ground-truth box;
// `truths` is the number of ground-truth boxes and must be at least 1 (AP is undefined without).
double average_precision(const std::vector<bool>& hits, long truths);

// What one class contributed.
struct ClassAgreement {
  int class_id = 0;
  // A's boxes: the ground truth.
  long a_count = 0;
  // B's boxes scoring above the counting threshold, and how many of those matched one of A's
  // at IoU 0.5: at A's own threshold these say "B finds n of A's m boxes and adds k".
  long b_count = 0;
  long matched = 0;
  // B's AP at each IoU threshold; meaningful only when a_count > 0.
  std::array<double, kIouThresholdCount> ap{};

  bool has_truth() const { return a_count > 0; }
  double ap50() const { return ap[0]; }
  double ap50_95() const;
};

struct Agreement {
  long images = 0;
  // Every class either model detected, by class id.
  std::vector<ClassAgreement> classes;
  // Means over the classes A detected; empty when A detected nothing at all.
  std::optional<double> map50;
  std::optional<double> map50_95;
  // The classes A detected at least this often, and the means over those only (empty when no
  // class has that many boxes).
  long min_boxes = kMinJudgedBoxes;
  int judged_classes = 0;
  std::optional<double> map50_judged;
  std::optional<double> map50_95_judged;
  // AP weighted by each class's share of A's boxes (empty when A detected nothing).
  std::optional<double> box_ap50;
  std::optional<double> box_ap50_95;
  // A's boxes over all classes.
  long truth_boxes = 0;
  // Pairs matched at IoU 0.5 (B's boxes of any score) and the mean |score_B - score_A| over them;
  // empty when nothing matched.
  long matched_pairs = 0;
  std::optional<double> score_mad;
};

// Accumulates image after image, then computes the metrics over all of them.
class AgreementAccumulator {
 public:
  // B's boxes scoring above `count_conf` enter b_count and matched; A's detection threshold
  // (decode keeps scores above it too) makes the two counts comparable. AP uses all of B's boxes.
  explicit AgreementAccumulator(float count_conf = 0.25f);

  // One image: A's detections (the truth) and B's (the predictions), in the same pixels.
  void add(const Detections& a, const Detections& b);

  // `min_boxes`: the fewest of A's boxes a class needs to enter map50_judged.
  Agreement result(long min_boxes = kMinJudgedBoxes) const;

 private:
  struct Prediction {
    int class_id = 0;
    float score = 0;
    // Matched at each IoU threshold.
    std::array<bool, kIouThresholdCount> hit{};
  };

  float count_conf_;
  long images_ = 0;
  // In the order added (images, then descending score within an image), so that a stable sort
  // by score breaks ties the same way every time.
  std::vector<Prediction> predictions_;
  std::map<int, ClassAgreement> counts_;
  long matched_pairs_ = 0;
  double score_difference_sum_ = 0;
};

}  // namespace yolo::vision
