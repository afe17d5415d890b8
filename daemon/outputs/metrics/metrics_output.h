// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "daemon/core/publisher.h"

namespace yolo::daemon {

// The daemon's Prometheus metrics (yolo_edge_*: docs/grafana/yolo-edge.json charts them), kept
// from what the publishers receive and rendered in the text exposition format 0.0.4 for
// GET /metrics. Needs no thread: publish() only increments counters and histograms under a short
// lock, so the inference thread never waits on a scrape for longer than a few increments. Every
// call is thread-safe. Per-frame series carry the model and precision as labels: a swap starts
// new series and the old ones stay, as Prometheus expects of counters. It is a Publisher because
// it counts what every output is fed (frames, samples, events, status); it is also the sink the
// outputs set their own series on (MetricsSink), at every render().
class MetricsOutput : public Publisher, public MetricsSink {
 public:
  // What GET /metrics is served as.
  static constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

  MetricsOutput();
  ~MetricsOutput() override;

  std::string_view name() const override { return "metrics"; }
  // Nothing to configure: the metrics are the same whatever the config.
  void configure(const config::Config& config) override { (void)config; }
  void start() override {}
  // Frames, detections by label, dropped frames, threads and the per-stage latency histograms.
  void publish(std::shared_ptr<const FrameResult> result) override;
  // Temperatures, clocks, throttling, power, energy, CPU use and memory; a sensor missing from
  // `sample` has no series until it comes back.
  void telemetry(const telemetry::Sample& sample) override;
  // Reloads, swaps, the source lost and reopened, errors by kind.
  void event(const Event& event) override;
  // FPS, daemon and source state, the model running and the start time.
  void stats(const DaemonStatus& status) override;
  // {"ok": true, "scrapes": renders so far}.
  nlohmann::json status() const override;
  bool stop() override { return true; }

  // The outputs whose own series (Publisher::metrics) are set at every render(); given before
  // the threads start.
  void collect_from(std::vector<const Publisher*> outputs);
  // Every series in the text exposition format 0.0.4, the outputs' own brought up to date first.
  std::string render() const;

  // MetricsSink.
  void add_counter(const std::string& name, const std::string& help, const Labels& labels,
                   double delta = 1) override;
  void follow_counter(const std::string& name, const std::string& help, const Labels& labels,
                      double total) override;
  void set_gauge(const std::string& name, const std::string& help, const Labels& labels,
                 double value) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace yolo::daemon
