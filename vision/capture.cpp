// SPDX-License-Identifier: Apache-2.0
#include "vision/capture.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>
#include <opencv2/videoio/registry.hpp>

namespace yolo::vision {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void fail(const std::string& uri, const std::string& why) {
  throw SourceError("source '" + uri + "': " + why);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool is_image_path(const fs::path& p) {
  static const char* const kExtensions[] = {".jpg", ".jpeg", ".png", ".bmp", ".webp",
                                            ".tif", ".tiff", ".ppm", ".pgm", ".pbm"};
  const std::string ext = lower(p.extension().string());
  return std::any_of(std::begin(kExtensions), std::end(kExtensions),
                     [&](const char* e) { return ext == e; });
}

bool is_index(const std::string& uri) {
  return !uri.empty() && uri.size() <= 3 &&
         std::all_of(uri.begin(), uri.end(), [](unsigned char c) { return std::isdigit(c); });
}

bool has_scheme(const std::string& uri) {
  const std::string l = lower(uri);
  for (const char* s :
       {"rtsp://", "rtsps://", "rtmp://", "http://", "https://", "udp://", "tcp://"}) {
    if (l.rfind(s, 0) == 0) return true;
  }
  return false;
}

std::string fps_text(double fps) {
  std::ostringstream s;
  s << fps;
  return s.str();
}

// How long a network stream may take to open, and to deliver its next frame.
constexpr int kStreamOpenTimeoutMs = 10000;
constexpr int kStreamReadTimeoutMs = 5000;

// A pixel format code (CAP_PROP_FOURCC) as its four characters; empty when it has none.
std::string fourcc_text(double code) {
  const auto value = static_cast<std::uint32_t>(code);
  std::string text;
  for (int shift = 0; shift < 32; shift += 8) {
    const char c = static_cast<char>((value >> shift) & 0xff);
    if (c < ' ' || c > '~') return "";
    text += c;
  }
  return text;
}

// Why a pipeline may not have started, and what to do. For libcamerasrc, what the VM's vimc
// camera showed (docs/system-tests.md): a size the camera cannot give exactly fails to negotiate,
// and OpenCV 4.6 drops a pipeline that failed to start without stopping it, so libcamerasrc keeps
// its camera acquired: every later open in this process, a reload's too, fails with "already in
// use" until the daemon restarts.
std::string gstreamer_failure(const std::string& uri) {
  std::string why =
      "the GStreamer pipeline did not start; run it alone with gst-launch-1.0 -v, ending in "
      "fakesink instead of appsink";
  if (uri.find("libcamerasrc") != std::string::npos)
    why +=
        ". libcamerasrc: a size the camera cannot give exactly stops it (not-negotiated); "
        "cam --list lists the cameras libcamera sees (gstreamer1.0-libcamera and libcamera-ipa "
        "needed). A libcamerasrc pipeline that failed keeps the camera until the daemon "
        "restarts: after fixing it, restart the service (a reload cannot)";
  return why;
}

// Numbers and time-stamps the frames a source delivers. Paced (a file or images played in real
// time), it first sleeps so that frame n is delivered n / fps seconds after the first one. A file
// read as fast as it can be keeps its own clock as the scene time: n / fps after the first frame.
class FrameClock {
 public:
  void pace(double fps) {
    fps_ = fps;
    paced_ = true;
  }
  // The frame rate of a file read unpaced, for its scene time only.
  void scene_rate(double fps) { fps_ = fps; }

  void stamp(Frame& frame) {
    if (paced_) wait(next_);
    frame.index = next_++;
    frame.timestamp = Clock::now();
    if (start_ == Clock::time_point{}) {
      start_ = frame.timestamp;
      first_ = frame.index;
    }
    frame.scene_time = !paced_ && fps_ > 0 ? at(frame.index) : frame.timestamp;
  }

 private:
  Clock::time_point at(std::int64_t n) const {
    return start_ + std::chrono::duration_cast<Clock::duration>(
                        std::chrono::duration<double>((n - first_) / fps_));
  }

  void wait(std::int64_t n) {
    if (start_ != Clock::time_point{}) std::this_thread::sleep_until(at(n));
  }

