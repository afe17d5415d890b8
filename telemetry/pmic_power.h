// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <memory>

#include "telemetry/firmware.h"
#include "telemetry/power_source.h"

namespace yolo::telemetry {

// Pi 5 board power from the PMIC's ADCs (firmware pmic_read_adc, V x I summed over the rails),
// asked at most once per `period` and the last value reused in between. Null when there is no
// firmware or it does not answer pmic_read_adc (a Pi 4 or older).
std::unique_ptr<PowerSource> open_pmic_power(std::shared_ptr<Firmware> firmware,
                                             std::chrono::steady_clock::duration period);

}  // namespace yolo::telemetry
