// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "config/config.h"
#include "vision/decode.h"

namespace yolo::daemon {

// The detection settings (the detect section) as the detectors apply them: the inference thread's
// and the INT8 checks'.
vision::DecodeOptions decode_options(const config::DetectConfig& detect);

}  // namespace yolo::daemon
