// SPDX-License-Identifier: Apache-2.0
#include "telemetry/pmic_power.h"

#include "telemetry/firmware_replies.h"

namespace yolo::telemetry {

namespace {

class PmicPower : public PowerSource {
 public:
  PmicPower(std::shared_ptr<Firmware> firmware, std::chrono::steady_clock::duration period)
      : PowerSource("pmic"), firmware_(std::move(firmware)), period_(period) {}

  // One pmic_read_adc takes about 23 ms on a Pi 5: the firmware converts every rail's ADC one
  // after the other, and the mailbox is busy meanwhile. Asked every second, that is 2 % of the
  // telemetry thread's time spent waiting and other firmware calls queued behind it, for a value
  // that the field log averages over whole intervals anyway; so it is asked once per period.
  std::optional<PowerMeasurement> read(std::chrono::steady_clock::time_point now) override {
    if (!asked_at_ || now - *asked_at_ >= period_) {
      asked_at_ = now;
      const auto reply = firmware_->command("pmic_read_adc");
      watts_ = reply ? parse_pmic_watts(*reply) : std::nullopt;
    }
    if (!watts_) return std::nullopt;
    return PowerMeasurement{*watts_, std::nullopt};
  }

 private:
  std::shared_ptr<Firmware> firmware_;
  std::chrono::steady_clock::duration period_;
  // When the firmware was last asked, and what it said.
  std::optional<std::chrono::steady_clock::time_point> asked_at_;
  std::optional<double> watts_;
};

}  // namespace

std::unique_ptr<PowerSource> open_pmic_power(std::shared_ptr<Firmware> firmware,
                                             std::chrono::steady_clock::duration period) {
  if (!firmware) return nullptr;
  const auto reply = firmware->command("pmic_read_adc");
  if (!reply || !parse_pmic_watts(*reply)) return nullptr;
  return std::make_unique<PmicPower>(std::move(firmware), period);
}

}  // namespace yolo::telemetry
