// SPDX-License-Identifier: Apache-2.0
// The event store on a small disk (issue 39's disk goal); prints figures, not a test.
// benchmarks/bench_event_store.sh runs it on a 64 MB filesystem and kills it mid-write.
//
//   bench_event_store encode
//       what the clips' ring costs: drawing and encoding one 720p frame as JPEG, ms per frame.
//   bench_event_store run STATE_DIR [--minutes M (60)] [--every S (2)] [--max-mb MB (40)]
//                                   [--min-free-mb MB (8)]
//                                   [--ballast-mb MB (24)]
//       M minutes of a 10 fps camera at compressed time (as fast as the store keeps up), an event
//       every S seconds with a snapshot, a crop and a clip (5 s before, 5 s after, 5 fps). From
//       the middle third to the last sixth a ballast file of another program takes --ballast-mb
//       of the disk, so that the free-space floor is met (the ballast itself may take the disk
//       below the floor: printed). A thread samples the folder and the filesystem every 2 ms:
//       peak size against the budget, least free against the floor.
//   bench_event_store check STATE_DIR
//       a restart on what a killed run left: the temporary files found, then removed by the
//       store's start; every remaining file read back whole (JPEGs decoded, AVIs opened and every
//       frame decoded).
#include <sys/statvfs.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "daemon/base/atomic_file.h"
#include "daemon/core/annotated_frame.h"
#include "daemon/core/event_media.h"
#include "daemon/core/logger.h"
#include "daemon/outputs/event_store/event_store_output.h"

