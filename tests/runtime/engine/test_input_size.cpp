// SPDX-License-Identifier: Apache-2.0
// runtime/engine/input_size.h: the input imgsz auto gives a source, Ultralytics' rectangular
// inference.
#include "runtime/engine/input_size.h"

#include <gtest/gtest.h>

namespace yolo::runtime {
namespace {

TEST(InputSize, AutoTakesTheSourceAspectWithTheLongSideAsExported) {
  // 16:9 at 640: 360 rounded up to the stride.
  EXPECT_EQ(aspect_input(720, 1280, 640, 32), InputSize::fixed(384, 640));
  EXPECT_EQ(aspect_input(1080, 1920, 640, 32), InputSize::fixed(384, 640));
  // Portrait, 4:3, square.
  EXPECT_EQ(aspect_input(1280, 720, 640, 32), InputSize::fixed(640, 384));
  EXPECT_EQ(aspect_input(576, 768, 640, 32), InputSize::fixed(480, 640));
  EXPECT_EQ(aspect_input(500, 500, 640, 32), InputSize::fixed(640, 640));
  // Other export sizes and strides.
  EXPECT_EQ(aspect_input(720, 1280, 320, 32), InputSize::fixed(192, 320));
  EXPECT_EQ(aspect_input(720, 1280, 1280, 64), InputSize::fixed(768, 1280));
  // A very wide strip never goes below one stride.
  EXPECT_EQ(aspect_input(10, 4000, 640, 32), InputSize::fixed(32, 640));
}

TEST(InputSize, DescribesItself) {
  EXPECT_EQ(to_string(InputSize{}), "the model's own");
  EXPECT_EQ(to_string(InputSize::fixed(384, 640)), "384x640");
  EXPECT_EQ(to_string(InputSize::automatic()), "auto");
  EXPECT_EQ(to_string(InputSize::automatic(720, 1280)), "auto for 720x1280 frames");
  EXPECT_FALSE(InputSize::automatic().has_frame());
  EXPECT_TRUE(InputSize::automatic(720, 1280).has_frame());
}

}  // namespace
}  // namespace yolo::runtime
