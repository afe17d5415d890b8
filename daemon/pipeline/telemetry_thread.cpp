// SPDX-License-Identifier: Apache-2.0
#include "daemon/pipeline/telemetry_thread.h"

namespace yolo::daemon {

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

TelemetryThread::TelemetryThread(Events& events, std::vector<Publisher*> publishers,
                                 ThrottleChanged on_throttle)
    : events_(events), publishers_(std::move(publishers)), on_throttle_(std::move(on_throttle)) {}

TelemetryThread::~TelemetryThread() {
  stop(std::chrono::milliseconds(2000));
}

std::unique_ptr<telemetry::Sampler> TelemetryThread::make_sampler(
    const config::TelemetryConfig& config) {
  telemetry::SamplerOptions options;
  options.sysfs_root = config.sysfs_root;
  options.firmware = firmware_.firmware;
  options.firmware_missing_reason = firmware_.missing_reason;
  auto sampler = std::make_unique<telemetry::Sampler>(options);
  const telemetry::Inventory& inventory = sampler->inventory();
  events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kSensors,
               "sensors " + inventory.line(), telemetry::to_json(inventory));
  return sampler;
}

void TelemetryThread::start(const config::TelemetryConfig& config) {
  firmware_ = telemetry::open_vcio_firmware();
  {
    std::lock_guard lock(mutex_);
    pending_ = config;
    stopping_ = false;
  }
  worker_.start("telemetry", [this] { run(); });
}

void TelemetryThread::reconfigure(const config::TelemetryConfig& config) {
  {
    std::lock_guard lock(mutex_);
    pending_ = config;
  }
  wake_.notify_all();
}

bool TelemetryThread::stop(std::chrono::milliseconds limit) {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  return worker_.stop_within(limit);
}

std::optional<telemetry::Sample> TelemetryThread::latest() const {
  std::lock_guard lock(mutex_);
  return latest_;
}

void TelemetryThread::run() {
  std::unique_ptr<telemetry::Sampler> sampler;
  config::TelemetryConfig config;
  std::optional<bool> throttled;
  auto next = Clock::now();
  for (;;) {
    std::optional<config::TelemetryConfig> changed;
    {
      std::unique_lock lock(mutex_);
      wake_.wait_until(lock, next, [&] { return stopping_ || pending_.has_value(); });
      if (stopping_) return;
      changed = std::exchange(pending_, std::nullopt);
    }
    if (changed) {
      config = *changed;
      sampler = make_sampler(config);
      next = Clock::now();
    }
    if (Clock::now() < next) continue;
    // On its own clock: a slow sample (the Pi 5 PMIC) delays the next one, never doubles up.
    next += std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(config.interval_s));
    if (next < Clock::now()) next = Clock::now();
    const telemetry::Sample sample = sampler->sample();
    for (Publisher* p : publishers_) p->telemetry(sample);
    {
      std::lock_guard lock(mutex_);
      latest_ = sample;
    }
    if (sample.throttle) {
      const bool now = sample.throttle->any_now();
      if (throttled && *throttled != now) {
        events_.emit(
            now ? config::LogLevel::kWarning : config::LogLevel::kInfo,
            fieldlog::EventKind::kThrottling,
            now ? "the Pi reports throttling: " + telemetry::to_json(sample)["throttle"].dump()
                : "the Pi no longer reports throttling",
            {{"throttled", now}, {"raw", sample.throttle->raw}});
        on_throttle_(now);
      }
      throttled = now;
    }
  }
}

}  // namespace yolo::daemon
