// SPDX-License-Identifier: Apache-2.0
#include "runtime/model/model_metadata.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/model/model_error.h"
#include "runtime/model/onnx_model.h"
#include "tests/support/fixtures.h"

namespace yolo::runtime {
namespace {

using Names = std::vector<std::string>;

// The error must name the key, so a user knows which metadata entry to fix.
void expect_malformed(const std::string& key, const std::string& text) {
  try {
    parse_names(key, text);
    FAIL() << "no error for " << key << " = " << text;
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("'" + key + "'"), std::string::npos) << e.what();
  }
}

TEST(ParseNames, UltralyticsDict) {
  EXPECT_EQ(parse_names("names", "{0: 'person', 1: 'bicycle', 2: 'traffic light'}"),
            (Names{"person", "bicycle", "traffic light"}));
}

TEST(ParseNames, DictInAnyOrderWithOddSpacing) {
  EXPECT_EQ(parse_names("names", " {1:\"b\" ,0 :  'a',\n2: 'c' , } "), (Names{"a", "b", "c"}));
}

TEST(ParseNames, ListForm) {
  EXPECT_EQ(parse_names("names", "['cat', \"dog\"]"), (Names{"cat", "dog"}));
  EXPECT_EQ(parse_names("names", "('cat', 'dog')"), (Names{"cat", "dog"}));
  EXPECT_EQ(parse_names("names", "[]"), Names{});
}

TEST(ParseNames, EscapedQuotesAndUnicode) {
  EXPECT_EQ(parse_names("names", R"({0: 'it\'s', 1: "say \"hi\"", 2: "o'k", 3: 'back\\slash'})"),
            (Names{"it's", "say \"hi\"", "o'k", "back\\slash"}));
  EXPECT_EQ(parse_names("names", R"(['caf\xe9', '\u00e9t\u00e9', 'naïve'])"),
            (Names{"caf\xc3\xa9", "\xc3\xa9t\xc3\xa9", "naïve"}));
}

TEST(ParseNames, MalformedIsRejectedNamingTheKey) {
  expect_malformed("names", "");
  expect_malformed("names", "person, bicycle");
  expect_malformed("names", "{0: 'person', 1: 'bicycle'");
  expect_malformed("names", "{0: 'person' 1: 'bicycle'}");
  expect_malformed("names", "{0: 'person}");
  expect_malformed("names", "{0 'person'}");
  expect_malformed("names", "{0: 'person', 2: 'gap'}");
  expect_malformed("names", "{0: 'person', 0: 'twice'}");
  expect_malformed("names", "{-1: 'negative'}");
  expect_malformed("names", "{0: 1}");
  expect_malformed("names", "{'0': 'string key'}");
  expect_malformed("names", "{99999999999999999999: 'huge'}");
  expect_malformed("names", "['a', 'b'] trailing");
  expect_malformed("names", "['a\\");
  expect_malformed("names", "['\\x4']");
  expect_malformed("names", "42");
  expect_malformed("names", std::string(1000, '['));
  expect_malformed("names", std::string("['a\0b']", 7));
}

TEST(ParseIntList, Imgsz) {
  EXPECT_EQ(parse_int_list("imgsz", "[640, 640]"), (std::vector<int>{640, 640}));
  EXPECT_EQ(parse_int_list("imgsz", "(384,640)"), (std::vector<int>{384, 640}));
  EXPECT_EQ(parse_int_list("imgsz", "320"), (std::vector<int>{320, 320}));
}

TEST(ParseIntList, MalformedIsRejectedNamingTheKey) {
  for (const char* bad : {"", "[]", "[640, 'a']", "[640.5, 640]", "[0, 640]", "[-640, 640]",
                          "[640, 640", "640x640", "[9999999999, 1]"}) {
    try {
      parse_int_list("imgsz", bad);
      ADD_FAILURE() << "no error for imgsz = " << bad;
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find("'imgsz'"), std::string::npos) << e.what();
    }
  }
}

