// SPDX-License-Identifier: Apache-2.0
// The event store's thread: EventStoreOutput::run() and the Worker it drives, which draws and
// encodes the frames, keeps the clips' ring and crops, and writes the files (publish() and the
// status are in event_store_output.cpp, the folder's budget in event_files.cpp).
#include "daemon/outputs/event_store/event_store_output.h"

#include <poll.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "daemon/base/atomic_file.h"
#include "daemon/core/annotated_frame.h"
#include "daemon/core/disk_floor.h"
#include "daemon/core/event_media.h"
#include "daemon/outputs/event_store/event_files.h"
#include "daemon/outputs/event_store/event_kinds.h"
#include "daemon/outputs/event_store/mjpeg_avi.h"

namespace yolo::daemon {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using Jpeg = std::vector<unsigned char>;
using tracking::SteadyTime;

// Background work: below inference and the stream's encoder.
constexpr int kNice = 10;
// How often files older than events.max_days are looked for.
constexpr auto kRetentionEvery = std::chrono::minutes(1);
// The longest the thread sleeps with nothing queued.
constexpr auto kIdle = std::chrono::milliseconds(500);
// Live tracks whose best crop is held (each a box's pixels).
constexpr std::size_t kMaxCrops = 256;
// Clips gathering frames at once (they share the frames).
constexpr std::size_t kMaxOpenClips = 64;

std::shared_ptr<const Jpeg> encode(const cv::Mat& bgr, int quality) {
  auto jpeg = std::make_shared<Jpeg>();
  cv::imencode(".jpg", bgr, *jpeg, {cv::IMWRITE_JPEG_QUALITY, quality});
  return jpeg;
}

std::string_view bytes_of(const Jpeg& jpeg) {
  return {reinterpret_cast<const char*>(jpeg.data()), jpeg.size()};
}

// The box's pixels (clamped to the frame), copied: the frame goes, the crop stays.
cv::Mat cut(const cv::Mat& frame, const vision::Box& box) {
  const cv::Rect whole(0, 0, frame.cols, frame.rows);
  const cv::Rect rect =
      cv::Rect(
          cv::Point(static_cast<int>(std::floor(box.x1)), static_cast<int>(std::floor(box.y1))),
          cv::Point(static_cast<int>(std::ceil(box.x2)), static_cast<int>(std::ceil(box.y2)))) &
      whole;
  if (rect.empty()) return {};
  return frame(rect).clone();
}

// One annotated frame of the ring, shared by every clip it is part of.
struct RingFrame {
  std::string camera;
  SteadyTime at;
  std::shared_ptr<const Jpeg> jpeg;
  cv::Size size;
};

// A clip gathering its frames until `until` (frame time), or `deadline` (the clock) when frames
// stop coming.
struct OpenClip {
  std::int64_t id = 0;
  std::string camera;
  fs::path path;
  SteadyTime from;
  SteadyTime until;
  double fps = 0;
  std::vector<RingFrame> frames;
  Clock::time_point deadline;
};

}  // namespace

class EventStoreOutput::Worker {
 public:
  explicit Worker(EventStoreOutput& owner)
      : owner_(owner), dir_(event_media_dir(owner.state_dir_)) {}

  // The folder made, what a power cut left half-written removed, our files listed and the budget
  // applied.
  void open() {
    std::error_code error;
    fs::create_directories(dir_, error);
    if (error) {
      note("cannot make the events folder " + dir_.string() + " (" + error.message() +
           "): snapshots and clips are counted and not saved until it can be made");
    }
    remove_partial_files(dir_);
    files_.scan(dir_);
    if (configured_) keep_to_budget();
    opened_ = true;
    report();
  }

  void apply(const config::EventsConfig& settings) {
    configured_ = true;
    settings_ = settings;
    snapshot_bits_ = kind_bits(settings.snapshots);
    clip_bits_ = kind_bits(settings.clips);
    if (!clip_bits_) {
      finish_clips(std::nullopt);
      rings_.clear();
    }
    if (!snapshot_bits_ || !settings.crop) crops_.clear();
    keep_to_budget();
    report();
  }

