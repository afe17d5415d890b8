// SPDX-License-Identifier: Apache-2.0
// The event store (daemon/outputs/event_store): snapshots, crops and clips written as real files in
// a temporary folder, clips read back by OpenCV's VideoCapture (FFmpeg), the budget, the
// free-space floor (on a small tmpfs when the test may mount one), leftovers of a power cut, stop,
// and a disk that hangs.
#include "daemon/outputs/event_store/event_store_output.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

#include "daemon/core/event_media.h"
#include "daemon/core/logger.h"
#include "tests/daemon/event_recorder.h"
#include "tests/daemon/frame_parts.h"
#include "tests/daemon/wait_status.h"
#include "tests/support/temp_folder.h"

namespace yolo::daemon {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using nlohmann::json;
using test::wait_status;
using tracking::ObjectEventKind;
using Clock = std::chrono::steady_clock;

constexpr int kWidth = 640;
constexpr int kHeight = 360;
constexpr double kMiB = 1024.0 * 1024.0;

config::EventsConfig events_config() {
  config::EventsConfig c;
  c.snapshots = {ObjectEventKind::kCross};
  c.crop = true;
  c.clip_before_s = 1;
  c.clip_after_s = 1;
  c.clip_fps = 5;
  c.jpeg_quality = 80;
  c.max_mb = 100;
  c.max_days = 14;
  c.min_free_mb = 0;
  c.history = 100;
  return c;
}

std::shared_ptr<const ModelInfo> test_model() {
  return test::model_info("yolo11n_320_fp32", {"person", "bird", "car"});
}

// A frame of grey `level` with noise (so that its JPEG has a realistic size).
cv::Mat picture(int level) {
  cv::Mat noise(kHeight, kWidth, CV_8UC3);
  cv::randu(noise, cv::Scalar::all(0), cv::Scalar::all(24));
  cv::Mat frame(kHeight, kWidth, CV_8UC3, cv::Scalar::all(level));
  return frame + noise;
}

tracking::ObjectEvent object_event(std::int64_t id, ObjectEventKind kind, std::int64_t track,
                                   Clock::time_point when) {
  tracking::ObjectEvent e;
  e.id = id;
  e.kind = kind;
  e.camera = "main";
  e.place = kind == ObjectEventKind::kCross ? "road" : "";
  e.track_id = track;
  e.label = "person";
  e.box = {300, 100, 360, 220};
  e.when = when;
  e.wall = std::chrono::system_clock::now();
  return e;
}

struct FrameSpec {
  std::int64_t index = 0;
  Clock::time_point scene_time;
  cv::Mat pixels;
  std::vector<tracking::Track> tracks;
  std::vector<tracking::ObjectEvent> events;
  std::string camera = "main";
};

std::shared_ptr<const FrameResult> frame(FrameSpec spec) {
  auto r = std::make_shared<FrameResult>();
  r->camera = spec.camera;
  r->index = spec.index;
  r->captured = spec.scene_time;
  r->scene_time = spec.scene_time;
  r->wall = std::chrono::system_clock::now();
  r->model = test_model();
  r->frame = std::make_shared<const cv::Mat>(std::move(spec.pixels));
  r->tracks = std::move(spec.tracks);
  for (auto& e : spec.events) e.frame_index = spec.index;
  r->object_events = std::move(spec.events);
  return r;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every file the events folder holds, by name.
std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> names;
  std::error_code ignored;
  for (const auto& entry : fs::directory_iterator(dir, ignored)) {
    names.insert(entry.path().filename().string());
  }
  return names;
}

// What the folder's files take on the disk.
double folder_bytes(const fs::path& dir) {
  double total = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    struct stat st {};
    ::stat(entry.path().c_str(), &st);
    total += std::max<double>(static_cast<double>(st.st_size), st.st_blocks * 512.0);
  }
  return total;
}

double free_bytes(const fs::path& dir) {
  struct statvfs s {};
  ::statvfs(dir.c_str(), &s);
  return static_cast<double>(s.f_bavail) * static_cast<double>(s.f_frsize);
}

// A file of `bytes` bytes of noise.
void write_noise(const fs::path& file, std::size_t bytes) {
  std::string text(bytes, '\0');
  for (std::size_t i = 0; i < bytes; ++i) text[i] = static_cast<char>((i * 2654435761u) >> 13);
  std::ofstream(file, std::ios::binary) << text;
}