namespace {

using namespace yolo;
using namespace yolo::daemon;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

constexpr double kMiB = 1024.0 * 1024.0;
constexpr int kWidth = 1280;
constexpr int kHeight = 720;
constexpr double kCameraFps = 10;

// Counts the warnings the store says (the field log's event_media_skipped lines).
class Warnings : public Publisher {
 public:
  std::string_view name() const override { return "warnings"; }
  void configure(const config::Config&) override {}
  void start() override {}
  void publish(std::shared_ptr<const FrameResult>) override {}
  void event(const Event& e) override {
    if (e.kind == fieldlog::EventKind::kEventMediaSkipped) ++said;
  }
  bool stop() override { return true; }
  std::atomic<int> said{0};
};

std::shared_ptr<const ModelInfo> model() {
  auto m = std::make_shared<ModelInfo>();
  m->name = "yolo11n_320_fp32";
  m->names = vision::ClassNames({"person", "bicycle", "car"});
  return m;
}

// A street-like picture: smooth texture (a camera's JPEG size, not noise's) and a car at `x`.
cv::Mat picture(int x, cv::RNG& rng) {
  cv::Mat texture(kHeight / 8, kWidth / 8, CV_8UC3);
  rng.fill(texture, cv::RNG::UNIFORM, cv::Scalar::all(40), cv::Scalar::all(200));
  cv::Mat frame;
  cv::resize(texture, frame, {kWidth, kHeight}, 0, 0, cv::INTER_CUBIC);
  cv::Mat grain(kHeight, kWidth, CV_8UC3);
  rng.fill(grain, cv::RNG::NORMAL, cv::Scalar::all(0), cv::Scalar::all(4));
  frame += grain;
  cv::rectangle(frame, cv::Rect(x, 300, 240, 140), cv::Scalar(30, 30, 200), cv::FILLED);
  return frame;
}

config::EventsConfig settings(double max_mb, double min_free_mb) {
  config::EventsConfig c;
  c.snapshots = {tracking::ObjectEventKind::kCross};
  c.crop = true;
  c.clips = {tracking::ObjectEventKind::kCross};
  c.clip_before_s = 5;
  c.clip_after_s = 5;
  c.clip_fps = 5;
  c.jpeg_quality = 80;
  c.max_mb = max_mb;
  c.max_days = 14;
  c.min_free_mb = min_free_mb;
  c.history = 500;
  return c;
}

double arg(int argc, char** argv, const std::string& name, double fallback) {
  for (int i = 0; i + 1 < argc; ++i) {
    if (argv[i] == name) return std::atof(argv[i + 1]);
  }
  return fallback;
}

int encode() {
  cv::RNG rng(1);
  std::vector<cv::Mat> frames;
  for (int i = 0; i < 8; ++i) frames.push_back(picture(100 * i, rng));
  FrameResult r;
  r.model = model();
  r.detections.push_back({2, 0.8f, {400, 300, 640, 440}});
  constexpr int kRounds = 200;
  std::vector<unsigned char> jpeg;
  double bytes = 0;
  std::vector<double> ms;
  for (int i = 0; i < kRounds; ++i) {
    const auto start = Clock::now();
    cv::Mat copy = frames[i % frames.size()].clone();
    draw_result(copy, r);
    cv::imencode(".jpg", copy, jpeg, {cv::IMWRITE_JPEG_QUALITY, 80});
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    bytes += static_cast<double>(jpeg.size());
  }
  std::sort(ms.begin(), ms.end());
  std::printf(
      "ring encode at %dx%d, quality 80 (copy + draw + JPEG), one thread: median %.2f ms, "
      "p90 %.2f ms per frame; %.0f KB per frame; at clip_fps 5: %.1f %% of one core\n",
      kWidth, kHeight, ms[ms.size() / 2], ms[ms.size() * 9 / 10], bytes / kRounds / 1024.0,
      ms[ms.size() / 2] * 5 / 10.0);
  return 0;
}

// What the events folder holds, without the ballast.
double folder_bytes(const fs::path& dir) {
  double total = 0;
  std::error_code ignored;
  for (const auto& e : fs::directory_iterator(dir, ignored)) {
    // Removed by the budget meanwhile: not there.
    std::error_code gone;
    const std::uintmax_t size = e.file_size(gone);
    if (!gone) total += static_cast<double>(size);
  }
  return total;
}

struct DiskFigures {
  std::atomic<double> peak_folder{0};
  std::atomic<double> peak_used{0};
  std::atomic<double> least_free{1e18};
};

// Every 2 ms: the events folder's size, the filesystem's use and free space.
void sample(const fs::path& state_dir, const std::atomic<bool>& done, DiskFigures& f) {
  const fs::path events = event_media_dir(state_dir);
  while (!done) {
    struct statvfs s {};
    if (::statvfs(state_dir.c_str(), &s) == 0) {
      const double used = static_cast<double>(s.f_blocks - s.f_bfree) * s.f_frsize;
      const double free = static_cast<double>(s.f_bavail) * s.f_frsize;
      if (used > f.peak_used) f.peak_used = used;
      if (free < f.least_free) f.least_free = free;
    }
    const double folder = folder_bytes(events);
    if (folder > f.peak_folder) f.peak_folder = folder;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

int run(const fs::path& state_dir, int argc, char** argv) {
  const double minutes = arg(argc, argv, "--minutes", 60);
  const double every_s = arg(argc, argv, "--every", 2);
  const double max_mb = arg(argc, argv, "--max-mb", 40);
  const double min_free_mb = arg(argc, argv, "--min-free-mb", 8);
  const double ballast_mb = arg(argc, argv, "--ballast-mb", 24);
  fs::create_directories(state_dir);
  const fs::path events_dir = event_media_dir(state_dir);

  Logger log(Logger::Sink::kStderr, config::LogLevel::kInfo);
  Events events(log);
  Warnings warnings;
  events.add(&warnings);
  EventStoreOutput store(events, state_dir);
  store.configure(settings(max_mb, min_free_mb));
  store.start();

  cv::RNG rng(7);
  std::vector<std::shared_ptr<const cv::Mat>> pictures;
  for (int i = 0; i < 16; ++i) {
    pictures.push_back(std::make_shared<const cv::Mat>(picture(60 * i, rng)));
  }
  const auto names = model();

  DiskFigures disk;
  std::atomic<bool> done{false};
  std::thread sampler(sample, state_dir, std::cref(done), std::ref(disk));
  // Joined however the run ends.
  struct Join {
    std::atomic<bool>& done;
    std::thread& thread;
    ~Join() {
      done = true;
      if (thread.joinable()) thread.join();
    }
  } join{done, sampler};

  const auto frames = static_cast<std::int64_t>(minutes * 60 * kCameraFps);
  const auto frame_step =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / kCameraFps));
  const auto every = static_cast<std::int64_t>(every_s * kCameraFps);
  const auto t0 = Clock::now() - std::chrono::hours(2);
  const fs::path ballast = state_dir / "ballast";
  std::int64_t event_id = 0;
  // Free space just after the ballast came: another program may take the disk below the floor.
  double ballast_left = 0;
  double publish_max_us = 0;
  double publish_total_us = 0;
  tracking::Track track;
  const auto started = Clock::now();
  for (std::int64_t i = 0; i < frames; ++i) {
    if (ballast_mb > 0 && i == frames / 3) {
      try {
        write_file_atomically(ballast,
                              std::string(static_cast<std::size_t>(ballast_mb * kMiB), 'b'));
      } catch (const std::exception& e) {
        std::fprintf(stderr, "no ballast (%s): lower --ballast-mb\n", e.what());
      }
      struct statvfs after {};
      ::statvfs(state_dir.c_str(), &after);
      ballast_left = static_cast<double>(after.f_bavail) * after.f_frsize;
    }
    if (ballast_mb > 0 && i == frames * 5 / 6) fs::remove(ballast);
    auto r = std::make_shared<FrameResult>();
    r->index = i;
    r->captured = t0 + i * frame_step;
    r->wall = std::chrono::system_clock::now();
    r->model = names;
    r->frame = pictures[static_cast<std::size_t>(i) % pictures.size()];
    // One car per event: a new track whose best score is at its third frame.
    const std::int64_t phase = i % every;
    if (phase == 0) track = {};
    track.id = i / every + 1;
    track.class_id = 2;
    track.box = {static_cast<float>(60 * (i % 16)), 300, static_cast<float>(60 * (i % 16) + 240),
                 440};
    if (phase <= 2) {
      track.best_score = 0.5f + 0.1f * static_cast<float>(phase);
      track.best_frame = i;
      track.best_box = track.box;
    }
    r->tracks = {track};
    r->detections.push_back({2, 0.8f, track.box});
    if (phase == every / 2) {
      tracking::ObjectEvent e;
      e.id = ++event_id;
      e.kind = tracking::ObjectEventKind::kCross;
      e.camera = "main";
      e.place = "road";
      e.track_id = track.id;
      e.class_id = 2;
      e.label = "car";
      e.box = track.box;
      e.best_frame = track.best_frame;
      e.best_box = track.best_box;
      e.when = r->captured;
      e.frame_index = i;
      r->object_events.push_back(e);
    }
    const auto before = Clock::now();
    store.publish(std::move(r));
    const double us = std::chrono::duration<double, std::micro>(Clock::now() - before).count();
    publish_max_us = std::max(publish_max_us, us);
    publish_total_us += us;
    // Compressed time: the camera runs as fast as the store keeps up (its queue never full).
    while (store.status().value("queued", 0) >= 4) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  const bool stopped = store.stop();
  done = true;
  sampler.join();
  fs::remove(ballast);
  const json s = store.status();
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  struct statvfs fsinfo {};
  ::statvfs(state_dir.c_str(), &fsinfo);
  std::printf("%.0f min of a %.0f fps camera, an event every %.0f s (%lld events) in %.0f s:\n",
              minutes, kCameraFps, every_s, static_cast<long long>(event_id), seconds);
  std::printf(
      "  filesystem %.1f MB; budget events.max_mb %.1f MB, floor events.min_free_mb %.1f "
      "MB, ballast %.1f MB from 1/3 to 5/6 of the run\n",
      static_cast<double>(fsinfo.f_blocks) * fsinfo.f_frsize / kMiB, max_mb, min_free_mb,
      ballast_mb);
  std::printf(
      "  events folder (its files' sizes, sampled every 2 ms): peak %.2f MB, %.2f MB at the "
      "end; the store's count (blocks on the disk) %.2f MB\n",
      disk.peak_folder / kMiB, folder_bytes(events_dir) / kMiB, s.value("bytes", 0.0) / kMiB);
  std::printf(
      "  filesystem (sampled every 2 ms): peak used %.2f MB (events + ballast), least free "
      "%.2f MB against the %.1f MB floor (the ballast alone left %.2f MB)\n",
      disk.peak_used / kMiB, disk.least_free / kMiB, min_free_mb, ballast_left / kMiB);
  std::printf(
      "  written: %lld snapshots, %lld crops, %lld clips; skipped %lld; removed by the "
      "budget %lld; frames dropped %lld; warnings said %d\n",
      s.value("snapshots", 0LL), s.value("crops", 0LL), s.value("clips", 0LL),
      s.value("skipped", 0LL), s.value("removed", 0LL), s.value("dropped", 0LL),
      warnings.said.load());
  std::printf("  publish(): mean %.1f us, max %.1f us; stop() in time: %s\n",
              publish_total_us / static_cast<double>(frames), publish_max_us,
              stopped ? "yes" : "no");
  return 0;
}

// Whether `file` reads back whole: a JPEG decodes, an AVI opens and every frame decodes.
bool whole(const fs::path& file, int& clip_frames) {
  if (file.extension() == ".jpg") return !cv::imread(file.string()).empty();
  cv::VideoCapture capture(file.string(), cv::CAP_FFMPEG);
  if (!capture.isOpened()) return false;
  const auto expected = static_cast<int>(capture.get(cv::CAP_PROP_FRAME_COUNT));
  cv::Mat f;
  int n = 0;
  while (capture.read(f)) ++n;
  clip_frames += n;
  return n > 0 && n == expected;
}

int check(const fs::path& state_dir) {
  const fs::path dir = event_media_dir(state_dir);
  int partial = 0;
  std::error_code ignored;
  for (const auto& e : fs::directory_iterator(dir, ignored)) partial += is_partial_file(e.path());
  Logger log(Logger::Sink::kStderr, config::LogLevel::kWarning);
  Events events(log);
  EventStoreOutput store(events, state_dir);
  store.configure(settings(1e6, 0));
  store.start();
  store.stop();
  int files = 0, broken = 0, left = 0, clip_frames = 0;
  for (const auto& e : fs::directory_iterator(dir, ignored)) {
    if (is_partial_file(e.path())) {
      ++left;
      continue;
    }
    if (!event_media_id(e.path().filename().string())) continue;
    ++files;
    if (!whole(e.path(), clip_frames)) {
      ++broken;
      std::printf("  not whole: %s\n", e.path().c_str());
    }
  }
  std::printf(
      "restart: %d temporary files found, %d left after the start; %d files, %d not "
      "whole (%d clip frames decoded)\n",
      partial, left, files, broken, clip_frames);
  return broken == 0 && left == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  try {
    if (mode == "encode") return encode();
    if (mode == "run" && argc > 2) return run(argv[2], argc, argv);
    if (mode == "check" && argc > 2) return check(argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_event_store: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr,
               "usage: bench_event_store encode | run STATE_DIR [--minutes M] [--every S] "
               "[--max-mb MB] [--min-free-mb MB] [--ballast-mb MB] | check STATE_DIR\n");
  return 2;
}
