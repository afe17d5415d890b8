// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <random>
#include <string>

#include "daemon/core/events.h"
#include "daemon/core/queued_output.h"

namespace yolo::daemon {

// Calibration frames from the daemon's own camera, for quantize: auto. At most one frame a second
// is offered; a reservoir sample (Algorithm R) keeps model.calibration_frames of them, each frame
// seen so far equally likely to be kept, so the set covers the whole time the camera has watched
// (day and night) rather than the last minutes. Kept as JPEG files in a folder of the state
// directory, with the count of frames seen, across restarts; `yolo-edge quantize --calib` reads
// that folder as it is. Writing happens on its own thread: inference only hands over a frame.
// Files are replaced by rename, so a quantizer reading the folder never sees half a file. As the
// sample grows, replacements become rare (capacity / seen), which spares SD cards.
// The settings handed over are model.calibration_frames, read by every thread through settings().
class CalibrationReservoir : public QueuedOutput<std::shared_ptr<const FrameResult>, int> {
 public:
  // `offer_period`: at most one frame per this long is offered (tests shorten it).
  CalibrationReservoir(Events& events, std::filesystem::path dir,
                       std::chrono::milliseconds offer_period = kOfferPeriod);
  ~CalibrationReservoir() override;

  // Collects only with model.quantize: auto; keeps model.calibration_frames.
  void configure(const config::Config& config) override;
  // Loads the folder's index and starts the thread.
  void start() override;
  void publish(std::shared_ptr<const FrameResult> result) override;
  bool wants_frame(const FrameResult& result) const override;
  nlohmann::json status() const override;
  // Joins the thread and saves the count of frames seen.
  bool stop() override;

  const std::filesystem::path& dir() const { return dir_; }
  // Frames kept now.
  int count() const;
  int capacity() const;

  // At most one frame offered per this period.
  static constexpr std::chrono::milliseconds kOfferPeriod{1000};

 private:
  void run() override;
  void load_index();
  std::string index_text() const;
  void save_index(const std::string& text);
  void keep(const cv::Mat& frame);
  void trim_to_capacity();
  std::filesystem::path slot_path(int slot) const;

  Events& events_;
  std::filesystem::path dir_;
  std::chrono::milliseconds offer_period_;
  std::atomic<bool> enabled_{false};
  std::atomic<std::int64_t> next_offer_ns_{0};

  mutable std::mutex mutex_;
  int count_ = 0;
  std::int64_t seen_ = 0;
  std::string warning_;
  std::mt19937_64 random_{std::random_device{}()};
  std::chrono::steady_clock::time_point saved_{};
};

}  // namespace yolo::daemon
