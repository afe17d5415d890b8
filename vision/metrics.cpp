// SPDX-License-Identifier: Apache-2.0
#include "vision/metrics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace yolo::vision {

namespace {

constexpr int kRecallPoints = 101;

// Indices of `detections` by descending score; ties keep their order.
std::vector<std::size_t> by_descending_score(const Detections& detections) {
  std::vector<std::size_t> order(detections.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t l, std::size_t r) {
    return detections[l].score > detections[r].score;
  });
  return order;
}

}  // namespace

double iou_threshold(int index) {
  if (index < 0 || index >= kIouThresholdCount) {
    throw std::out_of_range("IoU threshold index " + std::to_string(index) + " is outside 0.." +
                            std::to_string(kIouThresholdCount - 1));
  }
  // 50 + 5k in hundredths, divided once, so 0.75 is exactly the double nearest 0.75.
  return static_cast<double>(50 + 5 * index) / 100.0;
}

double average_precision(const std::vector<bool>& hits, long truths) {
  if (truths < 1) {
    throw std::invalid_argument("average_precision needs at least one ground-truth box, got " +
                                std::to_string(truths));
  }
  const std::size_t n = hits.size();
  std::vector<double> precision(n);
  std::vector<double> recall(n);
  long true_positives = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (hits[i]) ++true_positives;
    precision[i] = static_cast<double>(true_positives) / static_cast<double>(i + 1);
    recall[i] = static_cast<double>(true_positives) / static_cast<double>(truths);
  }
  for (std::size_t i = n; i-- > 1;) precision[i - 1] = std::max(precision[i - 1], precision[i]);

  double sum = 0;
  for (int k = 0; k < kRecallPoints; ++k) {
    // k / 100 and tp / truths are both correctly rounded quotients, so a recall that equals a
    // sampling point mathematically also compares equal here.
    const double target = static_cast<double>(k) / 100.0;
    const auto it = std::lower_bound(recall.begin(), recall.end(), target);
    if (it != recall.end()) sum += precision[static_cast<std::size_t>(it - recall.begin())];
  }
  return sum / kRecallPoints;
}

double ClassAgreement::ap50_95() const {
  return std::accumulate(ap.begin(), ap.end(), 0.0) / kIouThresholdCount;
}

AgreementAccumulator::AgreementAccumulator(float count_conf) : count_conf_(count_conf) {}

void AgreementAccumulator::add(const Detections& a, const Detections& b) {
  ++images_;
  for (const auto& truth : a) {
    auto& c = counts_[truth.class_id];
    c.class_id = truth.class_id;
    ++c.a_count;
  }

  const std::vector<std::size_t> order = by_descending_score(b);
  // IoU of each prediction (in score order) with each truth of its class; -1 across classes.
  std::vector<std::vector<float>> overlap(order.size(), std::vector<float>(a.size(), -1.0f));
  for (std::size_t p = 0; p < order.size(); ++p) {
    const Detection& prediction = b[order[p]];
    for (std::size_t t = 0; t < a.size(); ++t) {
      if (a[t].class_id == prediction.class_id) overlap[p][t] = iou(prediction.box, a[t].box);
    }
  }

  std::vector<Prediction> added(order.size());
  // The truth each prediction matched at IoU 0.5, for the score differences.
  std::vector<long> matched_at_50(order.size(), -1);
  for (int k = 0; k < kIouThresholdCount; ++k) {
    const double threshold = iou_threshold(k);
    std::vector<bool> taken(a.size(), false);
    for (std::size_t p = 0; p < order.size(); ++p) {
      long best = -1;
      for (std::size_t t = 0; t < a.size(); ++t) {
        if (taken[t] || overlap[p][t] < threshold) continue;
        if (best < 0 || overlap[p][t] > overlap[p][static_cast<std::size_t>(best)]) {
          best = static_cast<long>(t);
        }
      }
      if (best < 0) continue;
      taken[static_cast<std::size_t>(best)] = true;
      added[p].hit[static_cast<std::size_t>(k)] = true;
      if (k == 0) matched_at_50[p] = best;
    }
  }

  for (std::size_t p = 0; p < order.size(); ++p) {
    const Detection& prediction = b[order[p]];
    added[p].class_id = prediction.class_id;
    added[p].score = prediction.score;
    auto& c = counts_[prediction.class_id];
    c.class_id = prediction.class_id;
    if (matched_at_50[p] >= 0) {
      ++matched_pairs_;
      score_difference_sum_ +=
          std::fabs(static_cast<double>(prediction.score) -
                    static_cast<double>(a[static_cast<std::size_t>(matched_at_50[p])].score));
    }
    if (prediction.score > count_conf_) {
      ++c.b_count;
      if (matched_at_50[p] >= 0) ++c.matched;
    }
  }
  predictions_.insert(predictions_.end(), added.begin(), added.end());
}

Agreement AgreementAccumulator::result(long min_boxes) const {
  Agreement out;
  out.images = images_;
  out.min_boxes = min_boxes;
  out.matched_pairs = matched_pairs_;
  if (matched_pairs_ > 0)
    out.score_mad = score_difference_sum_ / static_cast<double>(matched_pairs_);

  // Each class's predictions over all images, by descending score.
  std::map<int, std::vector<const Prediction*>> ranked;
  for (const auto& p : predictions_) ranked[p.class_id].push_back(&p);
  for (auto& [class_id, list] : ranked) {
    std::stable_sort(list.begin(), list.end(),
                     [](const Prediction* l, const Prediction* r) { return l->score > r->score; });
  }

  double sum50 = 0;
  double sum50_95 = 0;
  int with_truth = 0;
  double judged50 = 0;
  double judged50_95 = 0;
  double boxes50 = 0;
  double boxes50_95 = 0;
  for (const auto& [class_id, counts] : counts_) {
    ClassAgreement c = counts;
    if (c.has_truth()) {
      for (int k = 0; k < kIouThresholdCount; ++k) {
        std::vector<bool> hits;
        for (const Prediction* p : ranked[class_id])
          hits.push_back(p->hit[static_cast<std::size_t>(k)]);
        c.ap[static_cast<std::size_t>(k)] = average_precision(hits, c.a_count);
      }
      sum50 += c.ap50();
      sum50_95 += c.ap50_95();
      ++with_truth;
      const auto boxes = static_cast<double>(c.a_count);
      boxes50 += boxes * c.ap50();
      boxes50_95 += boxes * c.ap50_95();
      out.truth_boxes += c.a_count;
      if (c.a_count >= min_boxes) {
        judged50 += c.ap50();
        judged50_95 += c.ap50_95();
        ++out.judged_classes;
      }
    }
    out.classes.push_back(c);
  }
  if (with_truth > 0) {
    out.map50 = sum50 / with_truth;
    out.map50_95 = sum50_95 / with_truth;
    out.box_ap50 = boxes50 / static_cast<double>(out.truth_boxes);
    out.box_ap50_95 = boxes50_95 / static_cast<double>(out.truth_boxes);
  }
  if (out.judged_classes > 0) {
    out.map50_judged = judged50 / out.judged_classes;
    out.map50_95_judged = judged50_95 / out.judged_classes;
  }
  return out;
}

}  // namespace yolo::vision
