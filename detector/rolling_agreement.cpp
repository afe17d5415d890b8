// SPDX-License-Identifier: Apache-2.0
#include "detector/rolling_agreement.h"

#include <stdexcept>
#include <utility>

#include "detector/precision_trial.h"

namespace yolo::detector {

RollingAgreement::RollingAgreement(RollingWindow window, float count_conf)
    : window_(window), count_conf_(count_conf) {
  if (window_.span.count() <= 0 || window_.max_checks == 0) {
    throw std::invalid_argument("a rolling agreement needs a span and room for one check");
  }
}

void RollingAgreement::add(Clock::time_point at, vision::Detections fp32, vision::Detections int8) {
  checks_.push_back({at, std::move(fp32), std::move(int8)});
  while (checks_.size() > window_.max_checks) checks_.pop_front();
  cached_.reset();
  expire(at);
}

void RollingAgreement::clear() {
  checks_.clear();
  cached_.reset();
}

void RollingAgreement::expire(Clock::time_point now) {
  while (!checks_.empty() && checks_.front().at <= now - window_.span) {
    checks_.pop_front();
    cached_.reset();
  }
}

long RollingAgreement::fp32_boxes() const {
  long boxes = 0;
  for (const Check& c : checks_) boxes += static_cast<long>(c.fp32.size());
  return boxes;
}

vision::Agreement RollingAgreement::agreement(long min_boxes) const {
  if (cached_ && cached_->first == min_boxes) return cached_->second;
  vision::AgreementAccumulator accumulator(count_conf_);
  for (const Check& c : checks_) accumulator.add(c.fp32, c.int8);
  cached_.emplace(min_boxes, accumulator.result(min_boxes));
  return cached_->second;
}

std::optional<double> RollingAgreement::value(std::string* what) const {
  return judged_map50(agreement(), what);
}

std::vector<std::optional<double>> RollingAgreement::trend(Clock::time_point now,
                                                           int slices) const {
  if (slices < 1) throw std::invalid_argument("a trend needs at least one slice");
  const Clock::time_point start = now - window_.span;
  const auto slice = window_.span / slices;
  std::vector<vision::AgreementAccumulator> accumulators(static_cast<std::size_t>(slices),
                                                         vision::AgreementAccumulator(count_conf_));
  std::vector<bool> used(static_cast<std::size_t>(slices), false);
  for (const Check& c : checks_) {
    if (c.at <= start || c.at > now) continue;
    const auto index = std::min<long>(static_cast<long>((c.at - start) / slice), slices - 1);
    accumulators[static_cast<std::size_t>(index)].add(c.fp32, c.int8);
    used[static_cast<std::size_t>(index)] = true;
  }
  std::vector<std::optional<double>> values;
  for (std::size_t i = 0; i < accumulators.size(); ++i) {
    values.push_back(used[i] ? judged_map50(accumulators[i].result()) : std::nullopt);
  }
  return values;
}

}  // namespace yolo::detector