  double fps_ = 0;
  bool paced_ = false;
  Clock::time_point start_{};
  std::int64_t first_ = 0;
  std::int64_t next_ = 0;
};

// Cameras, pipelines, streams and files: everything cv::VideoCapture reads.
class VideoCaptureSource : public FrameSource {
 public:
  VideoCaptureSource(const SourceSpec& spec, SourceKind kind) : spec_(spec), kind_(kind) {
    open();
    if (kind_ == SourceKind::kVideoFile) {
      const double own = capture_.get(cv::CAP_PROP_FPS);
      fps_ = spec_.fps > 0 ? spec_.fps : own;
      if (spec_.realtime && !(fps_ > 0))
        fail(spec_.uri,
             "the file states no frame rate, so it cannot be paced in real time; "
             "set fps");
      frame_count_ = static_cast<std::int64_t>(capture_.get(cv::CAP_PROP_FRAME_COUNT));
    } else {
      fps_ = capture_.get(cv::CAP_PROP_FPS);
    }
    size_ = {static_cast<int>(capture_.get(cv::CAP_PROP_FRAME_WIDTH)),
             static_cast<int>(capture_.get(cv::CAP_PROP_FRAME_HEIGHT))};
    if (kind_ == SourceKind::kV4l2) fourcc_ = fourcc_text(capture_.get(cv::CAP_PROP_FOURCC));
    if (kind_ == SourceKind::kVideoFile) {
      if (spec_.realtime)
        clock_.pace(fps_);
      else
        clock_.scene_rate(fps_);
    }
  }

  bool read(Frame& frame) override {
    if (!next_into(frame.bgr)) {
      // A file that loops starts over; one that has never delivered a frame would spin forever.
      if (kind_ != SourceKind::kVideoFile || !spec_.loop || since_open_ == 0) return false;
      open();
      if (!next_into(frame.bgr)) return false;
    }
    ++since_open_;
    clock_.stamp(frame);
    return true;
  }

  std::string describe() const override {
    std::ostringstream s;
    s << source_kind_name(kind_) << " " << spec_.uri << " (" << size_.width << "x" << size_.height;
    if (fps_ > 0) s << ", " << fps_text(fps_) << " fps";
    if (!fourcc_.empty()) s << ", " << fourcc_;
    if (kind_ == SourceKind::kVideoFile) {
      if (frame_count_ > 0) s << ", " << frame_count_ << " frames";
      if (spec_.loop) s << ", looping";
      if (spec_.realtime) s << ", real time";
    }
    s << ")";
    return s.str();
  }

  double fps() const override { return fps_ > 0 ? fps_ : 0; }
  std::int64_t frame_count() const override {
    return kind_ == SourceKind::kVideoFile && !spec_.loop ? std::max<std::int64_t>(frame_count_, 0)
                                                          : 0;
  }
  bool is_live() const override { return kind_ != SourceKind::kVideoFile || spec_.realtime; }

 private:
  // The next frame into `bgr`'s own buffer. grab() then retrieve() rather than read(): a failed
  // read() releases the buffer (at every end of a looping file, every camera hiccup), and the
  // next frame then allocates a new one, which the allocator may keep beside the old.
  bool next_into(cv::Mat& bgr) { return capture_.grab() && capture_.retrieve(bgr) && !bgr.empty(); }

  void open() {
    since_open_ = 0;
    const std::string& uri = spec_.uri;
    switch (kind_) {
      case SourceKind::kV4l2:
        open_v4l2();
        return;
      case SourceKind::kGstreamer: {
        if (!cv::videoio_registry::hasBackend(cv::CAP_GSTREAMER))
          fail(uri, "this OpenCV was built without GStreamer; use a device, file or URL");
        // OpenCV pulls frames from an appsink; add one when the pipeline does not end in it.
        std::string pipeline = uri;
        if (uri.find("appsink") == std::string::npos)
          pipeline += " ! videoconvert ! video/x-raw,format=BGR ! appsink drop=true max-buffers=1";
        if (!capture_.open(pipeline, cv::CAP_GSTREAMER)) fail(uri, gstreamer_failure(uri));
        return;
      }
      case SourceKind::kNetwork:
        // FFmpeg's own wait for a stream that goes silent (a camera switched off or cut off: no
        // connection closed) is 30 s, as long as the watchdog lets a capture thread be silent
        // before it has the whole daemon restarted. Shorter waits end a silent stream's read
        // first, and the capture reopens it like any dropped stream.
        if (!capture_.open(uri, cv::CAP_FFMPEG,
                           {cv::CAP_PROP_OPEN_TIMEOUT_MSEC, kStreamOpenTimeoutMs,
                            cv::CAP_PROP_READ_TIMEOUT_MSEC, kStreamReadTimeoutMs}))
          fail(uri,
               "the stream could not be opened within " +
                   std::to_string(kStreamOpenTimeoutMs / 1000) +
                   " s (unreachable, refused or not a video stream); check the URL with ffprobe");
        capture_.set(cv::CAP_PROP_BUFFERSIZE, 1);
        return;
      case SourceKind::kVideoFile:
        if (!capture_.open(uri, cv::CAP_FFMPEG))
          fail(uri, "not a known image or video format (FFmpeg cannot read it)");
        return;
      case SourceKind::kImage:
      case SourceKind::kImageFolder:
        break;
    }
    fail(uri, "is not read through a video capture");
  }

