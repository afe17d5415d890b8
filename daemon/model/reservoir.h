// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "daemon/core/disk_floor.h"
#include "daemon/core/events.h"
#include "daemon/core/queued_output.h"

namespace yolo::daemon {

// Fixed shape of the calibration reservoir, which tests change. Taken at construction; not
// config keys: the share and the window follow from what a requantize needs (below), not from the
// site.
struct ReservoirOptions {
  // The share of model.calibration_frames that holds recent frames, the rest being the sample of
  // the whole time watched. Half: a requantize after the scene changed calibrates on the scene as
  // it is now, yet keeps the ranges of the rest of the day (night, rain), which the camera will
  // see again.
  double recent_share = 0.5;
  // What counts as recent. Two hours: a scene that changed an hour ago is half of the recent
  // share and one that changed two hours ago all of it, yet the share spans a change of light
  // and traffic, not the few minutes a drift is found in.
  std::chrono::seconds recent_window = std::chrono::hours(2);
  // At most one frame is offered per this long.
  std::chrono::milliseconds offer_period{1000};
  // The wall clock recent frames are stamped and aged by (the index keeps the stamps across
  // restarts, which a steady clock does not survive); the system clock when empty. A frame
  // stamped after now (a clock set back) is of unknown age: not counted recent, replaced first.
  std::function<std::chrono::system_clock::time_point()> clock{};
};

// What configure() hands the reservoir's thread from the config.
struct ReservoirSettings {
  // model.calibration_frames: the frames kept.
  int frames = 0;
  // events.min_free_mb.
  DiskFloor floor;
};

// Calibration frames from the daemon's own camera, for quantize: auto and a requantize. At most
// one frame a second is offered. model.calibration_frames of them are kept as JPEG files in a
// folder of the state directory, with an index (the count of frames seen, and each file's role
// and time), across restarts; `yolo-edge quantize --calib` reads that folder as it is. Two roles
// share the slots:
// - day frames: a reservoir sample (Algorithm R) of every frame offered, each equally likely to
//   be kept, so they cover the whole time the camera has watched (day and night); as the sample
//   grows, replacements become rare (slots / seen), which spares SD cards;
// - recent frames: ReservoirOptions::recent_share of the slots, one frame taken every
//   recent_window / (recent slots) in place of the oldest recent one, so they spread over the
//   last recent_window. One such write every 225 s with the default 64 frames.
// An empty slot takes the next frame as a day frame, so the folder is full after
// model.calibration_frames frames as before; recent frames then take the place of day frames
// beyond the day's share (chosen at random, which keeps the rest a uniform sample), one per
// period. A folder of an older daemon (no roles in its index) is all day frames and turns over
// the same way. Recent frames older than the window stay until replaced (a daemon stopped for a
// night, a camera that was away), but the status does not count them as recent.
// Writing happens on its own thread: inference only hands over a frame. Files are replaced by
// rename, so a quantizer reading the folder never sees half a file. No file is written that
// would take the disk below events.min_free_mb, the floor the event snapshots keep too
// (daemon/core/disk_floor.h): the frame is skipped, the frames kept stay, the status and the log
// say so once, and collecting resumes when there is room.
class CalibrationReservoir
    : public QueuedOutput<std::shared_ptr<const FrameResult>, ReservoirSettings> {
 public:
  CalibrationReservoir(Events& events, std::filesystem::path dir, ReservoirOptions options = {});
  ~CalibrationReservoir() override;

  // Collects only with model.quantize: auto; keeps model.calibration_frames, above
  // events.min_free_mb.
  void configure(const config::Config& config) override;
  // Loads the folder's index and starts the thread.
  void start() override;
  void publish(std::shared_ptr<const FrameResult> result) override;
  bool wants_frame(const FrameResult& result) const override;
  // {"ok", "collecting", "frames", "capacity", "seen", "dir"}; "day_frames"; "recent_frames"
  // (taken within the window), "recent_slots" (the share), "recent_window_s",
  // "stale_recent_frames" (recent ones older than the window, until replaced),
  // "recent_newest_age_s" and "recent_oldest_age_s" (of those within the window); "warning".
  nlohmann::json status() const override;
  // Joins the thread and saves the index.
  bool stop() override;

  const std::filesystem::path& dir() const { return dir_; }
  // Frames kept now.
  int count() const;
  int capacity() const;
  // Slots of `capacity` that hold recent frames.
  int recent_slots(int capacity) const;

 private:
  // One file of the folder: frame-NNNN.jpg for slot NNNN.
  struct Slot {
    bool recent = false;
    // When it was taken (ms since the epoch); 0 when not known (an older daemon's frame).
    std::int64_t taken_ms = 0;
  };

  void run() override;
  std::int64_t now_ms() const;
  void load_index();
  std::string index_text() const;
  void save_index(const std::string& text);
  void keep(const cv::Mat& frame);
  // Where the frame taken at `now` goes (mutex_ held): a slot and its role, or -1.
  int choose_slot(std::int64_t now, bool& recent);
  // Writes `frame` to `slot` above the floor; false (and said once) when the floor stops it.
  bool write_frame(const cv::Mat& frame, int slot);
  void floor_stopped(const std::string& why);
  // Makes the frames fit the capacity (mutex_ held): recent ones beyond their share go oldest
  // first, then day frames at random. True when any went.
  bool trim_to_capacity();
  // Removes a slot's file; the last slot moves into its place, so the names stay 0..count-1.
  void remove_slot(int slot);
  int recent_count() const;
  // The time between two recent frames for `capacity` slots.
  std::int64_t recent_period_ms(int capacity) const;
  // The recent frame to replace: the oldest, a frame stamped after `now` (the clock was set
  // back, so its age is not known) first; -1 when there is none.
  int oldest_recent(std::int64_t now) const;
  // The `n`th day frame's slot (n < the day frames).
  int nth_day_slot(std::int64_t n) const;
  int random_day_slot();
  std::filesystem::path slot_path(int slot) const;

  Events& events_;
  std::filesystem::path dir_;
  const ReservoirOptions options_;
  std::atomic<bool> enabled_{false};
  std::atomic<std::int64_t> next_offer_ns_{0};

  mutable std::mutex mutex_;
  std::vector<Slot> slots_;
  std::int64_t seen_ = 0;
  // When the next recent frame is taken (ms since the epoch).
  std::int64_t recent_due_ms_ = 0;
  std::string warning_;
  // The floor stopped a write and has not let one through since (said once).
  bool floor_said_ = false;
  std::mt19937_64 random_{std::random_device{}()};
  std::chrono::steady_clock::time_point saved_{};
};

}  // namespace yolo::daemon
