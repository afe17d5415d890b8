// SPDX-License-Identifier: Apache-2.0
#pragma once

// A Raspberry Pi firmware that answers from a table, for tests: the real one needs /dev/vcio.
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "telemetry/firmware.h"

namespace yolo::telemetry::test {

class FakeFirmware : public Firmware {
 public:
  // Command -> reply; commands not here are refused, as the firmware refuses unknown ones.
  std::map<std::string, std::string, std::less<>> replies;
  // Command -> times asked.
  std::map<std::string, int, std::less<>> asked;

  std::optional<std::string> command(std::string_view cmd) override {
    ++asked[std::string(cmd)];
    const auto reply = replies.find(cmd);
    if (reply == replies.end()) return std::nullopt;
    return reply->second;
  }
};

}  // namespace yolo::telemetry::test
