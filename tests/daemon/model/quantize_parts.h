// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the tests of quantize: auto (Int8Maker) and requantize (Requantizer) both need: a stand-in
// for `yolo-edge quantize`, and a calibration reservoir filled with frames.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include <opencv2/core.hpp>

#include "daemon/model/reservoir.h"

namespace yolo::daemon {

// A stand-in for `yolo-edge quantize` in `folder`: writes its arguments to args.txt, prints a
// line of progress, waits until the file `go` exists, then fails when `fail` exists and otherwise
// writes the --out file.
inline std::filesystem::path fake_quantizer(const std::filesystem::path& folder) {
  const std::filesystem::path script = folder / "fake-yolo-edge";
  std::ofstream(script) << "#!/bin/sh\n"
                        << "echo \"$@\" > '" << (folder / "args.txt").string() << "'\n"
                        << "echo 'calibrated 2 frame(s)' >&2\n"
                        << "while [ ! -e '" << (folder / "go").string()
                        << "' ]; do sleep 0.02; done\n"
                        << "if [ -e '" << (folder / "fail").string()
                        << "' ]; then echo 'no frames to calibrate on' >&2; exit 3; fi\n"
                        << "while [ \"$1\" != --out ]; do shift; done\n"
                        << "echo int8 > \"$2\"\n";
  std::filesystem::permissions(script, std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::add);
  return script;
}

// Offers `reservoir` (made with no offer period) frames until it keeps `count`.
inline void fill_reservoir(CalibrationReservoir& reservoir, int count) {
  for (int i = 0; i < 2000 && reservoir.count() < count; ++i) {
    auto result = std::make_shared<FrameResult>();
    result->frame = std::make_shared<const cv::Mat>(16, 16, CV_8UC3, cv::Scalar::all(i % 256));
    reservoir.publish(std::move(result));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_EQ(reservoir.count(), count);
}

}  // namespace yolo::daemon
