// SPDX-License-Identifier: Apache-2.0
#include "config/config.h"

#include <gtest/gtest.h>

#include "config/schema.h"

namespace yolo::config {
namespace {

TEST(Config, DefaultConstructionHoldsTheSchemaDefaults) {
  const Config c;
  for (const FieldSpec& f : fields()) EXPECT_EQ(f.fetch(c), f.default_value) << f.path();
  EXPECT_EQ(c.source.uri, "/dev/video0");
  EXPECT_TRUE(c.model.path.empty());
  EXPECT_EQ(c.model.precision, Precision::kFile);
  EXPECT_EQ(c.model.imgsz, runtime::InputSize{});
  EXPECT_EQ(c.model.decoder, Decoder::kAuto);
  EXPECT_EQ(c.detect.conf, 0.25);
  EXPECT_EQ(c.threads.mode, ThreadMode::kAdaptive);
  EXPECT_EQ(c.logging.level, LogLevel::kInfo);
  EXPECT_EQ(c.model.calibration_frames, 64);
  EXPECT_EQ(c.http.listen, "0.0.0.0:8080");
  EXPECT_EQ(c.http.max_viewers, 4);
  EXPECT_FALSE(c.mqtt.enabled);
  EXPECT_FALSE(c.mqtt.homeassistant);
  EXPECT_EQ(c.gpio.chip, "gpiochip0");
  EXPECT_TRUE(c.gpio.alerts.empty());
  EXPECT_FALSE(c.gpio.status_led);
  EXPECT_FALSE(c.gpio.precision_button);
  EXPECT_FALSE(c.file.watch);
}

TEST(Config, ComparesFieldByField) {
  Config a;
  Config b;
  EXPECT_EQ(a, b);
  b.detect.classes = {0};
  EXPECT_NE(a, b);
  b = a;
  b.file.watch = true;
  EXPECT_NE(a, b);
  b = a;
  b.gpio.alerts.push_back({});
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace yolo::config