// A decoded clip: its frames' mean grey levels, its rate and size as the container says.
struct Clip {
  std::vector<double> levels;
  double fps = 0;
  double frame_count = 0;
  cv::Size size;
};

Clip read_clip(const fs::path& file) {
  cv::VideoCapture capture(file.string(), cv::CAP_FFMPEG);
  Clip clip;
  if (!capture.isOpened()) return clip;
  clip.fps = capture.get(cv::CAP_PROP_FPS);
  clip.frame_count = capture.get(cv::CAP_PROP_FRAME_COUNT);
  cv::Mat f;
  while (capture.read(f)) {
    clip.size = f.size();
    // A corner: no box or label is drawn there.
    clip.levels.push_back(cv::mean(f(cv::Rect(0, kHeight - 40, 40, 40)))[0]);
  }
  return clip;
}

// A Prometheus sink that keeps the last value of each series.
class Sink : public MetricsSink {
 public:
  void add_counter(const std::string& name, const std::string&, const Labels& labels,
                   double delta) override {
    values[key(name, labels)] += delta;
  }
  void follow_counter(const std::string& name, const std::string&, const Labels& labels,
                      double total) override {
    values[key(name, labels)] = total;
  }
  void set_gauge(const std::string& name, const std::string&, const Labels& labels,
                 double value) override {
    values[key(name, labels)] = value;
  }
  std::map<std::string, double> values;

 private:
  static std::string key(const std::string& name, const Labels& labels) {
    std::string k = name;
    for (const auto& [label, value] : labels) k += "{" + label + "=" + value + "}";
    return k;
  }
};

// A tmpfs of `mb` megabytes mounted on a folder of its own (root only), unmounted afterwards.
class SmallDisk {
 public:
  SmallDisk(const fs::path& where, int mb, bool read_only = false) : where_(where) {
    fs::create_directories(where_);
    const std::string options = "size=" + std::to_string(mb) + "m";
    mounted_ =
        ::mount("tmpfs", where_.c_str(), "tmpfs", read_only ? MS_RDONLY : 0, options.c_str()) == 0;
    if (!mounted_) why_ = std::strerror(errno);
  }
  ~SmallDisk() {
    if (mounted_) ::umount2(where_.c_str(), MNT_DETACH);
  }
  SmallDisk(const SmallDisk&) = delete;
  SmallDisk& operator=(const SmallDisk&) = delete;
  bool mounted() const { return mounted_; }
  const std::string& why() const { return why_; }

 private:
  fs::path where_;
  bool mounted_ = false;
  std::string why_;
};

class EventStoreTest : public ::testing::Test {
 protected:
  EventStoreTest() { events_.add(&recorder_); }

  EventStoreOutput& start(const config::EventsConfig& c, const fs::path& state_dir,
                          EventStoreOptions options = quick()) {
    store_.emplace(events_, state_dir, options);
    store_->configure(c);
    store_->start();
    // The thread's first report comes after it has looked at the folder.
    EXPECT_TRUE(wait_status(
        *store_, [](const json& s) { return s.contains("files"); }, 5s))
        << store_->status();
    return *store_;
  }
  EventStoreOutput& start(const config::EventsConfig& c) { return start(c, folder_.path()); }

  static EventStoreOptions quick() {
    EventStoreOptions o;
    o.queue = 200;
    return o;
  }

  fs::path dir() const { return event_media_dir(folder_.path()); }
  EventMedia media(std::int64_t id) const { return event_media(folder_.path(), id); }

  const test::TempFolder folder_;
  Logger log_{Logger::Sink::kStderr, config::LogLevel::kError};
  Events events_{log_};
  test::EventRecorder recorder_;
  std::optional<EventStoreOutput> store_;
};