  void open_v4l2() {
    const std::string& uri = spec_.uri;
    const std::string device = is_index(uri) ? "/dev/video" + uri : uri;
    std::error_code ec;
    if (!fs::exists(device, ec))
      fail(uri, "no such camera device " + device + "; list cameras with v4l2-ctl --list-devices");
    if (!fs::is_character_file(device, ec)) fail(uri, device + " is not a device node");
    if (::access(device.c_str(), R_OK | W_OK) != 0)
      fail(uri, "permission denied on " + device + "; add the user to the 'video' group");
    const bool opened = is_index(uri) ? capture_.open(std::stoi(uri), cv::CAP_V4L2)
                                      : capture_.open(device, cv::CAP_V4L2);
    if (!opened)
      fail(uri, device +
                    " would not open as a V4L2 camera: busy with another program, or not a "
                    "capture device (metadata nodes cannot stream)");
    // The format first: the size and rate a camera offers depend on it (MJPG often has 1080p at
    // 30 fps where YUYV has 5).
    if (!spec_.fourcc.empty() && spec_.fourcc.size() != 4)
      fail(uri, "fourcc '" + spec_.fourcc + "' is not four characters (MJPG, YUYV, ...)");
    if (!spec_.fourcc.empty() &&
        !capture_.set(cv::CAP_PROP_FOURCC,
                      cv::VideoWriter::fourcc(spec_.fourcc[0], spec_.fourcc[1], spec_.fourcc[2],
                                              spec_.fourcc[3])))
      fail(uri, device + " does not offer the pixel format " + spec_.fourcc +
                    " (fourcc); v4l2-ctl -d " + device + " --list-formats-ext lists those it has");
    if (spec_.width > 0) capture_.set(cv::CAP_PROP_FRAME_WIDTH, spec_.width);
    if (spec_.height > 0) capture_.set(cv::CAP_PROP_FRAME_HEIGHT, spec_.height);
    if (spec_.fps > 0) capture_.set(cv::CAP_PROP_FPS, spec_.fps);
    // A detector wants the newest frame, not a queue of old ones.
    capture_.set(cv::CAP_PROP_BUFFERSIZE, 1);
  }

  SourceSpec spec_;
  SourceKind kind_;
  cv::VideoCapture capture_;
  double fps_ = 0;
  cv::Size size_;
  // The pixel format a camera delivers in, for describe().
  std::string fourcc_;
  std::int64_t frame_count_ = 0;
  std::int64_t since_open_ = 0;
  FrameClock clock_;
};

// A still image or a folder of images, read in file-name order.
class ImageSequenceSource : public FrameSource {
 public:
  ImageSequenceSource(const SourceSpec& spec, SourceKind kind) : spec_(spec), kind_(kind) {
    if (kind_ == SourceKind::kImage) {
      files_.push_back(spec.uri);
      // Decode now so a broken still image fails at open, and keep it: it is read again and again.
      still_ = cv::imread(spec.uri, cv::IMREAD_COLOR);
      if (still_.empty()) fail(spec.uri, "not a known image format (could not decode it)");
    } else {
      std::error_code ec;
      for (const auto& entry : fs::directory_iterator(spec.uri, ec)) {
        if (entry.is_regular_file() && is_image_path(entry.path())) files_.push_back(entry.path());
      }
      if (ec) fail(spec.uri, "cannot list the folder: " + ec.message());
      if (files_.empty())
        fail(spec.uri,
             "the folder holds no images (.jpg, .jpeg, .png, .bmp, .webp, .tif); add some, or "
             "give a video file, a stream URL or a camera instead");
      std::sort(files_.begin(), files_.end());
    }
    if (spec.realtime) {
      if (!(spec.fps > 0))
        fail(spec.uri, "images have no frame rate of their own: set fps to pace them in real time");
      clock_.pace(spec.fps);
    }
  }

  bool read(Frame& frame) override {
    if (next_ >= files_.size()) {
      if (!spec_.loop) return false;
      next_ = 0;
    }
    if (kind_ == SourceKind::kImage) {
      still_.copyTo(frame.bgr);
    } else {
      const fs::path& file = files_[next_];
      frame.bgr = cv::imread(file.string(), cv::IMREAD_COLOR);
      if (frame.bgr.empty()) fail(spec_.uri, "could not decode image " + file.filename().string());
    }
    ++next_;
    clock_.stamp(frame);
    return true;
  }

  std::string describe() const override {
    std::ostringstream s;
    s << source_kind_name(kind_) << " " << spec_.uri;
    if (kind_ == SourceKind::kImage)
      s << " (" << still_.cols << "x" << still_.rows;
    else
      s << " (" << files_.size() << " images";
    if (spec_.loop) s << ", looping";
    if (spec_.realtime) s << ", " << fps_text(spec_.fps) << " fps real time";
    s << ")";
    return s.str();
  }

