// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>

#include "daemon/outputs/gpio/chip.h"

namespace yolo::daemon::gpio {

// The system's GPIO library: libgpiod_v1.cpp or libgpiod_v2.cpp, whichever API the installed
// libgpiod has (the build picks one by its pkg-config version).
std::unique_ptr<Backend> libgpiod_backend();

}  // namespace yolo::daemon::gpio