TEST_F(EventStoreTest, NothingConfiguredWantsNoFrames) {
  const auto now = Clock::now();
  const auto crossing =
      frame({0, now, picture(40), {}, {object_event(1, ObjectEventKind::kCross, 7, now)}});
  config::EventsConfig c = events_config();
  c.snapshots.clear();
  EventStoreOutput store(events_, folder_.path());
  store.configure(c);
  store.start();
  EXPECT_FALSE(store.wants_frame(*crossing));
  EXPECT_EQ(store.status(), json::parse(R"({"ok": true, "enabled": false})"));
  config::Config whole;
  whole.events = events_config();
  whole.tracking.enabled = false;
  store.configure(whole);
  EXPECT_FALSE(store.wants_frame(*crossing)) << "no tracking, no events: no frames";
  whole.tracking.enabled = true;
  store.configure(whole);
  EXPECT_FALSE(store.wants_frame(*crossing))
      << "snapshots of kinds no zone or line can make (there is none): no frames";
  whole.lines.push_back({.name = "road",
                         .camera = std::string(config::kMainCamera),
                         .from = {0.1, 0.5},
                         .to = {0.9, 0.5},
                         .in = tracking::Side::kBelow,
                         .classes = {},
                         .anchor = tracking::Anchor::kBottomCenter,
                         .hysteresis = 0.01});
  store.configure(whole);
  EXPECT_TRUE(store.wants_frame(*crossing));
  EXPECT_TRUE(store.stop());
}

TEST_F(EventStoreTest, WantsOnlyTheFramesItUses) {
  config::EventsConfig c = events_config();
  c.crop = false;
  EventStoreOutput& store = start(c);
  const auto now = Clock::now();
  EXPECT_FALSE(store.wants_frame(*frame({0, now, picture(40), {}, {}}))) << "nothing happens";
  EXPECT_FALSE(store.wants_frame(
      *frame({1, now, picture(40), {}, {object_event(1, ObjectEventKind::kEnter, 7, now)}})))
      << "not a chosen kind";
  EXPECT_TRUE(store.wants_frame(
      *frame({2, now, picture(40), {}, {object_event(2, ObjectEventKind::kCross, 7, now)}})));
  tracking::Track best;
  best.id = 7;
  best.best_frame = 3;
  EXPECT_FALSE(store.wants_frame(*frame({3, now, picture(40), {best}, {}})))
      << "no crops kept: a best score needs no frame";
  c.crop = true;
  store.configure(c);
  EXPECT_TRUE(store.wants_frame(*frame({3, now, picture(40), {best}, {}})));
  // With clips, the ring's slots at clip_fps (5: one frame in 200 ms).
  c.clips = {ObjectEventKind::kCross};
  c.crop = false;
  store.configure(c);
  store.publish(frame({4, now, picture(40), {}, {}}));
  EXPECT_FALSE(store.wants_frame(*frame({5, now + 100ms, picture(40), {}, {}})));
  EXPECT_TRUE(store.wants_frame(*frame({6, now + 200ms, picture(40), {}, {}})));
}

TEST_F(EventStoreTest, SnapshotAndCropForAChosenKindOnly) {
  EventStoreOutput& store = start(events_config());
  const auto now = Clock::now();
  ASSERT_TRUE(store.wants_frame(
      *frame({0, now, picture(40), {}, {object_event(1, ObjectEventKind::kCross, 7, now)}})));
  const auto t0 = Clock::now();
  // Frame 0: track 7 at its best score, a bright square where its box is.
  const vision::Box best{100, 50, 200, 250};
  tracking::Track track;
  track.id = 7;
  track.best_score = 0.9f;
  track.best_frame = 0;
  track.best_box = best;
  track.box = best;
  cv::Mat first = picture(40);
  first(cv::Rect(100, 50, 100, 200)).setTo(cv::Scalar(0, 0, 250));
  store.publish(frame({0, t0, first, {track}, {}}));
  // Frame 1: it crossed (a snapshot) and entered a zone (not a chosen kind); where it scored
  // best is dark now.
  track.box = {300, 100, 360, 220};
  store.publish(frame({1,
                       t0 + 100ms,
                       picture(40),
                       {track},
                       {object_event(1, ObjectEventKind::kCross, 7, t0 + 100ms),
                        object_event(2, ObjectEventKind::kEnter, 7, t0 + 100ms)}}));
  const auto s = wait_status(
      store, [](const json& j) { return j["snapshots"] == 1 && j["crops"] == 1; }, 5s);
  ASSERT_TRUE(s) << store.status();
  EXPECT_TRUE((*s)["ok"]);
  EXPECT_EQ((*s)["skipped"], 0);
  EXPECT_EQ((*s)["clips"], 0);

  const cv::Mat snapshot = cv::imread(media(1).snapshot.string());
  ASSERT_FALSE(snapshot.empty()) << media(1).snapshot;
  EXPECT_EQ(snapshot.size(), cv::Size(kWidth, kHeight));
  const cv::Mat crop = cv::imread(media(1).crop.string());
  ASSERT_FALSE(crop.empty()) << media(1).crop;
  EXPECT_EQ(crop.size(), cv::Size(static_cast<int>(best.width()), static_cast<int>(best.height())));
  EXPECT_GT(cv::mean(crop)[2], 200) << "cut from the frame of the best score (red there)";
  EXPECT_FALSE(fs::exists(media(1).clip));
  EXPECT_FALSE(fs::exists(media(2).snapshot)) << "enter is not in events.snapshots";
  EXPECT_FALSE(fs::exists(media(2).crop));
  EXPECT_EQ(listing(dir()).size(), 2u);
  EXPECT_EQ((*s)["bytes"].get<double>(), folder_bytes(dir()));

  Sink sink;
  store.metrics(sink);
  EXPECT_EQ(sink.values["yolo_edge_event_snapshots_total{camera=main}"], 1);
  EXPECT_EQ(sink.values["yolo_edge_event_crops_total{camera=main}"], 1);
  EXPECT_EQ(sink.values["yolo_edge_event_media_skipped_total{camera=main}"], 0);
  EXPECT_EQ(sink.values["yolo_edge_event_media_bytes"], folder_bytes(dir()));
  EXPECT_TRUE(store.stop());
}

