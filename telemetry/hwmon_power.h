// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <vector>

#include "telemetry/hwmon.h"
#include "telemetry/power_source.h"

namespace yolo::telemetry {

// The external power sensors among `devices`, in their order: INA2xx chips (power1_input in
// microwatts, else bus in1_input mV x curr1_input mA) and INA3221s (in[1-3]_input mV x
// curr[1-3]_input mA, summed over the channels that read).
std::vector<std::unique_ptr<PowerSource>> find_hwmon_power(const std::vector<HwmonDevice>& devices);

}  // namespace yolo::telemetry
