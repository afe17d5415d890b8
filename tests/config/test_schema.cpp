// SPDX-License-Identifier: Apache-2.0
#include "config/schema.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "config/config_loader.h"
#include "config/yaml_writer.h"
#include "tests/support/tree_paths.h"

namespace yolo::config {
namespace {

const std::filesystem::path kShippedFile = yolo::test::source_dir() / "config" / "yolo-edge.yaml";

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(Schema, HoldsTheKeysDocsTestsAndScriptsRelyOn) {
  for (const char* key : {"source.uri",
                          "source.loop",
                          "source.realtime",
                          "source.width",
                          "source.height",
                          "source.fps",
                          "model.path",
                          "model.int8_path",
                          "model.precision",
                          "model.quantize",
                          "model.imgsz",
                          "detect.conf",
                          "detect.iou",
                          "detect.classes",
                          "detect.max_detections",
                          "threads.mode",
                          "threads.max",
                          "threads.margin",
                          "telemetry.interval_s",
                          "telemetry.sysfs_root",
                          "logging.dir",
                          "logging.interval_s",
                          "logging.max_bytes",
                          "logging.max_files",
                          "model.calibration_frames",
                          "http.listen",
                          "http.token",
                          "http.max_fps",
                          "http.max_viewers",
                          "mqtt.host",
                          "mqtt.port",
                          "mqtt.prefix",
                          "mqtt.ca_file",
                          "mqtt.homeassistant",
                          "gpio.chip",
                          "gpio.alerts",
                          "gpio.status_led",
                          "gpio.precision_button",
                          "config.watch"}) {
    EXPECT_NE(find_field(key), nullptr) << key;
  }
  const std::vector<std::string_view> precision = {"file", "fp32", "int8", "auto"};
  const std::vector<std::string_view> quantize = {"off", "auto"};
  EXPECT_EQ(find_field("model.precision")->choices, precision);
  EXPECT_EQ(find_field("model.quantize")->choices, quantize);
  EXPECT_EQ(find_field("nope.nothing"), nullptr);
}

TEST(Schema, EveryRowIsComplete) {
  std::set<std::string> paths;
  std::set<std::string_view> section_names;
  for (const SectionSpec& s : sections()) {
    section_names.insert(s.name);
    EXPECT_FALSE(s.description.empty()) << s.name;
  }
  EXPECT_EQ(section_names, (std::set<std::string_view>{
                               "source", "cameras", "motion", "motion_masks", "model", "checks",
                               "detect", "threads", "telemetry", "logging", "http", "mqtt", "gpio",
                               "webhook", "tracking", "zones", "lines", "events", "config"}));
  // A row or a record's member: described, its default valid, ranges and choices where they apply.
  const auto complete = [](const FieldSpec& f) {
    EXPECT_FALSE(f.description.empty()) << f.path();
    // A required member has no default to check: the loader asks for it.
    if (!f.required) {
      EXPECT_EQ(check_value(f, f.default_value), "") << f.path() << " rejects its own default";
    }
    const bool numeric =
        f.type == FieldType::kInt || f.type == FieldType::kFloat || f.type == FieldType::kIntList;
    if (numeric) {
      EXPECT_LT(f.min, f.max) << f.path();
    }
    // Choices name an enum's values, or those a list of names may hold (events.snapshots).
    if (f.type == FieldType::kEnum) {
      EXPECT_FALSE(f.choices.empty()) << f.path();
    }
    if (f.type != FieldType::kEnum && f.type != FieldType::kNameList) {
      EXPECT_TRUE(f.choices.empty()) << f.path();
    }
  };
  for (const FieldSpec& f : fields()) {
    EXPECT_TRUE(section_names.contains(f.section)) << f.path();
    EXPECT_TRUE(paths.insert(f.path()).second) << "twice: " << f.path();
    EXPECT_TRUE(f.store && f.fetch) << f.path();
    EXPECT_FALSE(f.required) << f.path() << ": only a record's members can be required";
    complete(f);
    const bool record = f.type == FieldType::kRecord || f.type == FieldType::kRecordList;
    EXPECT_EQ(record, !f.members.empty()) << f.path();
    std::set<std::string_view> member_names;
    for (const FieldSpec& m : f.members) {
      EXPECT_EQ(m.section, f.path()) << m.path();
      EXPECT_TRUE(member_names.insert(m.name).second) << "twice: " << m.path();
      EXPECT_TRUE(m.members.empty()) << m.path();
      complete(m);
    }
  }
}

// The sections in the order of the shipped file, each section's rows together in that order
// (config/sections/sections.h: a section's file adds them all), so that what lists keys in schema
// order (a reload's changed keys) lists them as the file does.
TEST(Schema, SectionsFollowTheShippedFileAndRowsTheirSections) {
  std::vector<std::string_view> names;
  for (const SectionSpec& s : sections()) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string_view>{
                       "source", "cameras", "motion", "motion_masks", "model", "checks", "detect",
                       "threads", "telemetry", "logging", "http", "mqtt", "gpio", "webhook",
                       "tracking", "zones", "lines", "events", "config"}));
  std::vector<std::string_view> row_sections;
  for (const FieldSpec& f : fields()) {
    if (row_sections.empty() || row_sections.back() != f.section) {
      row_sections.push_back(f.section);
    }
  }
  EXPECT_EQ(row_sections, names);
}