// The ring's frames, as publish() is fed a 10 fps camera at compressed time: which of them each
// clip should hold is worked out from the settings, and read back from the files.
TEST_F(EventStoreTest, ClipsHoldTheRingsFramesAroundTheirEvents) {
  config::EventsConfig c = events_config();
  c.snapshots.clear();
  c.clips = {ObjectEventKind::kCross};
  EventStoreOutput& store = start(c);
  const auto t0 = Clock::now() - 10s;
  const auto at = [&](int i) { return t0 + i * 100ms; };
  // Two events half a second apart: their clips overlap and share frames.
  const std::map<int, std::int64_t> event_at{{20, 1}, {25, 2}};
  for (int i = 0; i <= 40; ++i) {
    std::vector<tracking::ObjectEvent> events;
    if (const auto it = event_at.find(i); it != event_at.end()) {
      events.push_back(object_event(it->second, ObjectEventKind::kCross, 3, at(i)));
    }
    // Each frame's grey level tells which frame it is.
    store.publish(frame({i, at(i), picture(4 * i), {}, std::move(events)}));
  }
  const auto s = wait_status(
      store, [](const json& j) { return j["clips"] == 2; }, 5s);
  ASSERT_TRUE(s) << store.status();
  for (const auto& [i, id] : event_at) {
    // At 5 fps from a 10 fps camera the ring holds every other frame; a clip holds those from
    // clip_before_s before its event to clip_after_s after.
    std::vector<int> expected;
    for (int k = 0; k <= 40; k += 2) {
      const double offset = (k - i) * 0.1;
      if (offset >= -c.clip_before_s - 1e-9 && offset <= c.clip_after_s + 1e-9)
        expected.push_back(k);
    }
    const Clip clip = read_clip(media(id).clip);
    ASSERT_EQ(clip.levels.size(), expected.size()) << media(id).clip;
    EXPECT_EQ(clip.frame_count, static_cast<double>(expected.size()));
    EXPECT_NEAR(clip.fps, c.clip_fps, 1e-6);
    EXPECT_EQ(clip.size, cv::Size(kWidth, kHeight));
    for (std::size_t n = 0; n < expected.size(); ++n) {
      EXPECT_NEAR(clip.levels[n], 4 * expected[n] + 11.5, 3) << "frame " << n << " of clip " << id;
    }
    // Muxed as they were encoded: each frame of the file is the JPEG the ring kept, no
    // re-encoding (the file is the JPEGs plus AVI's few bytes per frame).
    const std::string bytes = read_file(media(id).clip);
    EXPECT_EQ(bytes.substr(0, 4), "RIFF");
    EXPECT_NE(bytes.find("MJPG"), std::string::npos);
  }
  EXPECT_TRUE(store.stop());
}

