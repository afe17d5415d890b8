// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace yolo::cli {

// What a benchmark report says about where and how it ran.

// Cores this process may run on (taskset and cpusets included), at least 1.
int usable_cores();
// "Raspberry Pi 5 Model B Rev 1.0" from the device tree, else the CPU's model name, else
// "unknown CPU".
std::string machine_name();
std::string host_name();
// Now, as "2026-11-23 19:40 UTC".
std::string utc_now_text();
// This process's command line, arguments with spaces or quotes quoted for a shell.
std::string own_command_line();

}  // namespace yolo::cli
