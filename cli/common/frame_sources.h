// SPDX-License-Identifier: Apache-2.0
#pragma once

// The frames a command measures on, from --images (a folder of stills, or one) and --video (a
// video, a stream or a camera): compare and bench --choose take them the same way.

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "vision/capture.h"

namespace yolo::cli {

// The images, then the video; empty arguments are left out. Throws std::runtime_error when
// --images names a video or --video a folder of stills (saying which option to use), and what
// vision::open_source throws for a source that cannot be opened.
std::vector<std::unique_ptr<vision::FrameSource>> open_frames(const std::string& images,
                                                              const std::string& video);

// --video,-v into `video`, described once for every command that reads a video, a stream or a
// camera.
CLI::Option* add_video_option(CLI::App& sub, std::string& video);

}  // namespace yolo::cli