// Two cameras' frames interleaved: each camera keeps its own ring, and a clip holds only its
// event's camera's frames (grey levels 4i for main, 220 for yard), each at the clip's fps.
TEST_F(EventStoreTest, AClipHoldsOnlyItsOwnCamerasFrames) {
  config::EventsConfig c = events_config();
  c.snapshots.clear();
  c.clips = {ObjectEventKind::kCross};
  EventStoreOutput& store = start(c);
  const auto t0 = Clock::now() - 10s;
  const auto at = [&](int i) { return t0 + i * 100ms; };
  for (int i = 0; i <= 40; ++i) {
    std::vector<tracking::ObjectEvent> events;
    if (i == 20) events.push_back(object_event(1, ObjectEventKind::kCross, 3, at(i)));
    store.publish(frame({i, at(i), picture(4 * i), {}, std::move(events)}));
    store.publish(frame({i, at(i) + 10ms, picture(220), {}, {}, "yard"}));
  }
  ASSERT_TRUE(wait_status(
      store, [](const json& j) { return j["clips"] == 1; }, 5s))
      << store.status();
  const Clip clip = read_clip(media(1).clip);
  ASSERT_FALSE(clip.levels.empty());
  // main's frames every 200 ms (clip_fps 5) from clip_before_s before the event to
  // clip_after_s after it.
  const auto expected = static_cast<std::size_t>(
      std::floor((c.clip_before_s + c.clip_after_s) * c.clip_fps + 1e-9) + 1);
  EXPECT_EQ(clip.levels.size(), expected);
  for (std::size_t n = 0; n < clip.levels.size(); ++n) {
    EXPECT_LT(clip.levels[n], 4 * 40 + 11.5 + 3) << "frame " << n << " is yard's";
  }
}

TEST_F(EventStoreTest, StopFinishesAClipInProgressWithWhatItHas) {
  config::EventsConfig c = events_config();
  c.snapshots.clear();
  c.clips = {ObjectEventKind::kCross};
  c.clip_after_s = 30;
  EventStoreOutput& store = start(c);
  const auto t0 = Clock::now();
  int ring_frames = 0;
  for (int i = 0; i < 10; ++i) {
    std::vector<tracking::ObjectEvent> events;
    if (i == 0) events.push_back(object_event(1, ObjectEventKind::kCross, 3, t0));
    // Frames at the clip's own rate: each one is the ring's.
    store.publish(frame({i, t0 + i * 200ms, picture(10 * i), {}, std::move(events)}));
    ++ring_frames;
  }
  ASSERT_TRUE(wait_status(
      store, [](const json& j) { return j["clips"] == 0; }, 1s));
  EXPECT_FALSE(fs::exists(media(1).clip)) << "30 s after the event have not passed";
  EXPECT_TRUE(store.stop());
  const Clip clip = read_clip(media(1).clip);
  EXPECT_EQ(static_cast<int>(clip.levels.size()), ring_frames);
  EXPECT_EQ(store.status()["clips"], 1);
}

TEST_F(EventStoreTest, TheBudgetRemovesTheOldestEventsFirst) {
  fs::create_directories(dir());
  // Five earlier events of 300 KiB each (1.5 MiB) and a file that is not ours.
  for (std::int64_t id = 1; id <= 5; ++id) write_noise(media(id).snapshot, 300 * 1024);
  write_noise(dir() / "notes.txt", 1000);
  const double notes = folder_bytes(dir()) - 5 * 300 * 1024;
  config::EventsConfig c = events_config();
  c.max_mb = 1;
  EventStoreOutput& store = start(c);
  const auto budget = c.max_mb * kMiB;
  std::set<std::string> left = listing(dir());
  EXPECT_TRUE(left.contains("notes.txt")) << "not an event's file: left alone";
  left.erase("notes.txt");
  // The oldest went until what is left fits: the newest are kept, in order.
  std::vector<std::int64_t> kept;
  for (const auto& name : left) kept.push_back(*event_media_id(name));
  ASSERT_FALSE(kept.empty());
  EXPECT_EQ(kept.back(), 5);
  for (std::size_t n = 1; n < kept.size(); ++n) EXPECT_EQ(kept[n], kept[n - 1] + 1);
  EXPECT_LE(store.status()["bytes"].get<double>(), budget);
  EXPECT_GT(store.status()["bytes"].get<double>() + 300 * 1024, budget)
      << "no more removed than needed";

  // New events: each one makes room by removing the oldest, never going over.
  const auto t0 = Clock::now();
  for (int i = 0; i < 6; ++i) {
    store.publish(frame({i,
                         t0 + i * 100ms,
                         picture(50),
                         {},
                         {object_event(10 + i, ObjectEventKind::kCross, 1, t0 + i * 100ms)}}));
  }
  ASSERT_TRUE(wait_status(
      store, [](const json& j) { return j["snapshots"] == 6; }, 5s))
      << store.status();
  left = listing(dir());
  left.erase("notes.txt");
  std::vector<std::int64_t> ids;
  for (const auto& name : left) ids.push_back(*event_media_id(name));
  EXPECT_EQ(ids.back(), 15) << "the newest is always written";
  EXPECT_LE(folder_bytes(dir()) - notes, budget);
  EXPECT_LE(store.status()["bytes"].get<double>(), budget);
  EXPECT_GT(store.status()["removed"], 0);
  // Whatever is kept is the newest: no gap leaves an old event behind a removed newer one.
  std::set<std::int64_t> distinct(ids.begin(), ids.end());
  for (std::int64_t id = *distinct.begin(); id <= 15; ++id) {
    if (id > 5 && id < 10) continue;
    EXPECT_TRUE(distinct.contains(id)) << id;
  }
  EXPECT_TRUE(store.stop());
}

