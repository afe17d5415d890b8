// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string_view>

namespace yolo::daemon {

// The version string shown by `yolo-edged --version` and in the service status.
std::string_view version();

}  // namespace yolo::daemon