  double fps() const override { return spec_.realtime ? spec_.fps : 0; }
  std::int64_t frame_count() const override {
    return spec_.loop ? 0 : static_cast<std::int64_t>(files_.size());
  }
  bool is_live() const override { return spec_.realtime; }

 private:
  SourceSpec spec_;
  SourceKind kind_;
  std::vector<fs::path> files_;
  cv::Mat still_;
  std::size_t next_ = 0;
  FrameClock clock_;
};

}  // namespace

// The name of each kind of source, in the enum's order.
constexpr std::array<const char*, 6> kSourceKindNames{
    "V4L2 camera", "GStreamer pipeline", "network stream", "video file", "image", "image folder"};
static_assert(kSourceKindNames.size() == static_cast<std::size_t>(SourceKind::kImageFolder) + 1);

const char* source_kind_name(SourceKind kind) {
  const auto i = static_cast<std::size_t>(kind);
  return i < kSourceKindNames.size() ? kSourceKindNames[i] : "unknown";
}

std::optional<fs::path> camera_device(const std::string& uri) {
  const SourceCheck check = check_source(uri);
  if (check.kind != SourceKind::kV4l2 || !check.error.empty()) return std::nullopt;
  return is_index(check.uri) ? fs::path("/dev/video" + check.uri) : fs::path(check.uri);
}

SourceCheck check_source(const std::string& uri, const fs::path& base) {
  SourceCheck check{uri, SourceKind::kVideoFile, "", ""};
  if (uri.empty()) {
    check.error =
        "is empty: give a camera (/dev/video0), a GStreamer pipeline, a URL, a file or a "
        "folder of images";
    return check;
  }
  if (uri.find('!') != std::string::npos) {
    check.kind = SourceKind::kGstreamer;
    return check;
  }
  if (has_scheme(uri)) {
    check.kind = SourceKind::kNetwork;
    return check;
  }
  std::string path = uri;
  if (lower(uri).rfind("file://", 0) == 0) {
    path = uri.substr(7);
    if (path.rfind("localhost/", 0) == 0) path = path.substr(9);
  } else if (const auto scheme = uri.find("://"); scheme != std::string::npos) {
    // Built with append: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string here.
    check.error = std::string("'")
                      .append(uri, 0, scheme)
                      .append(
                          "://' is not a source this daemon reads: use rtsp://, rtsps://, rtmp://, "
                          "http(s)://, "
                          "udp://, tcp://, file://, a camera, a pipeline or a path");
    return check;
  }
  if (is_index(path) || path.rfind("/dev/", 0) == 0) {
    check.kind = SourceKind::kV4l2;
    check.uri = path;
    const std::string device = is_index(path) ? "/dev/video" + path : path;
    std::error_code ec;
    if (!fs::exists(device, ec)) {
      check.warning = "no such camera device " + device + " now (unplugged?); it is opened when " +
                      "it appears. ls /dev/video* lists the cameras present";
    } else if (!fs::is_character_file(device, ec)) {
      check.error = device + " is not a device node: give a camera such as /dev/video0";
    }
    return check;
  }
  const fs::path local = fs::path(path).is_absolute() || base.empty()
                             ? fs::path(path)
                             : (base / path).lexically_normal();
  check.uri = local.string();
  std::error_code ec;
  const fs::file_status status = fs::status(local, ec);
  if (!fs::exists(status)) {
    check.error = "no such file or folder '" + check.uri +
                  "': give a video, an image or a folder of images that exists, a camera "
                  "(/dev/video0), a URL or a GStreamer pipeline";
  } else if (fs::is_directory(status)) {
    check.kind = SourceKind::kImageFolder;
  } else if (!fs::is_regular_file(status)) {
    check.error = "'" + check.uri + "' is not a regular file, folder or camera device";
  } else {
    check.kind = is_image_path(local) ? SourceKind::kImage : SourceKind::kVideoFile;
  }
  return check;
}

SourceKind classify_source(const std::string& uri) {
  const SourceCheck check = check_source(uri);
  if (!check.error.empty()) fail(uri, check.error);
  return check.kind;
}

std::unique_ptr<FrameSource> open_source(const SourceSpec& spec) {
  const SourceCheck check = check_source(spec.uri);
  if (!check.error.empty()) fail(spec.uri, check.error);
  SourceSpec resolved = spec;
  resolved.uri = check.uri;
  if (check.kind == SourceKind::kImage || check.kind == SourceKind::kImageFolder)
    return std::make_unique<ImageSequenceSource>(resolved, check.kind);
  return std::make_unique<VideoCaptureSource>(resolved, check.kind);
}

}  // namespace yolo::vision