  void frame(const EventStoreFrame& item) {
    const FrameResult& r = *item.result;
    if (!r.frame || r.frame->empty()) return;
    std::shared_ptr<const Jpeg> annotated;
    const auto annotated_jpeg = [&] {
      if (!annotated) {
        cv::Mat copy = r.frame->clone();
        draw_result(copy, r);
        annotated = encode(copy, settings_.jpeg_quality);
      }
      return annotated;
    };
    const bool crops = snapshot_bits_ && settings_.crop;
    if (crops) keep_best_crops(r);
    if (item.ring && clip_bits_)
      add_to_ring({r.camera, r.scene_time, annotated_jpeg(), r.frame->size()});
    for (const tracking::ObjectEvent& e : r.object_events) {
      if (e.id <= 0) continue;
      const EventMedia media = event_media(owner_.state_dir_, e.id);
      if (has_kind(snapshot_bits_, e.kind)) {
        store(media.snapshot, bytes_of(*annotated_jpeg()), e.id, e.camera,
              &EventStoreSnapshot::Counts::snapshots);
        if (crops) {
          const cv::Mat pixels = crop_for(e, r);
          if (!pixels.empty()) {
            store(media.crop, bytes_of(*encode(pixels, settings_.jpeg_quality)), e.id, e.camera,
                  &EventStoreSnapshot::Counts::crops);
          }
        }
      }
      if (has_kind(clip_bits_, e.kind)) open_clip(e, r, media.clip);
    }
    if (crops) forget_crops(r);
    report();
  }

  // Clips past their deadline written, old files removed once a minute.
  void tick(Clock::time_point now) {
    finish_clips(now);
    if (configured_ && now >= next_retention_) {
      next_retention_ = now + kRetentionEvery;
      keep_to_budget();
    }
    report();
  }

  // How long the thread may sleep.
  std::chrono::milliseconds wait(Clock::time_point now) const {
    Clock::time_point until = std::min(now + kIdle, next_retention_);
    for (const OpenClip& c : clips_) until = std::min(until, c.deadline);
    return std::chrono::ceil<std::chrono::milliseconds>(std::max(until - now, Clock::duration{}));
  }

  // At stop: clips in progress written with what they have.
  void finish() {
    finish_clips(std::nullopt);
    report();
  }

 private:
  void keep_best_crops(const FrameResult& r) {
    for (const tracking::Track& t : r.tracks) {
      if (t.best_frame != r.index) continue;
      const auto it = crops_.find({r.camera, t.id});
      if (it == crops_.end() && crops_.size() >= kMaxCrops) continue;
      cv::Mat pixels = cut(*r.frame, t.best_box);
      if (!pixels.empty()) crops_[{r.camera, t.id}] = std::move(pixels);
    }
  }

  cv::Mat crop_for(const tracking::ObjectEvent& e, const FrameResult& r) const {
    if (const auto it = crops_.find({r.camera, e.track_id}); it != crops_.end()) return it->second;
    // Its best frame never reached the store (before it started, or dropped from its queue):
    // the object as it is in this frame.
    return cut(*r.frame, e.best_frame == r.index ? e.best_box : e.box);
  }

  // Crops of the camera's tracks no longer alive go (an `end` event of this frame has had its
  // crop); track ids are each camera's own.
  void forget_crops(const FrameResult& r) {
    std::erase_if(crops_, [&](const auto& entry) {
      const auto& [camera, id] = entry.first;
      return camera == r.camera &&
             std::none_of(r.tracks.begin(), r.tracks.end(),
                          [id](const tracking::Track& t) { return t.id == id; });
    });
  }

  double period_s() const { return 1.0 / std::max(settings_.clip_fps, 0.01); }

