// SPDX-License-Identifier: Apache-2.0
#include "config/suggest.h"

#include <gtest/gtest.h>

namespace yolo::config {
namespace {

TEST(Suggest, NamesForMessages) {
  EXPECT_EQ(to_lower("Int8 FP32"), "int8 fp32");
  EXPECT_EQ(join_names({}), "");
  EXPECT_EQ(join_names({"fp32"}), "fp32");
  EXPECT_EQ(join_names({"off", "auto"}), "off, auto");
}

TEST(Suggest, EditDistance) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("conf", "conf"), 0u);
  EXPECT_EQ(edit_distance("conf", ""), 4u);
  EXPECT_EQ(edit_distance("conff", "conf"), 1u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("modle", "model"), 1u);
  EXPECT_EQ(edit_distance("iou", "oiu"), 1u);
  EXPECT_EQ(edit_distance("ab", "ba"), 1u);
  EXPECT_EQ(edit_distance("ca", "abc"), 3u);
}

TEST(Suggest, ClosestNameForTyposCaseAndAbbreviations) {
  const std::vector<std::string_view> keys = {"conf", "iou", "classes", "max_detections",
                                              "agnostic_nms"};
  EXPECT_EQ(closest_name("conff", keys), "conf");
  EXPECT_EQ(closest_name("cnof", keys), "conf");
  EXPECT_EQ(closest_name("CLASSES", keys), "classes");
  EXPECT_EQ(closest_name("clases", keys), "classes");
  EXPECT_EQ(closest_name("max_det", keys), "max_detections");
  EXPECT_EQ(closest_name("agnostic", keys), "agnostic_nms");
}

TEST(Suggest, NothingWhenNoNameIsPlausible) {
  const std::vector<std::string_view> keys = {"conf", "iou", "classes"};
  EXPECT_EQ(closest_name("resolution", keys), "");
  EXPECT_EQ(closest_name("xyz", keys), "");
  EXPECT_EQ(closest_name("a", {}), "");
}

}  // namespace
}  // namespace yolo::config