// Every member value a record can hold comes back from the typed Config as it went in: the
// record rows and their bindings to the structs agree.
TEST(Schema, RecordsStoreEveryMemberAndFetchItBack) {
  for (const FieldSpec& f : fields()) {
    if (f.members.empty()) continue;
    Record record;
    for (const FieldSpec& m : f.members) record.values[std::string(m.name)] = m.default_value;
    const auto round_trip = [&](const Record& r) {
      Config c;
      f.store(c, std::vector<Record>{r});
      return f.fetch(c);
    };
    EXPECT_EQ(round_trip(record), Value(std::vector<Record>{record})) << f.path();
    for (const FieldSpec& m : f.members) {
      Record changed = record;
      Value& v = changed.values[std::string(m.name)];
      if (auto* b = std::get_if<bool>(&v)) *b = !*b;
      if (auto* n = std::get_if<std::int64_t>(&v)) *n = *n == m.max ? *n - 1 : *n + 1;
      if (auto* x = std::get_if<double>(&v)) *x = (m.min + m.max) / 3;
      if (auto* list = std::get_if<std::vector<std::int64_t>>(&v)) list->push_back(3);
      if (auto* point = std::get_if<std::vector<double>>(&v)) *point = {0.25, 0.75};
      if (auto* points = std::get_if<std::vector<std::vector<double>>>(&v)) {
        points->push_back({0.5, 0.125});
      }
      if (auto* names = std::get_if<std::vector<std::string>>(&v)) names->push_back("car");
      if (m.type == FieldType::kString) v = std::string("gpiochip9");
      for (std::string_view choice : m.choices) {
        changed.values[std::string(m.name)] = std::string(choice);
        EXPECT_EQ(round_trip(changed), Value(std::vector<Record>{changed})) << m.path();
      }
      EXPECT_NE(changed, record) << m.path();
      EXPECT_EQ(round_trip(changed), Value(std::vector<Record>{changed})) << m.path();
    }
  }
  Config c;
  find_field("gpio.status_led")->store(c, std::vector<Record>{});
  EXPECT_FALSE(c.gpio.status_led);
}

TEST(Schema, EnumsMapEveryChoiceToItsOwnValue) {
  for (const FieldSpec& f : fields()) {
    if (f.type != FieldType::kEnum) continue;
    for (std::string_view choice : f.choices) {
      Config c;
      f.store(c, std::string(choice));
      EXPECT_EQ(std::get<std::string>(f.fetch(c)), choice) << f.path();
    }
  }
}