TEST_F(EventStoreTest, FilesOlderThanMaxDaysAreRemovedAtStart) {
  fs::create_directories(dir());
  const auto now = fs::file_time_type::clock::now();
  for (std::int64_t id = 1; id <= 4; ++id) {
    write_noise(media(id).snapshot, 1000);
    write_noise(media(id).crop, 1000);
  }
  // Events 1 and 3 are 20 days old (not in id order: age is by the file's time).
  for (const std::int64_t id : {1, 3}) {
    fs::last_write_time(media(id).snapshot, now - std::chrono::hours(24 * 20));
    fs::last_write_time(media(id).crop, now - std::chrono::hours(24 * 20));
  }
  config::EventsConfig c = events_config();
  c.max_days = 14;
  EventStoreOutput& store = start(c);
  const std::set<std::string> left = listing(dir());
  EXPECT_EQ(left, (std::set<std::string>{media(2).snapshot.filename(), media(2).crop.filename(),
                                         media(4).snapshot.filename(), media(4).crop.filename()}));
  EXPECT_EQ(store.status()["removed"], 4);
  EXPECT_TRUE(store.stop());
}

TEST_F(EventStoreTest, LeftoversOfAPowerCutAreRemovedAtStart) {
  fs::create_directories(dir());
  write_noise(media(3).snapshot, 1000);
  write_noise(media(3).clip.string() + ".partial", 5000);
  write_noise(media(4).snapshot.string() + ".partial", 5000);
  EventStoreOutput& store = start(events_config());
  EXPECT_EQ(listing(dir()), std::set<std::string>{media(3).snapshot.filename()});
  EXPECT_EQ(store.status()["files"], 1);
  EXPECT_TRUE(store.stop());
}

TEST_F(EventStoreTest, AFloorAboveTheFreeSpaceSkipsEveryFileAndWarnsOnce) {
  // An earlier event that each new file would have to make room for within the budget.
  fs::create_directories(dir());
  write_noise(media(1).snapshot, 400 * 1024);
  config::EventsConfig c = events_config();
  c.max_mb = 0.5;
  c.min_free_mb = free_bytes(folder_.path()) / kMiB + 1000;
  EventStoreOutput& store = start(c);
  const auto t0 = Clock::now();
  for (int i = 0; i < 5; ++i) {
    store.publish(frame({i,
                         t0 + i * 100ms,
                         picture(50),
                         {},
                         {object_event(i + 2, ObjectEventKind::kCross, 1, t0 + i * 100ms)}}));
  }
  // A snapshot and a crop for each event, none written.
  const auto s = wait_status(
      store, [](const json& j) { return j["skipped"] == 10; }, 5s);
  ASSERT_TRUE(s) << store.status();
  EXPECT_FALSE((*s)["ok"]);
  EXPECT_NE((*s)["warning"].get<std::string>().find("events.min_free_mb"), std::string::npos)
      << (*s)["warning"];
  EXPECT_EQ((*s)["snapshots"], 0);
  EXPECT_EQ(listing(dir()), std::set<std::string>{media(1).snapshot.filename()})
      << "nothing removed to make room for files that were not written";
  EXPECT_EQ(recorder_.count("event_media_skipped"), 1) << "said once";
  Sink sink;
  store.metrics(sink);
  EXPECT_EQ(sink.values["yolo_edge_event_media_skipped_total{camera=main}"], 10);
  EXPECT_TRUE(store.stop());
}

