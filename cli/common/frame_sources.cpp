// SPDX-License-Identifier: Apache-2.0
#include "cli/common/frame_sources.h"

#include <stdexcept>

namespace yolo::cli {

namespace {

std::unique_ptr<vision::FrameSource> open_source(const std::string& option, const std::string& uri,
                                                 bool want_stills) {
  vision::SourceSpec spec;
  spec.uri = uri;
  const auto kind = vision::classify_source(spec.uri);
  const bool still = kind == vision::SourceKind::kImage || kind == vision::SourceKind::kImageFolder;
  if (want_stills && !still) {
    throw std::runtime_error(option + " " + uri +
                             ": not a folder of images (or an image); use --video for videos, "
                             "streams and cameras");
  }
  if (!want_stills && still) {
    throw std::runtime_error(option + " " + uri + ": is " + vision::source_kind_name(kind) +
                             "; use --images for stills");
  }
  return vision::open_source(spec);
}

}  // namespace

std::vector<std::unique_ptr<vision::FrameSource>> open_frames(const std::string& images,
                                                              const std::string& video) {
  std::vector<std::unique_ptr<vision::FrameSource>> sources;
  if (!images.empty()) sources.push_back(open_source("--images", images, true));
  if (!video.empty()) sources.push_back(open_source("--video", video, false));
  return sources;
}

CLI::Option* add_video_option(CLI::App& sub, std::string& video) {
  return sub.add_option("--video,-v", video,
                        "A video file, stream URL, GStreamer pipeline or camera device");
}

}  // namespace yolo::cli