TEST(Schema, ChecksRangesChoicesAndRules) {
  EXPECT_EQ(check_value(*find_field("detect.conf"), 0.5), "");
  EXPECT_EQ(check_value(*find_field("detect.conf"), -0.1),
            "-0.1 is out of range: use a number from 0 to 1");
  EXPECT_EQ(check_value(*find_field("detect.classes"), std::vector<std::int64_t>{1, -1}),
            "item 1: -1 is out of range: use whole numbers from 0 to 65535");
  EXPECT_EQ(check_value(*find_field("logging.level"), std::string("warn")),
            "'warn' is not allowed: use one of debug, info, warning, error (did you mean "
            "'warning'?)");
  EXPECT_EQ(check_value(*find_field("model.imgsz"), std::int64_t{100}),
            "100 is not a multiple of 32 (the largest YOLO stride): use 96 or 128, 0 for the "
            "model's own size, or auto");
  EXPECT_EQ(check_value(*find_field("model.imgsz"), std::vector<std::int64_t>{384, 640}), "");
  EXPECT_EQ(check_value(*find_field("model.imgsz"), std::string("auto")), "");
  EXPECT_EQ(check_value(*find_field("model.imgsz"), std::string("wide")),
            "'wide' is not a size: use a number such as 640, [height, width] such as [384, 640], "
            "or auto");
  EXPECT_EQ(check_value(*find_field("http.listen"), std::string("")), "");
  EXPECT_NE(check_value(*find_field("http.listen"), std::string("a:b:80")), "");
  EXPECT_NE(check_value(*find_field("mqtt.prefix"), std::string("/cams")), "");
  EXPECT_NE(check_value(*find_field("mqtt.discovery_prefix"), std::string("home/#")), "");
}

// --imgsz's text, as the CLI passes it to the model.imgsz rules.
TEST(Schema, ParsesImageSizesAsTheCommandLineWritesThem) {
  EXPECT_EQ(parse_image_size("auto"), Value(std::string("auto")));
  EXPECT_EQ(parse_image_size("640"), Value(std::int64_t{640}));
  EXPECT_EQ(parse_image_size("384,640"), Value(std::vector<std::int64_t>{384, 640}));
  EXPECT_EQ(parse_image_size("[384, 640]"), Value(std::vector<std::int64_t>{384, 640}));
  EXPECT_EQ(parse_image_size(" 384 , 640 "), Value(std::vector<std::int64_t>{384, 640}));
  EXPECT_EQ(parse_image_size("[640]"), Value(std::vector<std::int64_t>{640}));
  for (const char* bad : {"", "384x640", "big", "384,", ",640", "[384, 640"}) {
    EXPECT_FALSE(parse_image_size(bad)) << bad;
  }
  EXPECT_EQ(to_image_size(Value(std::int64_t{0})), runtime::InputSize{});
  EXPECT_EQ(to_image_size(Value(std::int64_t{320})), runtime::InputSize::fixed(320, 320));
  EXPECT_EQ(to_image_size(Value(std::vector<std::int64_t>{384, 640})),
            runtime::InputSize::fixed(384, 640));
  EXPECT_EQ(to_image_size(Value(std::string("auto"))), runtime::InputSize::automatic());
}

TEST(Schema, FormatsValuesAsYaml) {
  EXPECT_EQ(format_value(true), "true");
  EXPECT_EQ(format_value(std::int64_t{-3}), "-3");
  EXPECT_EQ(format_value(2.0), "2.0");
  EXPECT_EQ(format_value(0.45), "0.45");
  EXPECT_EQ(format_value(std::string("a \"b\" \\c")), "\"a \\\"b\\\" \\\\c\"");
  EXPECT_EQ(format_value(std::vector<std::int64_t>{}), "[]");
  EXPECT_EQ(format_value(std::vector<std::int64_t>{0, 2}), "[0, 2]");
  EXPECT_EQ(format_field(*find_field("model.precision"), std::string("int8")), "int8");
  EXPECT_EQ(format_field(*find_field("model.imgsz"), std::string("auto")), "auto");
  EXPECT_EQ(format_field(*find_field("model.imgsz"), std::vector<std::int64_t>{384, 640}),
            "[384, 640]");
  Config c;
  c.gpio.alerts = {{17, "", {0, 2}, 0.5, 3, 1500, true, ""}};
  EXPECT_EQ(format_field(*find_field("gpio.alerts"), find_field("gpio.alerts")->fetch(c)),
            "[{line: 17, chip: \"\", classes: [0, 2], min_score: 0.5, consecutive_frames: 3, "
            "hold_ms: 1500, active_low: true, zone: \"\"}]");
  EXPECT_EQ(format_field(*find_field("gpio.status_led"), std::vector<Record>{}), "null");
  c.gpio.precision_button = GpioButtonConfig{22, "pinctrl-rp1", true, GpioBias::kAsIs, 30};
  EXPECT_EQ(format_field(*find_field("gpio.precision_button"),
                         find_field("gpio.precision_button")->fetch(c)),
            "{line: 22, chip: \"pinctrl-rp1\", active_low: true, bias: as-is, debounce_ms: 30}");
}