// On a tmpfs of 8 MB with a floor of 6 MB: files are written until the next one would cross the
// floor, then skipped and said once; said again only after writing worked again.
TEST_F(EventStoreTest, AFullDiskStopsAtTheFloorAndSaysSoOncePerOutage) {
  const fs::path mount = folder_.path() / "disk";
  const SmallDisk disk(mount, 8);
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (" << disk.why() << ")";
  config::EventsConfig c = events_config();
  c.crop = false;
  c.min_free_mb = 6;
  EventStoreOptions options = quick();
  options.outage_quiet = 0ms;
  EventStoreOutput& store = start(c, mount, options);
  const auto t0 = Clock::now();
  std::int64_t id = 0;
  const auto publish_events = [&](int count) {
    for (int i = 0; i < count; ++i) {
      ++id;
      // Noisy frames: JPEGs of 100-300 KB.
      cv::Mat pixels(kHeight, kWidth, CV_8UC3);
      cv::randu(pixels, cv::Scalar::all(0), cv::Scalar::all(255));
      store.publish(frame({id,
                           t0 + id * 100ms,
                           pixels,
                           {},
                           {object_event(id, ObjectEventKind::kCross, 1, t0 + id * 100ms)}}));
    }
  };
  publish_events(30);
  auto s = wait_status(
      store,
      [&](const json& j) { return j["snapshots"].get<int>() + j["skipped"].get<int>() == id; },
      10s);
  ASSERT_TRUE(s) << store.status();
  EXPECT_GT((*s)["snapshots"], 0);
  EXPECT_GT((*s)["skipped"], 0);
  EXPECT_GE(free_bytes(mount), c.min_free_mb * kMiB) << "never below the floor";
  EXPECT_EQ(recorder_.count("event_media_skipped"), 1);

  // Room again (someone removed the files): the next one is written and the warning goes.
  for (const auto& name : listing(event_media_dir(mount)))
    fs::remove(event_media_dir(mount) / name);
  const int written = (*s)["snapshots"];
  publish_events(1);
  s = wait_status(
      store, [&](const json& j) { return j["snapshots"] == written + 1; }, 5s);
  ASSERT_TRUE(s) << store.status();
  EXPECT_TRUE((*s)["ok"]);
  EXPECT_FALSE(s->contains("warning"));
  // Full again: a second outage, said again.
  publish_events(30);
  ASSERT_TRUE(wait_status(
      store,
      [&](const json& j) { return j["snapshots"].get<int>() + j["skipped"].get<int>() == id; },
      10s));
  EXPECT_GE(free_bytes(mount), c.min_free_mb * kMiB);
  EXPECT_EQ(recorder_.count("event_media_skipped"), 2);
  EXPECT_TRUE(store.stop());
}

// Crops still fit where snapshots no longer do: one outage, said once, in the status throughout.
TEST_F(EventStoreTest, SmallFilesWrittenBetweenSkippedOnesDoNotEndTheOutage) {
  const fs::path mount = folder_.path() / "disk";
  const SmallDisk disk(mount, 8);
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (" << disk.why() << ")";
  config::EventsConfig c = events_config();
  // Room for a few small crops, none for a noisy snapshot.
  c.min_free_mb = free_bytes(mount) / kMiB - 0.1;
  EventStoreOutput& store = start(c, mount);
  const auto t0 = Clock::now();
  constexpr int kEvents = 5;
  for (int i = 0; i < kEvents; ++i) {
    cv::Mat pixels(kHeight, kWidth, CV_8UC3);
    cv::randu(pixels, cv::Scalar::all(0), cv::Scalar::all(255));
    store.publish(frame({i,
                         t0 + i * 100ms,
                         pixels,
                         {},
                         {object_event(i + 1, ObjectEventKind::kCross, 1, t0 + i * 100ms)}}));
  }
  const auto s = wait_status(
      store,
      [](const json& j) { return j["skipped"].get<int>() + j["crops"].get<int>() == 2 * kEvents; },
      5s);
  ASSERT_TRUE(s) << store.status();
  EXPECT_EQ((*s)["skipped"], kEvents) << "every snapshot";
  EXPECT_EQ((*s)["crops"], kEvents);
  EXPECT_FALSE((*s)["ok"]);
  EXPECT_TRUE(s->contains("warning"));
  EXPECT_EQ(recorder_.count("event_media_skipped"), 1);
  EXPECT_TRUE(store.stop());
}

