// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <opencv2/core.hpp>

namespace yolo::vision {

// Where frames come from. `uri` is one of: a V4L2 device ("/dev/video0") or its index ("0"); a
// GStreamer pipeline (anything containing '!', e.g. "libcamerasrc ! video/x-raw,width=640 !
// videoconvert ! appsink"); an rtsp://, http:// or https:// stream; a video file; a still image;
// a folder of images.
struct SourceSpec {
  std::string uri;
  // Files and folders start again at the end instead of ending.
  bool loop = false;
  // Files and folders deliver frames at their frame rate, like a camera would.
  bool realtime = false;
  // Requested capture size for cameras (0 keeps the device's choice).
  int width = 0;
  int height = 0;
  // Requested rate for cameras; for files it overrides the container's rate when pacing; image
  // folders need it to be paced at all.
  double fps = 0;
  // The pixel format to ask a V4L2 camera for, as its four characters ("MJPG", "YUYV"); empty
  // keeps the camera's choice. Other sources ignore it.
  std::string fourcc{};
};

enum class SourceKind { kV4l2, kGstreamer, kNetwork, kVideoFile, kImage, kImageFolder };

const char* source_kind_name(SourceKind kind);

// What open_source will make of `uri`, checked without opening it: the one rule for what a source
// is, used by open_source and by the config check, so a config that passes names a source the
// daemon can open. `file://` URLs are local paths; a relative path resolves against `base` (the
// config's folder; the current folder when empty).
struct SourceCheck {
  // The uri as it will be opened (file:// removed, relative paths made absolute).
  std::string uri;
  SourceKind kind = SourceKind::kVideoFile;
  // It can never open as written: empty, an unknown scheme, no such file or folder, ...
  std::string error;
  // It cannot open now but may later: a camera device that is not plugged in.
  std::string warning;
};
SourceCheck check_source(const std::string& uri, const std::filesystem::path& base = {});

// The device node a V4L2 camera source names ("/dev/video0" for "/dev/video0" or "0"), so a
// caller can watch for it to appear; nothing for any other kind of source.
std::optional<std::filesystem::path> camera_device(const std::string& uri);

// What kind of source `uri` names (check_source's kind). Throws SourceError when it can never
// open.
SourceKind classify_source(const std::string& uri);

// A source that cannot be opened or read; the message names the source and the reason.
class SourceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Frame {
  // 8-bit BGR pixels. Drawing on them does not affect the source, but read() may reuse this
  // buffer for the next frame: move or clone a frame to keep it past the next read().
  cv::Mat bgr;
  // 0, 1, 2, ... in delivery order, continuing across loops.
  std::int64_t index = -1;
  // When the frame was captured (read, for files).
  std::chrono::steady_clock::time_point timestamp;
  // When the scene looked like this: the capture time, except for a file read faster or slower
  // than its frame rate, which keeps its own clock (index / fps after the first frame). What
  // follows objects over time goes by it, so a file gives the same tracks on any machine.
  std::chrono::steady_clock::time_point scene_time;
};

class FrameSource {
 public:
  virtual ~FrameSource() = default;
  FrameSource() = default;
  FrameSource(const FrameSource&) = delete;
  FrameSource& operator=(const FrameSource&) = delete;

  // The next frame; false at the end of a file or folder that does not loop, or when a live
  // source stops delivering (the frame's contents are then unspecified). Throws SourceError when an
  // image in a folder cannot be decoded.
  virtual bool read(Frame& frame) = 0;
  // One line for logs: kind, name, size and rate.
  virtual std::string describe() const = 0;
  // Frames per second, 0 when unknown.
  virtual double fps() const = 0;
  // How many frames read() delivers before it ends: the images of a folder, the frames a video
  // file's container states; 0 when unknown or endless (a camera, a stream, a looping file).
  virtual std::int64_t frame_count() const = 0;
  // Frames arrive on their own clock (a camera, a stream, a file paced in real time): a consumer
  // that falls behind should drop frames rather than queue them.
  virtual bool is_live() const = 0;
};

// Opens the source `spec` names. Throws SourceError saying why it cannot (not found, not an
// image or video, device busy or not a camera, no backend, ...).
std::unique_ptr<FrameSource> open_source(const SourceSpec& spec);

}  // namespace yolo::vision