  void add_to_ring(RingFrame f) {
    // A camera's frames go to its own clips, and its frame times end only its own.
    for (auto it = clips_.begin(); it != clips_.end();) {
      if (it->camera != f.camera) {
        ++it;
      } else if (f.at > it->until) {
        write_clip(*it);
        it = clips_.erase(it);
      } else {
        it->frames.push_back(f);
        ++it;
      }
    }
    const auto keep = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(settings_.clip_before_s + period_s()));
    std::deque<RingFrame>& ring = rings_[f.camera];
    ring.push_back(std::move(f));
    while (!ring.empty() && ring.front().at < ring.back().at - keep) ring.pop_front();
  }

  void open_clip(const tracking::ObjectEvent& e, const FrameResult& r, const fs::path& path) {
    if (clips_.size() >= kMaxOpenClips) {
      skip(path, e.id, e.camera,
           "too many clips at once (" + std::to_string(kMaxOpenClips) +
               "): fewer kinds in events.clips, or a shorter events.clip_after_s");
      return;
    }
    const auto seconds = [](double s) {
      return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
    };
    const SteadyTime when = e.when != SteadyTime{} ? e.when : r.scene_time;
    OpenClip c{.id = e.id,
               .camera = e.camera,
               .path = path,
               .from = when - seconds(settings_.clip_before_s),
               .until = when + seconds(settings_.clip_after_s),
               .fps = settings_.clip_fps,
               .frames = {},
               .deadline = {}};
    for (const RingFrame& f : rings_[e.camera]) {
      if (f.at >= c.from && f.at <= c.until) c.frames.push_back(f);
    }
    // Frame time runs with the clock: the frames up to `until` come by then, give or take the
    // grace and one frame.
    c.deadline =
        Clock::now() + (c.until - r.scene_time) + owner_.options_.clip_grace + seconds(period_s());
    clips_.push_back(std::move(c));
  }

  // Writes the clips due by `now` (all of them without a time).
  void finish_clips(std::optional<Clock::time_point> now) {
    for (auto it = clips_.begin(); it != clips_.end();) {
      if (!now || *now >= it->deadline) {
        write_clip(*it);
        it = clips_.erase(it);
      } else {
        ++it;
      }
    }
  }

  void write_clip(const OpenClip& c) {
    // A clip with no frame (clip_fps frames all fell outside it) is no file.
    if (c.frames.empty()) return;
    const cv::Size size = c.frames.front().size;
    const SteadyTime first = c.frames.front().at;
    std::vector<MjpegFrame> frames;
    for (const RingFrame& f : c.frames) {
      // A camera back at another resolution mid-clip: one size per file.
      if (f.size != size) continue;
      const double offset = std::chrono::duration<double>(f.at - first).count();
      frames.push_back({*f.jpeg, std::llround(offset * c.fps)});
    }
    std::string bytes;
    try {
      bytes = mux_mjpeg_avi(frames, size, c.fps);
    } catch (const std::exception& e) {
      skip(c.path, c.id, c.camera, e.what());
      return;
    }
    store(c.path, bytes, c.id, c.camera, &EventStoreSnapshot::Counts::clips);
  }

  // Writes one file within the budget and above the floor, or skips it (counted, said once).
  void store(const fs::path& path, std::string_view bytes, std::int64_t id,
             const std::string& camera, std::int64_t EventStoreSnapshot::Counts::*counter) {
    std::string error;
    std::optional<DiskSpace> disk = disk_space(dir_, error);
    if (!disk) {
      // The folder went (removed by hand): made again for this file.
      std::error_code ignored;
      fs::create_directories(dir_, ignored);
      disk = disk_space(dir_, error);
      if (!disk) {
        skip(path, id, camera, error);
        return;
      }
    }
    const std::uint64_t need = disk->taken(bytes.size());
    const std::uint64_t budget = budget_bytes();
    if (need > budget) {
      skip(path, id, camera,
           megabytes(static_cast<double>(need)) + " is more than events.max_mb (" +
               megabytes(static_cast<double>(budget)) +
               ") on its own: raise events.max_mb, or shorten the clips (events.clip_before_s, "
               "clip_after_s, clip_fps)");
      return;
    }
    files_.forget(path);
    // What the budget would remove for it counts as free: checked before removing anything, so
    // that old events are not removed for a file that is then not written.
    const double freed = static_cast<double>(files_.room_for(need, id, budget));
    const DiskFloor floor(settings_);
    if (floor.crossed_by(*disk, static_cast<double>(need), freed)) {
      skip(path, id, camera,
           floor.why(*disk, static_cast<double>(need), dir_) +
               ": free some space there, or lower events.max_mb");
      return;
    }
    files_.make_room(need, id, budget);
    try {
      write_file_atomically(path, bytes);
    } catch (const std::exception& e) {
      skip(path, id, camera, e.what());
      return;
    }
    files_.add(id, path);
    ++(counts_.total.*counter);
    ++(counts_.cameras[camera].*counter);
    // Small files fit where a clip does not: the outage is over once files have been written
    // for a while with none skipped, not at the first snapshot between two skipped clips.
    if (said_ && Clock::now() - last_skip_ >= owner_.options_.outage_quiet) {
      owner_.events_.log().info("event snapshots and clips are saved again in " + dir_.string() +
                                " (" + std::to_string(counts_.total.skipped) +
                                " files skipped since the start)");
      said_ = false;
    }
    if (!said_) counts_.warning.clear();
  }

  // A file not written: counted, in the status until the outage is over, and said once per
  // outage.
  void skip(const fs::path& path, std::int64_t id, const std::string& camera,
            const std::string& why) {
    ++counts_.total.skipped;
    ++counts_.cameras[camera].skipped;
    note("event " + std::to_string(id) + "'s " + path.filename().string() + " not saved: " + why +
         "; events go on and are counted, their files skipped (" +
         std::to_string(counts_.total.skipped) + " so far)");
  }

  void note(const std::string& warning) {
    counts_.warning = warning;
    last_skip_ = Clock::now();
    if (said_) return;
    said_ = true;
    owner_.events_.emit(config::LogLevel::kWarning, fieldlog::EventKind::kEventMediaSkipped,
                        warning, {{"folder", dir_.string()}, {"skipped", counts_.total.skipped}});
  }

  // Files older than events.max_days removed, then the oldest events' files until what is kept
  // is within events.max_mb.
  void keep_to_budget() { files_.keep_to_budget(settings_.max_days, budget_bytes()); }

  std::uint64_t budget_bytes() const { return static_cast<std::uint64_t>(settings_.max_mb * kMiB); }

  void report() {
    // Settings taken before the folder was looked at would report no files yet.
    if (!opened_) return;
    EventStoreSnapshot s = counts_;
    s.enabled = snapshot_bits_ || clip_bits_;
    s.bytes = static_cast<std::int64_t>(files_.bytes());
    s.files = files_.count();
    s.removed = files_.removed();
    owner_.report(std::move(s));
  }

  EventStoreOutput& owner_;
  const fs::path dir_;
  // Until the first settings, no budget (an unset max_mb would remove every file).
  bool configured_ = false;
  config::EventsConfig settings_;
  unsigned snapshot_bits_ = 0;
  unsigned clip_bits_ = 0;

  // Each camera's, by name.
  std::map<std::string, std::deque<RingFrame>, std::less<>> rings_;
  std::vector<OpenClip> clips_;
  // The pixels of each live track's box at its best score so far.
  std::map<std::pair<std::string, std::int64_t>, cv::Mat> crops_;

  EventFiles files_;
  // open() has listed the folder: the status may say what is in it.
  bool opened_ = false;
  Clock::time_point next_retention_ = Clock::now() + kRetentionEvery;

  EventStoreSnapshot counts_;
  // Whether the current run of skipped files was said.
  bool said_ = false;
  Clock::time_point last_skip_{};
};

void EventStoreOutput::run() {
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kNice);
  Worker worker(*this);
  if (auto settings = take_settings()) worker.apply(*settings);
  worker.open();
  for (;;) {
    if (auto settings = take_settings()) worker.apply(*settings);
    if (std::optional<EventStoreFrame> item = queue().pop(std::chrono::milliseconds(0))) {
      worker.frame(*item);
      worker.tick(Clock::now());
      continue;
    }
    const auto now = Clock::now();
    worker.tick(now);
    if (queue().closed()) break;
    pollfd fd{wake_fd().fd(), POLLIN, 0};
    if (poll(&fd, 1, static_cast<int>(worker.wait(now).count())) > 0) wake_fd().clear();
  }
  worker.finish();
}

}  // namespace yolo::daemon