TEST(ParseScalars, IntAndBool) {
  EXPECT_EQ(parse_int("stride", " 32 "), 32);
  EXPECT_EQ(parse_int("stride", "+8"), 8);
  EXPECT_TRUE(parse_bool("end2end", "True"));
  EXPECT_FALSE(parse_bool("end2end", "False"));
  EXPECT_THROW(parse_int("stride", "32.0"), ModelError);
  EXPECT_THROW(parse_int("stride", "thirty-two"), ModelError);
  EXPECT_THROW(parse_bool("end2end", "true"), ModelError);
  EXPECT_THROW(parse_bool("end2end", "1"), ModelError);
  EXPECT_THROW(parse_bool("end2end", ""), ModelError);
}

onnx::ModelProto synthetic_model(const std::vector<std::pair<std::string, std::string>>& props) {
  onnx::ModelProto model;
  model.set_producer_name("pytorch");
  model.set_producer_version("2.5.0");
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  auto* ms = model.add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  for (const auto& [key, value] : props) {
    auto* prop = model.add_metadata_props();
    prop->set_key(key);
    prop->set_value(value);
  }
  return model;
}

TEST(ReadMetadata, SyntheticUltralyticsModel) {
  const auto meta = read_metadata(synthetic_model({{"task", "detect"},
                                                   {"author", "Ultralytics"},
                                                   {"names", "{0: 'a', 1: 'b'}"},
                                                   {"imgsz", "[480, 640]"},
                                                   {"stride", "32"},
                                                   {"end2end", "True"},
                                                   {"args", "{'nms': False}"}}));
  EXPECT_EQ(meta.producer, "pytorch");
  EXPECT_EQ(meta.producer_version, "2.5.0");
  EXPECT_EQ(meta.opset, 17);
  EXPECT_EQ(meta.task, "detect");
  EXPECT_EQ(meta.author, "Ultralytics");
  EXPECT_EQ(meta.names, (Names{"a", "b"}));
  EXPECT_EQ(meta.imgsz, (std::vector<int>{480, 640}));
  EXPECT_EQ(meta.stride, 32);
  EXPECT_TRUE(meta.end2end);
  EXPECT_EQ(meta.raw.size(), 7u);
  EXPECT_EQ(meta.raw.at("args"), "{'nms': False}");
}

TEST(ReadMetadata, AbsentKeysStayEmpty) {
  const auto meta = read_metadata(synthetic_model({}));
  EXPECT_TRUE(meta.task.empty());
  EXPECT_TRUE(meta.names.empty());
  EXPECT_TRUE(meta.imgsz.empty());
  EXPECT_EQ(meta.stride, 0);
  EXPECT_FALSE(meta.end2end);
  EXPECT_TRUE(meta.raw.empty());
}

TEST(ReadMetadata, MalformedEntryNamesItsKey) {
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"names", "{0: 'a', 1: }"}, {"imgsz", "[640, "}, {"stride", "0"}, {"end2end", "yes"}}) {
    try {
      read_metadata(synthetic_model({{key, value}}));
      ADD_FAILURE() << "no error for " << key << " = " << value;
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find("'" + key + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(ReadMetadata, FixtureModels) {
  YOLO_REQUIRE_FIXTURES();
  struct Case {
    const char* file;
    int imgsz;
    bool end2end;
  };
  for (const Case& c :
       {Case{"yolov8n_640_int8dyn.onnx", 640, false}, Case{"yolov8n_640_fp32.onnx", 640, false},
        Case{"yolo11n_320_int8dyn.onnx", 320, false}, Case{"yolo11n_320_fp32.onnx", 320, false},
        Case{"yolo26n_640_int8dyn.onnx", 640, true}, Case{"yolo26n_640_fp32.onnx", 640, true}}) {
    SCOPED_TRACE(c.file);
    const auto model = OnnxModel::load(test::fixtures_dir() / "models" / c.file);
    const auto meta = read_metadata(model.proto());
    EXPECT_EQ(meta.task, "detect");
    EXPECT_EQ(meta.author, "Ultralytics");
    ASSERT_EQ(meta.names.size(), 80u);
    EXPECT_EQ(meta.names[0], "person");
    EXPECT_EQ(meta.names[9], "traffic light");
    EXPECT_EQ(meta.names[79], "toothbrush");
    EXPECT_EQ(meta.imgsz, (std::vector<int>{c.imgsz, c.imgsz}));
    EXPECT_EQ(meta.stride, 32);
    EXPECT_EQ(meta.end2end, c.end2end);
    EXPECT_GE(meta.opset, 12);
  }
}

}  // namespace
}  // namespace yolo::runtime