TEST_F(EventStoreTest, AReadOnlyDiskIsCountedAndSaidOnce) {
  const fs::path mount = folder_.path() / "ro";
  const SmallDisk disk(mount, 1, true);
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (" << disk.why() << ")";
  EventStoreOutput& store = start(events_config(), mount);
  const auto t0 = Clock::now();
  for (int i = 0; i < 3; ++i) {
    store.publish(frame({i,
                         t0 + i * 100ms,
                         picture(50),
                         {},
                         {object_event(i + 1, ObjectEventKind::kCross, 1, t0 + i * 100ms)}}));
  }
  const auto s = wait_status(
      store, [](const json& j) { return j["skipped"] == 6; }, 5s);
  ASSERT_TRUE(s) << store.status();
  EXPECT_FALSE((*s)["ok"]);
  EXPECT_EQ(recorder_.count("event_media_skipped"), 1);
  EXPECT_TRUE(store.stop());
}

// A disk that hangs: the store's thread is stuck writing the first snapshot (into a FIFO nobody
// reads, under the temporary name it writes to), and publish() goes on returning: the queue keeps
// the newest frames and drops and counts the rest.
TEST_F(EventStoreTest, PublishHandsOverWhileTheDiskHangs) {
  config::EventsConfig c = events_config();
  c.crop = false;
  EventStoreOptions options;
  options.queue = 4;
  options.stop_limit = 5000ms;
  EventStoreOutput& store = start(c, folder_.path(), options);
  const fs::path fifo = media(1).snapshot.string() + ".partial";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  const auto t0 = Clock::now();
  const auto publish = [&](std::int64_t id) {
    store.publish(frame({id,
                         t0 + id * 100ms,
                         picture(50),
                         {},
                         {object_event(id, ObjectEventKind::kCross, 1, t0 + id * 100ms)}}));
  };
  publish(1);
  // The thread took event 1 and hangs opening the FIFO.
  // Whatever happens below, the FIFO is read at the end so that the thread can stop.
  const auto drain = [fifo] {
    const int fd = ::open(fifo.c_str(), O_RDONLY);
    char buffer[65536];
    while (fd >= 0 && ::read(fd, buffer, sizeof buffer) > 0) {
    }
    if (fd >= 0) ::close(fd);
  };
  std::thread reader;
  struct Join {
    std::thread& t;
    std::function<void()> drain;
    ~Join() {
      if (!t.joinable()) t = std::thread(drain);
      t.join();
    }
  } join{reader, drain};
  ASSERT_TRUE(wait_status(
      store, [](const json& j) { return j["queued"] == 0; }, 1s))
      << store.status();
  constexpr int kMore = 20;
  for (std::int64_t id = 2; id <= 1 + kMore; ++id) publish(id);
  EXPECT_EQ(store.status()["dropped"], kMore - static_cast<int>(options.queue));
  // The disk answers: the FIFO is read, the thread goes on with the newest frames it kept.
  reader = std::thread(drain);
  const auto s = wait_status(
      store,
      [&](const json& j) {
        return j["snapshots"].get<int>() + j["skipped"].get<int>() ==
               1 + static_cast<int>(options.queue);
      },
      5s);
  ASSERT_TRUE(s) << store.status();
  for (std::int64_t id = 2 + kMore - static_cast<std::int64_t>(options.queue); id <= 1 + kMore;
       ++id) {
    EXPECT_TRUE(fs::exists(media(id).snapshot)) << id;
  }
  EXPECT_FALSE(fs::exists(media(2).snapshot)) << "dropped from the queue";
  Sink sink;
  store.metrics(sink);
  EXPECT_EQ(sink.values["yolo_edge_event_media_dropped_total"], kMore - options.queue);
  EXPECT_TRUE(store.stop());
}

}  // namespace
}  // namespace yolo::daemon
