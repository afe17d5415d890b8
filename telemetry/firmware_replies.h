// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace yolo::telemetry {

// The throttle word of a get_throttled reply ("throttled=0x50005").
std::optional<std::uint32_t> parse_throttled(std::string_view reply);

// The clock of a measure_clock reply ("frequency(48)=1500000000"), in Hz.
std::optional<double> parse_clock_hz(std::string_view reply);

// Board power from a Pi 5 pmic_read_adc reply, in watts: each rail's current line
// ("VDD_CORE_A current(7)=1.54489000A") paired by rail name with its voltage line
// ("VDD_CORE_V volt(15)=0.88725180V"), V x I summed over the rails that have both. nullopt when
// no rail has both (not a Pi 5, or a reply in another form).
std::optional<double> parse_pmic_watts(std::string_view reply);

}  // namespace yolo::telemetry