TEST(Schema, DescriptionListsEverySectionAndKey) {
  const std::string text = describe_schema();
  for (const SectionSpec& s : sections()) {
    std::string line(s.name);
    line += ": ";
    line += s.description;
    EXPECT_NE(text.find(line), std::string::npos) << s.name;
  }
  for (const FieldSpec& f : fields()) {
    EXPECT_NE(text.find("  " + f.path() + " (" + f.accepts() + "; default "), std::string::npos)
        << f.path();
  }
  EXPECT_NE(text.find("model.precision (one of file, fp32, int8, auto; default file)"),
            std::string::npos);
  EXPECT_NE(text.find("model.imgsz (0, a size or [height, width] from 0 to 4096, or auto; default "
                      "0)"),
            std::string::npos);
  EXPECT_NE(text.find("gpio.alerts[].line (whole number from 0 to 1023; required)"),
            std::string::npos);
  EXPECT_NE(text.find("gpio.precision_button.bias (one of pull-up, pull-down, disabled, as-is; "
                      "default pull-up)"),
            std::string::npos);
}

TEST(Schema, YamlWithoutCommentsHasOnlyKeys) {
  const std::string text = to_yaml(Config{}, false);
  EXPECT_EQ(text.find('#'), std::string::npos);
  // A line per key, one per section's name (a list section's name is its key), and a blank one
  // between sections.
  const auto lists = static_cast<std::size_t>(std::count_if(
      sections().begin(), sections().end(), [](const SectionSpec& s) { return s.list; }));
  EXPECT_EQ(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')),
            fields().size() + 2 * sections().size() - lists - 1);
}

TEST(ShippedConfig, IsTheRenderedSchema) {
  EXPECT_EQ(read_text(kShippedFile), default_config_yaml())
      << kShippedFile << " differs from the schema in config/schema.cpp: write "
      << "default_config_yaml() into it after changing the schema";
}

TEST(ShippedConfig, ListsEveryKeyUnderADescription) {
  const YAML::Node root = YAML::LoadFile(kShippedFile.string());
  const std::string text = read_text(kShippedFile);
  for (const FieldSpec& f : fields()) {
    if (f.name.empty()) {
      // A list section: the members described in the comments above its key, then an example.
      const std::size_t key = text.find("\n" + std::string(f.section) + ": []\n");
      ASSERT_NE(key, std::string::npos) << f.path();
      EXPECT_TRUE(root[std::string(f.section)].IsSequence()) << f.path();
      for (const FieldSpec& m : f.members) {
        const std::size_t member = text.rfind("#   " + std::string(m.name) + ": ", key);
        EXPECT_NE(member, std::string::npos) << m.path();
      }
      EXPECT_NE(text.find("# For example:\n# " + std::string(f.section) + ":", key),
                std::string::npos)
          << f.path();
      continue;
    }
    EXPECT_TRUE(root[std::string(f.section)][std::string(f.name)].IsDefined()) << f.path();
    // The comment above the key starts with the field's description.
    const std::string first_words(f.description.substr(0, f.description.find(' ', 20)));
    const std::size_t comment = text.find("  # " + first_words);
    const std::size_t key = text.find("\n  " + std::string(f.name) + ": ", comment);
    EXPECT_NE(comment, std::string::npos) << f.path();
    EXPECT_EQ(text.find("\n  " + std::string(f.name) + ": ", comment), key) << f.path();
    // A record's members are each described in that comment.
    for (const FieldSpec& m : f.members) {
      const std::size_t member = text.find("  #   " + std::string(m.name) + ": ", comment);
      EXPECT_LT(member, key) << m.path();
    }
  }
}

TEST(ShippedConfig, LoadsToTheDefaults) {
  EXPECT_EQ(load_config(kShippedFile, {.check_files = false}), Config{});
}

TEST(ShippedConfig, SaysToSetModelPathWhenFilesAreChecked) {
  try {
    load_config(kShippedFile);
    FAIL() << "the shipped file has no model.path, yet it loaded with file checks";
  } catch (const ConfigError& e) {
    const auto& problems = e.problems();
    const auto it = std::find_if(problems.begin(), problems.end(),
                                 [](const ConfigProblem& p) { return p.key == "model.path"; });
    ASSERT_NE(it, problems.end()) << e.what();
    EXPECT_NE(it->message.find("is not set: set it to the ONNX model"), std::string::npos);
  }
}

}  // namespace
}  // namespace yolo::config
