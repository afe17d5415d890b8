// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace yolo::daemon {

// This machine's host name ("unknown" when it has none): what logs, the status and MQTT name the
// device by.
std::string host_name();

}  // namespace yolo::daemon
