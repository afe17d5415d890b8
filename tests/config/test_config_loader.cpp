// SPDX-License-Identifier: Apache-2.0
#include "config/config_loader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "config/schema.h"
#include "config/yaml_writer.h"
#include "tests/support/temp_folder.h"
#include "vision/capture.h"

#include "tests/config/mutation.h"

namespace yolo::config {
namespace {

namespace fs = std::filesystem;
using test::TempFolder;

const LoadOptions kSchemaOnly{.check_files = false};

// The options the daemon and `yolo-edge config --check` load with: file checks and the capture
// code's own source rules.
LoadOptions with_sources(std::vector<ConfigProblem>* warnings = nullptr) {
  LoadOptions options;
  options.check_source = [](const std::string& uri, const fs::path& base) {
    vision::SourceCheck c = vision::check_source(uri, base);
    return SourceCheck{std::move(c.uri), std::move(c.error), std::move(c.warning)};
  };
  options.warnings = warnings;
  return options;
}

ConfigError error_of(std::string_view text, const LoadOptions& options = kSchemaOnly) {
  try {
    parse_config(text, "test.yaml", options);
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "no ConfigError for:\n" << text;
  return ConfigError("", "", 0, 0, "no error");
}

ConfigError load_error(const fs::path& file, const LoadOptions& options = {}) {
  try {
    load_config(file, options);
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "no ConfigError for " << file;
  return ConfigError("", "", 0, 0, "no error");
}

// The error holds a problem for `key` at line:column whose message says `words`, and what()
// shows it as "FILE:LINE:COL: KEY: ..." (without LINE:COL when the line is 0).
void expect_problem(const ConfigError& e, std::string_view key, int line, int column,
                    std::string_view words) {
  for (const ConfigProblem& p : e.problems()) {
    if (p.key != key) continue;
    EXPECT_EQ(p.line, line) << e.what();
    EXPECT_EQ(p.column, column) << e.what();
    EXPECT_NE(p.message.find(words), std::string::npos) << e.what();
    std::string where = e.file();
    if (line > 0) where += ":" + std::to_string(line) + ":" + std::to_string(column);
    where += ": ";
    if (!key.empty()) where += std::string(key) + ": ";
    EXPECT_NE(std::string(e.what()).find(where + p.message), std::string::npos) << e.what();
    return;
  }
  ADD_FAILURE() << "no problem for key '" << key << "' in:\n" << e.what();
}

TEST(ConfigLoader, UnknownKeySuggestsTheClosestKey) {
  const ConfigError e = error_of("detect:\n  conff: 0.3\n");
  expect_problem(e, "detect.conff", 2, 3, "did you mean 'conf'?");
  EXPECT_NE(std::string(e.what()).find("the keys of detect are conf, iou"), std::string::npos);
}

TEST(ConfigLoader, UnknownSectionSuggestsTheClosestSection) {
  expect_problem(error_of("modle:\n  path: m.onnx\n"), "modle", 1, 1, "did you mean 'model'?");
  expect_problem(error_of("source: {}\ntelemetri: {}\n"), "telemetri", 2, 1,
                 "did you mean 'telemetry'?");
}

TEST(ConfigLoader, KeyInTheWrongSectionNamesItsSection) {
  expect_problem(error_of("detect:\n  imgsz: 640\n"), "detect.imgsz", 2, 3,
                 "did you mean model.imgsz?");
  expect_problem(error_of("uri: /dev/video0\n"), "uri", 1, 1, "did you mean source.uri?");
}

TEST(ConfigLoader, WrongTypesSayWhatWasExpectedAndWhatWasFound) {
  expect_problem(error_of("detect:\n  conf: abc\n"), "detect.conf", 2, 9,
                 "expected a number, got 'abc'");
  expect_problem(error_of("model:\n  imgsz: 640.5\n"), "model.imgsz", 2, 10,
                 "expected a size such as 640, [height, width] such as [384, 640], or auto, got "
                 "'640.5'");
  expect_problem(error_of("source:\n  loop: maybe\n"), "source.loop", 2, 9,
                 "expected true or false, got 'maybe'");
  expect_problem(error_of("source:\n  uri: [a, b]\n"), "source.uri", 2, 8,
                 "expected text, got a list");
  expect_problem(error_of("detect:\n  classes: 0\n"), "detect.classes", 2, 12,
                 "expected a list such as [0, 2]");
  expect_problem(error_of("detect:\n  classes: [0, person]\n"), "detect.classes[1]", 2, 16,
                 "got 'person'");
}

TEST(ConfigLoader, LongValuesAreShortenedInMessages) {
  const std::string value(200, 'x');
  expect_problem(error_of("detect:\n  conf: " + value + "\n"), "detect.conf", 2, 9,
                 "got '" + value.substr(0, 57) + "...'");
}

TEST(ConfigLoader, EmptyValueOfANumberPointsAtItsKey) {
  expect_problem(error_of("detect:\n  conf:\n  iou: 0.5\n"), "detect.conf", 2, 3,
                 "has no value: set a number (number from 0 to 1)");
}

TEST(ConfigLoader, EmptyValuesOfTextAndListsAreEmpty) {
  const Config c = parse_config("model:\n  labels:\ndetect:\n  classes:\n", "t.yaml", kSchemaOnly);
  EXPECT_TRUE(c.model.labels.empty());
  EXPECT_TRUE(c.detect.classes.empty());
}

TEST(ConfigLoader, OutOfRangeValuesSayTheRange) {
  expect_problem(error_of("detect:\n  conf: 1.5\n"), "detect.conf", 2, 9,
                 "1.5 is out of range: use a number from 0 to 1");
  expect_problem(error_of("source:\n  width: 9000\n"), "source.width", 2, 10,
                 "use a whole number from 0 to 7680");
  expect_problem(error_of("detect:\n  classes: [0, 70000]\n"), "detect.classes[1]", 2, 16,
                 "70000 is out of range: use whole numbers from 0 to 65535");
  expect_problem(error_of("logging:\n  max_bytes: 99999999999999999999\n"), "logging.max_bytes", 2,
                 14, "expected a whole number");
}

TEST(ConfigLoader, BadEnumListsTheAllowedValues) {
  expect_problem(error_of("model:\n  precision: fp16\n"), "model.precision", 2, 14,
                 "'fp16' is not allowed: use one of file, fp32, int8, auto");
  expect_problem(error_of("threads:\n  mode: Adaptive\n"), "threads.mode", 2, 9,
                 "(did you mean 'adaptive'?)");
}

TEST(ConfigLoader, RulesBeyondTheRange) {
  expect_problem(error_of("model:\n  imgsz: 650\n"), "model.imgsz", 2, 10, "multiple of 32");
  expect_problem(error_of("http:\n  listen: 8080\n"), "http.listen", 2, 11, "is not HOST:PORT");
  expect_problem(error_of("http:\n  listen: \"0.0.0.0:99999\"\n"), "http.listen", 2, 11,
                 "port in '0.0.0.0:99999' must be a number from 0 to 65535");
  expect_problem(error_of("mqtt:\n  prefix: cams/#\n"), "mqtt.prefix", 2, 11, "MQTT wildcard");
  expect_problem(error_of("source:\n  uri: \"\"\n"), "source.uri", 2, 8, "is empty");
}

TEST(ConfigLoader, AcceptedSpellings) {
  const Config c = parse_config(
      "source: {loop: yes, realtime: off}\nconfig:\n  watch: On\nmodel:\n  imgsz: "
      "+320\n",
      "t.yaml", kSchemaOnly);
  EXPECT_TRUE(c.source.loop);
  EXPECT_FALSE(c.source.realtime);
  EXPECT_TRUE(c.file.watch);
  EXPECT_EQ(c.model.imgsz, runtime::InputSize::fixed(320, 320));
}

TEST(ConfigLoader, ImgszTakesASquareHeightAndWidthOrAuto) {
  const auto imgsz = [](const std::string& value) {
    return parse_config("model:\n  imgsz: " + value + "\n", "t.yaml", kSchemaOnly).model.imgsz;
  };
  EXPECT_EQ(imgsz("0"), runtime::InputSize{});
  EXPECT_EQ(imgsz("640"), runtime::InputSize::fixed(640, 640));
  EXPECT_EQ(imgsz("[384, 640]"), runtime::InputSize::fixed(384, 640));
  EXPECT_EQ(imgsz("auto"), runtime::InputSize::automatic());
  expect_problem(error_of("model:\n  imgsz: [400, 640]\n"), "model.imgsz", 2, 10,
                 "400 is not a multiple of 32 (the largest YOLO stride): use 384 or 416");
  expect_problem(error_of("model:\n  imgsz: [640]\n"), "model.imgsz", 2, 10,
                 "a list needs two sizes, [height, width] such as [384, 640]; got 1");
  expect_problem(error_of("model:\n  imgsz: [0, 640]\n"), "model.imgsz", 2, 10,
                 "0 alone (not in a list) is the model's own");
  expect_problem(error_of("model:\n  imgsz: [384, 9000]\n"), "model.imgsz[1]", 2, 16,
                 "9000 is out of range");
  expect_problem(error_of("model:\n  imgsz: wide\n"), "model.imgsz", 2, 10, "got 'wide'");
  // Written back as read.
  for (const char* value : {"0", "640", "[384, 640]", "auto"}) {
    Config c;
    c.model.imgsz = imgsz(value);
    EXPECT_NE(to_yaml(c, false).find(std::string("imgsz: ") + value + "\n"), std::string::npos)
        << value;
  }
}

TEST(ConfigLoader, PrecisionComesFromTheFileByDefault) {
  EXPECT_EQ(parse_config("model: {}\n", "t.yaml", kSchemaOnly).model.precision, Precision::kFile);
  // int8 and auto need no int8_path when model.path is static INT8 itself.
  TempFolder dir;
  for (const char* name : {"q.onnx", "fp32.onnx"}) std::ofstream(dir.path() / name) << "model";
  LoadOptions options = kSchemaOnly;
  options.static_int8 = [](const fs::path& p) { return p.filename() == "q.onnx"; };
  const std::string int8 =
      "model:\n  path: " + (dir.path() / "q.onnx").string() + "\n  precision: int8\n";
  EXPECT_EQ(parse_config(int8, "t.yaml", options).model.precision, Precision::kInt8);
  expect_problem(
      error_of("model:\n  path: " + (dir.path() / "fp32.onnx").string() + "\n  precision: auto\n",
               options),
      "model.precision", 3, 14, "auto needs model.int8_path");
}

TEST(ConfigLoader, SectionThatIsNotAMappingShowsTheLayout) {
  expect_problem(error_of("model: yolov8n.onnx\n"), "model", 1, 8,
                 "expected keys under model (such as model.path, on the next line, indented), "
                 "got 'yolov8n.onnx'");
}

TEST(ConfigLoader, EmptySectionKeepsDefaults) {
  EXPECT_EQ(parse_config("detect:\nconfig: {}\n", "t.yaml", kSchemaOnly), Config{});
}

TEST(ConfigLoader, DuplicatesAreReported) {
  expect_problem(error_of("detect:\n  conf: 0.3\n  conf: 0.4\n"), "detect.conf", 3, 3,
                 "key written twice (first at line 2)");
  expect_problem(error_of("detect: {}\nmodel: {}\ndetect: {}\n"), "detect", 3, 1,
                 "section written twice (first at line 1)");
}

TEST(ConfigLoader, EveryProblemIsReportedOncePerLineInFileOrder) {
  const ConfigError e =
      error_of("detect:\n  conf: 2\n  ioo: 0.5\nmodel:\n  precision: fp16\nthreds: {}\n");
  ASSERT_EQ(e.problems().size(), 4u) << e.what();
  EXPECT_EQ(e.problems()[0].key, "detect.conf");
  EXPECT_EQ(e.problems()[1].key, "detect.ioo");
  EXPECT_EQ(e.problems()[2].key, "model.precision");
  EXPECT_EQ(e.problems()[3].key, "threds");
  const std::string what = e.what();
  EXPECT_EQ(std::count(what.begin(), what.end(), '\n'), 3) << what;
  EXPECT_EQ(e.key(), "detect.conf");
  EXPECT_EQ(e.line(), 2);
  EXPECT_EQ(e.column(), 9);
}

TEST(ConfigLoader, FileProblemsJoinTheSchemaProblemsInFileOrder) {
  const ConfigError e =
      error_of("source: {uri: no-such-clip.mp4}\ndetect: {conf: 7}\n", with_sources());
  ASSERT_EQ(e.problems().size(), 3u) << e.what();
  expect_problem(e, "source.uri", 1, 15, "no such file or folder");
  expect_problem(e, "detect.conf", 2, 16, "7 is out of range");
  expect_problem(e, "model.path", 0, 0, "is not set");
  EXPECT_EQ(e.problems()[0].key, "source.uri");
  EXPECT_EQ(e.problems()[1].key, "detect.conf");
  EXPECT_EQ(e.problems()[2].key, "model.path");
}

TEST(ConfigLoader, Int8WithoutAModelOrQuantizeIsRejected) {
  expect_problem(error_of("model:\n  precision: int8\n"), "model.precision", 2, 14,
                 "int8 needs model.int8_path");
  const Config c =
      parse_config("model:\n  precision: int8\n  quantize: auto\n", "t.yaml", kSchemaOnly);
  EXPECT_EQ(c.model.precision, Precision::kInt8);
  EXPECT_EQ(c.model.quantize, Quantize::kAuto);
}

TEST(ConfigLoader, AutoNeedsAnInt8ModelToCompareLikeInt8) {
  expect_problem(error_of("model:\n  precision: auto\n"), "model.precision", 2, 14,
                 "auto needs model.int8_path");
  const Config c =
      parse_config("model:\n  precision: auto\n  quantize: auto\n", "t.yaml", kSchemaOnly);
  EXPECT_EQ(c.model.precision, Precision::kAuto);
  EXPECT_DOUBLE_EQ(c.model.auto_min_map50, 0.95);
  expect_problem(error_of("model:\n  auto_min_map50: 1.5\n"), "model.auto_min_map50", 2, 19,
                 "1.5 is out of range");
}

TEST(ConfigLoader, EnabledMqttNeedsItsBrokerAndAPasswordItsUser) {
  expect_problem(error_of("mqtt:\n  enabled: true\n  host: \"\"\n"), "mqtt.host", 3, 9,
                 "is empty while mqtt.enabled is true");
  expect_problem(error_of("mqtt:\n  password: pw\n"), "mqtt.username", 0, 0,
                 "is empty while mqtt.password is set");
}

TEST(ConfigLoader, HttpLoginAndTlsSettingsAreCheckedWithTheirPlace) {
  expect_problem(error_of("http:\n  password: short\n"), "http.password", 2, 13, "use at least 8");
  expect_problem(error_of("http:\n  metrics_allow: \"127.0.0.1, 300.1.1.1\"\n"),
                 "http.metrics_allow", 2, 18, "'300.1.1.1' is not an address or network");
  expect_problem(error_of("http:\n  metrics_allow: 10.0.0.0/33\n"), "http.metrics_allow", 2, 18,
                 "'10.0.0.0/33'");
  expect_problem(error_of("http:\n  auth: open\n"), "http.auth", 2, 9, "password, none");
  // A certificate needs its key, and the key its certificate.
  expect_problem(error_of("http:\n  tls: true\n  tls_cert: c.pem\n"), "http.tls_key", 3, 13,
                 "go together");
  // Given files must exist.
  const TempFolder folder;
  const fs::path file =
      folder.write("c.yaml",
                   "model:\n  path: m.onnx\nhttp:\n  tls: true\n  tls_cert: c.pem\n"
                   "  tls_key: k.pem\n");
  folder.write("m.onnx", "x");
  folder.write("c.pem", "x");
  const ConfigError e = load_error(file, with_sources());
  expect_problem(e, "http.tls_key", 6, 12, "no such file");
  // Both forms of the allow list parse.
  EXPECT_EQ(
      parse_config("http:\n  metrics_allow: \"\"\n", "t.yaml", kSchemaOnly).http.metrics_allow, "");
  EXPECT_EQ(parse_config("http:\n  metrics_allow: ::1, fd00::/8\n", "t.yaml", kSchemaOnly)
                .http.metrics_allow,
            "::1, fd00::/8");
}

TEST(ConfigLoader, OverridesReplaceTheFileAndAreCheckedLikeIt) {
  const std::vector<Override> api = {{"model.precision", "int8", "through the HTTP API"}};
  LoadOptions options = kSchemaOnly;
  options.overrides = api;
  const Config c = parse_config("model:\n  precision: fp32\n  quantize: auto\n", "t.yaml", options);
  EXPECT_EQ(c.model.precision, Precision::kInt8);
  // The file alone is fine; with the override it is not, and the message says why.
  const ConfigError e = error_of("model:\n  precision: fp32\n", options);
  expect_problem(e, "model.precision", 2, 14, "int8 needs model.int8_path");
  EXPECT_NE(std::string(e.what()).find("model.precision was set to 'int8' through the HTTP API"),
            std::string::npos)
      << e.what();
  options.overrides = {{"model.precision", "fp16", "through the HTTP API"}};
  expect_problem(error_of("model: {}\n", options), "model.precision", 0, 0,
                 "'fp16' is not allowed: use one of file, fp32, int8, auto");
  options.overrides = {{"model.speed", "1", "by a test"}};
  expect_problem(error_of("model: {}\n", options), "model.speed", 0, 0, "is not a setting");
}

TEST(ConfigLoader, GpioRecordsAreCheckedKeyByKeyWithTheirPlace) {
  const Config c = parse_config(
      "gpio:\n  alerts:\n    - {line: 17, classes: [0], hold_ms: 3000}\n    - line: 18\n"
      "      chip: pinctrl-rp1\n  status_led: {line: 27}\n  precision_button:\n    line: 22\n"
      "    bias: as-is\n",
      "t.yaml", kSchemaOnly);
  ASSERT_EQ(c.gpio.alerts.size(), 2u);
  EXPECT_EQ(c.gpio.alerts[0], (GpioAlertConfig{17, "", {0}, 0.5, 1, 3000, false, ""}));
  EXPECT_EQ(c.gpio.alerts[1].chip, "pinctrl-rp1");
  EXPECT_EQ(c.gpio.status_led, (GpioLedConfig{27, "", false}));
  EXPECT_EQ(c.gpio.precision_button, (GpioButtonConfig{22, "", true, GpioBias::kAsIs, 50}));

  expect_problem(error_of("gpio:\n  alerts:\n    - {classes: [0]}\n"), "gpio.alerts[0]", 3, 7,
                 "has no line: set it (whole number from 0 to 1023), e.g. {line: 17}");
  expect_problem(error_of("gpio:\n  alerts: [{line: 17, min_scor: 0.3}]\n"),
                 "gpio.alerts[0].min_scor", 2, 23, "did you mean 'min_score'?");
  expect_problem(error_of("gpio:\n  alerts: [{line: 17, classes: [0, x]}]\n"),
                 "gpio.alerts[0].classes[1]", 2, 36, "expected a whole number");
  const ConfigError out_of_range = error_of("gpio:\n  alerts: [{line: 1024}]\n");
  // One problem: a line written wrong is not also a line missing.
  EXPECT_EQ(out_of_range.problems().size(), 1u) << out_of_range.what();
  expect_problem(out_of_range, "gpio.alerts[0].line", 2, 19,
                 "1024 is out of range: use a whole number from 0 to 1023");
  expect_problem(error_of("gpio:\n  alerts: [5]\n"), "gpio.alerts[0]", 2, 12,
                 "expected a mapping such as {line: 17}, got '5'");
  expect_problem(error_of("gpio:\n  alerts: {line: 17}\n"), "gpio.alerts", 2, 11,
                 "expected a list of mappings such as [{line: 17}] (or [] for none)");
  expect_problem(error_of("gpio:\n  status_led: 27\n"), "gpio.status_led", 2, 15,
                 "expected a mapping such as {line: 17} (or null for none), got '27'");
  expect_problem(error_of("gpio:\n  precision_button: {line: 22, bias: pull-dwn}\n"),
                 "gpio.precision_button.bias", 2, 38, "(did you mean 'pull-down'?)");
  expect_problem(error_of("gpio:\n  precision_button: {line: 22, line: 23}\n"),
                 "gpio.precision_button.line", 2, 32, "key written twice");
  expect_problem(error_of("gpio:\n  chip: \"\"\n"), "gpio.chip", 2, 9, "is empty");
  // Null and empty leave them out.
  const Config none = parse_config("gpio:\n  alerts:\n  status_led: null\n  precision_button: ~\n",
                                   "t.yaml", kSchemaOnly);
  EXPECT_EQ(none.gpio, Config{}.gpio);
}

TEST(ConfigLoader, AGpioLineDrivesOneThing) {
  const ConfigError e = error_of(
      "gpio:\n  alerts: [{line: 17}, {line: 17, chip: gpiochip1}, {line: 17, chip: gpiochip0}]\n"
      "  precision_button: {line: 17, chip: gpiochip1}\n");
  ASSERT_EQ(e.problems().size(), 2u) << e.what();
  expect_problem(e, "gpio.alerts[2].line", 2, 60,
                 "line 17 of gpiochip0 is already used by gpio.alerts[0]");
  expect_problem(e, "gpio.precision_button.line", 3, 28,
                 "line 17 of gpiochip1 is already used by gpio.alerts[1]");
}

TEST(ConfigLoader, OldSingleLineGpioKeysSayWhatToWriteInstead) {
  const ConfigError e = error_of(
      "gpio:\n  enabled: true\n  chip: gpiochip0\n  line: 18\n  active_low: true\n"
      "  hold_s: 2.5\n");
  ASSERT_EQ(e.problems().size(), 1u) << e.what();
  expect_problem(e, "gpio.enabled", 2, 3,
                 "gpio.enabled, gpio.line, gpio.active_low, gpio.hold_s are no longer read");
  expect_problem(e, "gpio.enabled", 2, 3,
                 "write instead under gpio: alerts: [{line: 18, classes: [], hold_ms: 2500, "
                 "active_low: true}]");
  // What it says to write loads.
  const Config c =
      parse_config("gpio:\n  alerts: [{line: 18, classes: [], hold_ms: 2500, active_low: true}]\n",
                   "t.yaml", kSchemaOnly);
  EXPECT_EQ(c.gpio.alerts.at(0), (GpioAlertConfig{18, "", {}, 0.5, 1, 2500, true, ""}));
  expect_problem(error_of("gpio:\n  enabled: false\n  line: 18\n"), "gpio.enabled", 2, 3,
                 "remove them");
  expect_problem(error_of("gpio:\n  hold_s: 1\n"), "gpio.hold_s", 2, 3,
                 "alerts: [{line: 17, classes: [], hold_ms: 1000}]");
}

TEST(ConfigLoader, NonYamlTextGivesTheSyntaxErrorPlace) {
  const ConfigError e = error_of("model:\n  path: m.onnx\n    bad indent: 2\n");
  EXPECT_EQ(e.problems().size(), 1u);
  expect_problem(e, "", 3, 15, "not valid YAML");
  expect_problem(error_of("detect:\n  classes: [0, 2\n"), "", 3, 1, "not valid YAML");
}

// yaml-cpp 0.7 alone would make empty documents from it until memory ran out.
TEST(ConfigLoader, ACommaWhereADocumentStartsIsASyntaxError) {
  expect_problem(error_of("# settings\n\n  ,tracking:\n  lost_s: 2\n"), "", 3, 3,
                 "not valid YAML: a ',' outside any [list] or {mapping}");
  expect_problem(error_of("detect:\n  conf: 0.3\n---\n, b\n"), "", 4, 1, "a ',' outside any");
}

TEST(ConfigLoader, TabIndentationIsExplained) {
  expect_problem(error_of("detect:\n\tconf: 0.3\n"), "", 2, 6, "indented with a tab");
}

TEST(ConfigLoader, YamlThatIsNotAMappingIsRejected) {
  expect_problem(error_of("- model\n- detect\n"), "", 1, 1, "is YAML but not a mapping");
  expect_problem(error_of("just some words\n"), "", 1, 1, "got 'just some words'");
}

TEST(ConfigLoader, SeveralDocumentsAreRejected) {
  expect_problem(error_of("detect: {}\n---\nmodel: {}\n"), "", 3, 1, "holds 2 YAML documents");
}

TEST(ConfigLoader, EmptyFileIsRejected) {
  const TempFolder folder;
  expect_problem(load_error(folder.write("empty.yaml", "")), "", 0, 0, "the file is empty");
  expect_problem(load_error(folder.write("comments.yaml", "# nothing here\n\n")), "", 0, 0,
                 "set at least model.path");
}

TEST(ConfigLoader, BinaryFileIsRejected) {
  const TempFolder folder;
  const std::string png("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
  expect_problem(load_error(folder.write("photo.png", png)), "", 0, 0, "binary file, not YAML");
}

TEST(ConfigLoader, FolderIsRejected) {
  const TempFolder folder;
  const ConfigError e = load_error(folder.path());
  expect_problem(e, "", 0, 0, "is a folder, not a config file");
  EXPECT_EQ(e.file(), folder.path().string());
  EXPECT_NE(std::string(e.what()).find((folder.path() / "yolo-edge.yaml").string()),
            std::string::npos);
}

TEST(ConfigLoader, MissingConfigFileIsRejected) {
  const TempFolder folder;
  expect_problem(load_error(folder.path() / "nope.yaml"), "", 0, 0, "no such file");
}

TEST(ConfigLoader, OversizedFileIsRejected) {
  const TempFolder folder;
  const fs::path big = folder.write("big.yaml", std::string(2 << 20, '#'));
  expect_problem(load_error(big), "", 0, 0, "far too large for a config");
}

TEST(ConfigLoader, ModelPathMustBeSetWhenFilesAreChecked) {
  const TempFolder folder;
  const fs::path file = folder.write("c.yaml", "source:\n  uri: videotestsrc ! appsink\n");
  expect_problem(load_error(file), "model.path", 0, 0, "is not set");
  EXPECT_NO_THROW(load_config(file, kSchemaOnly));
}

TEST(ConfigLoader, MissingModelFileNamesTheResolvedPath) {
  const TempFolder folder;
  const fs::path file = folder.write(
      "c.yaml", "source:\n  uri: rtsp://cam/stream\nmodel:\n  path: models/missing.onnx\n");
  const ConfigError e = load_error(file);
  ASSERT_EQ(e.problems().size(), 1u) << e.what();
  expect_problem(e, "model.path", 4, 9,
                 "no such file '" + (folder.path() / "models/missing.onnx").string() + "'");
  expect_problem(e, "model.path", 4, 9, "relative paths start from the config file's folder");
}

TEST(ConfigLoader, ModelPathThatIsAFolderIsRejected) {
  const TempFolder folder;
  fs::create_directories(folder.path() / "models");
  const fs::path file =
      folder.write("c.yaml", "source: {uri: rtsp://cam/s}\nmodel:\n  path: models\n");
  expect_problem(load_error(file), "model.path", 3, 9, "is a folder: point to the ONNX model");
}

TEST(ConfigLoader, MissingInt8ModelAndLabelsAreRejected) {
  const TempFolder folder;
  folder.write("m.onnx", "x");
  const fs::path file = folder.write("c.yaml",
                                     "source: {uri: rtsp://cam/s}\n"
                                     "model:\n"
                                     "  path: m.onnx\n"
                                     "  int8_path: m.int8.onnx\n"
                                     "  labels: coco.txt\n");
  const ConfigError e = load_error(file);
  ASSERT_EQ(e.problems().size(), 2u) << e.what();
  expect_problem(e, "model.int8_path", 4, 14, "no such file");
  expect_problem(e, "model.labels", 5, 11, "no such file");
}

TEST(ConfigLoader, QuantizeAutoNeedsOnlyTheFolderOfTheInt8Model) {
  const TempFolder folder;
  folder.write("m.onnx", "x");
  const std::string head =
      "source: {uri: rtsp://cam/s}\nmodel:\n  path: m.onnx\n  quantize: auto\n";
  EXPECT_NO_THROW(load_config(folder.write("ok.yaml", head + "  int8_path: m.int8.onnx\n")));
  expect_problem(load_error(folder.write("bad.yaml", head + "  int8_path: out/m.int8.onnx\n")),
                 "model.int8_path", 5, 14, "cannot be written there");
}

TEST(ConfigLoader, MissingCaptureDeviceIsAWarningNotAnError) {
  // A USB camera may appear after the service starts: the daemon opens it when it does.
  const TempFolder folder;
  folder.write("m.onnx", "x");
  for (const char* uri : {"/dev/video97", "97"}) {
    std::vector<ConfigProblem> warnings;
    const Config c = load_config(folder.write("a.yaml", std::string("source: {uri: \"") + uri +
                                                            "\"}\nmodel: {path: m.onnx}\n"),
                                 with_sources(&warnings));
    ASSERT_EQ(warnings.size(), 1u) << uri;
    EXPECT_EQ(warnings[0].key, "source.uri");
    EXPECT_EQ(warnings[0].line, 1);
    EXPECT_NE(warnings[0].message.find("no such camera device /dev/video97 now"),
              std::string::npos);
    EXPECT_EQ(c.source.uri, uri);
  }
}

TEST(ConfigLoader, MissingVideoFileIsRejectedButStreamsAreNotChecked) {
  const TempFolder folder;
  folder.write("m.onnx", "x");
  expect_problem(
      load_error(folder.write("a.yaml", "source: {uri: clip.mp4}\nmodel: {path: m.onnx}\n"),
                 with_sources()),
      "source.uri", 1, 15,
      "no such file or folder '" + (folder.path() / "clip.mp4").string() + "'");
  for (const char* uri : {"rtsp://192.168.1.20:554/stream1", "https://example.com/cam.mjpg",
                          "libcamerasrc ! video/x-raw,width=640 ! videoconvert ! appsink"}) {
    const fs::path file = folder.write(
        "ok.yaml", std::string("source:\n  uri: \"") + uri + "\"\nmodel: {path: m.onnx}\n");
    EXPECT_EQ(load_config(file, with_sources()).source.uri, uri);
  }
}

TEST(ConfigLoader, SourcesAreCheckedByTheRuleTheCaptureOpensWith) {
  // file:// URLs used to pass the check and then fail to open: now both use vision::check_source.
  const TempFolder folder;
  folder.write("m.onnx", "x");
  const fs::path video = folder.write("clips/v.mp4", "x");
  const Config c = load_config(folder.write("a.yaml", "source: {uri: \"file://" + video.string() +
                                                          "\"}\nmodel: {path: m.onnx}\n"),
                               with_sources());
  EXPECT_EQ(c.source.uri, video.string());
  EXPECT_EQ(
      load_config(folder.write("b.yaml", "source: {uri: clips/v.mp4}\nmodel: {path: m.onnx}\n"),
                  with_sources())
          .source.uri,
      video.string());
  expect_problem(
      load_error(
          folder.write("c.yaml", "source: {uri: \"ftp://cam/v.mp4\"}\nmodel: {path: m.onnx}\n"),
          with_sources()),
      "source.uri", 1, 15, "'ftp://' is not a source this daemon reads");
  // Without the capture rules (a tool that only shows a config) the uri stays as written.
  EXPECT_EQ(load_config(folder.path() / "b.yaml").source.uri, "clips/v.mp4");
}

TEST(ConfigLoader, MissingSysfsRootIsRejected) {
  const TempFolder folder;
  folder.write("m.onnx", "x");
  const ConfigError e = load_error(folder.write("c.yaml",
                                                "source: {uri: rtsp://cam/s}\n"
                                                "model: {path: m.onnx}\n"
                                                "telemetry: {sysfs_root: fake-sys}\n"));
  ASSERT_EQ(e.problems().size(), 1u) << e.what();
  expect_problem(e, "telemetry.sysfs_root", 3, 25, "no such folder");
}

TEST(ConfigLoader, LoggingDirMayNotExistYetButMustBeAFolder) {
  const TempFolder folder;
  folder.write("m.onnx", "x");
  folder.write("taken", "a file");
  const std::string head = "source: {uri: rtsp://cam/s}\nmodel: {path: m.onnx}\n";
  EXPECT_NO_THROW(load_config(folder.write("ok.yaml", head + "logging: {dir: logs}\n")));
  expect_problem(load_error(folder.write("bad.yaml", head + "logging: {dir: taken}\n")),
                 "logging.dir", 3, 16, "exists but is not a folder");
}

TEST(ConfigLoader, FileChecksCanBeTurnedOff) {
  const Config c =
      parse_config("source: {uri: /dev/video97}\nmodel: {path: nowhere.onnx, labels: none.txt}\n",
                   "t.yaml", kSchemaOnly);
  EXPECT_EQ(c.source.uri, "/dev/video97");
}

TEST(ConfigLoader, RelativePathsResolveAgainstTheConfigFolder) {
  const TempFolder folder;
  folder.write("models/m.onnx", "x");
  folder.write("models/m.int8.onnx", "x");
  folder.write("labels.txt", "person\n");
  folder.write("clips/v.mp4", "x");
  fs::create_directories(folder.path() / "sys");
  const fs::path file = folder.write("etc/yolo/c.yaml",
                                     "source: {uri: ../../clips/v.mp4}\n"
                                     "model:\n"
                                     "  path: ../../models/m.onnx\n"
                                     "  int8_path: " +
                                         (folder.path() / "models/m.int8.onnx").string() +
                                         "\n"
                                         "  labels: ../../labels.txt\n"
                                         "telemetry: {sysfs_root: ../../sys}\n"
                                         "logging: {dir: logs}\n");
  const Config c = load_config(file, with_sources());
  EXPECT_EQ(c.source.uri, (folder.path() / "clips/v.mp4").string());
  EXPECT_EQ(c.model.path, folder.path() / "models/m.onnx");
  EXPECT_EQ(c.model.int8_path, folder.path() / "models/m.int8.onnx");
  EXPECT_EQ(c.model.labels, folder.path() / "labels.txt");
  EXPECT_EQ(c.telemetry.sysfs_root, folder.path() / "sys");
  EXPECT_EQ(c.logging.dir, folder.path() / "etc/yolo/logs");
}

TEST(ConfigLoader, RelativeConfigPathStillGivesAbsolutePaths) {
  const TempFolder folder;
  folder.write("m.onnx", "x");
  folder.write("c.yaml", "source: {uri: rtsp://cam/s}\nmodel: {path: m.onnx}\n");
  const fs::path before = fs::current_path();
  fs::current_path(folder.path());
  const Config c = load_config("c.yaml");
  fs::current_path(before);
  EXPECT_EQ(c.model.path, folder.path() / "m.onnx");
}

// Every path setting (a path row, whichever section has it) resolves against the config's folder;
// these are the ones config_loader.h names.
TEST(ConfigLoader, EveryPathSettingResolvesAgainstTheConfigFolder) {
  std::string text;
  std::vector<std::string> keys;
  for (const SectionSpec& s : sections()) {
    std::string rows;
    for (const FieldSpec& f : fields()) {
      if (f.section != s.name || f.type != FieldType::kPath) continue;
      rows += "  " + std::string(f.name) + ": rel/" + std::string(f.name) + "\n";
      keys.push_back(f.path());
    }
    if (!rows.empty()) text += std::string(s.name) + ":\n" + rows;
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"model.path", "model.int8_path", "model.labels",
                                            "telemetry.sysfs_root", "logging.dir", "http.tls_cert",
                                            "http.tls_key", "mqtt.ca_file"}));
  const Config c = parse_config(text, "/etc/yolo/c.yaml", kSchemaOnly);
  for (const std::string& key : keys) {
    const FieldSpec& f = *find_field(key);
    EXPECT_EQ(std::get<std::string>(f.fetch(c)), "/etc/yolo/rel/" + std::string(f.name)) << key;
  }
}

TEST(ConfigLoader, FullFileRoundTrip) {
  const TempFolder folder;
  folder.write("m.onnx", "x");
  folder.write("m.int8.onnx", "x");
  folder.write("names.txt", "a\n");
  folder.write("v.mp4", "x");
  folder.write("ca.pem", "x");
  folder.write("cert.pem", "x");
  folder.write("key.pem", "x");
  fs::create_directories(folder.path() / "sys");
  const fs::path file = folder.write("full.yaml", R"(
source:
  uri: v.mp4
  loop: true
  realtime: false
  width: 1280
  height: 720
  fps: 15
  reconnect_s: 0.5
model:
  path: m.onnx
  int8_path: m.int8.onnx
  precision: int8
  quantize: auto
  calibration_frames: 32
  imgsz: 320
  labels: names.txt
  decoder: end2end
  auto_min_map50: 0.9
detect:
  conf: 0.4
  iou: 0.6
  classes: [0, 2, 7]
  max_detections: 50
  agnostic_nms: true
threads:
  mode: efficiency
  count: 3
  max: 4
  margin: 0.2
telemetry:
  interval_s: 0.5
  sysfs_root: sys
logging:
  dir: logs
  interval_s: 30
  max_bytes: 1048576
  max_files: 3
  level: debug
http:
  listen: 0.0.0.0:9090
  auth: password
  password: a-long-password
  token: s3cret
  metrics_allow: 10.0.0.0/8, fd00::/8
  tls: true
  tls_cert: cert.pem
  tls_key: key.pem
  max_fps: 2.5
  jpeg_quality: 60
  max_viewers: 8
  max_clients: 300
  max_clients_per_address: 12
mqtt:
  enabled: true
  host: broker.lan
  port: 8883
  prefix: home/cams
  username: cam
  password: pw
  ca_file: ca.pem
  stats_interval_s: 30
  debounce_s: 5
  homeassistant: true
  discovery_prefix: ha
gpio:
  chip: pinctrl-rp1
  alerts:
    - line: 17
      classes: [0, 2]
      min_score: 0.6
      consecutive_frames: 3
      hold_ms: 500
      active_low: true
    - {line: 5, chip: gpiochip1}
  status_led: {line: 27, active_low: true}
  precision_button: {line: 22, chip: /dev/gpiochip0, active_low: false, bias: pull-down,
                     debounce_ms: 20}
config:
  watch: true
)");
  const Config c = load_config(file, with_sources());
  const fs::path dir = folder.path();
  EXPECT_EQ(c.source, (SourceConfig{(dir / "v.mp4").string(), true, false, 1280, 720, 15, 0.5}));
  EXPECT_EQ(c.model, (ModelConfig{dir / "m.onnx", dir / "m.int8.onnx", Precision::kInt8,
                                  Quantize::kAuto, 32, runtime::InputSize::fixed(320, 320),
                                  dir / "names.txt", Decoder::kEnd2end, 0.9}));
  EXPECT_EQ(c.detect, (DetectConfig{0.4, 0.6, {0, 2, 7}, 50, true}));
  EXPECT_EQ(c.threads, (ThreadsConfig{ThreadMode::kEfficiency, 3, 4, 0.2}));
  EXPECT_EQ(c.telemetry, (TelemetryConfig{0.5, dir / "sys"}));
  EXPECT_EQ(c.logging, (LoggingConfig{dir / "logs", 30, 1048576, 3, LogLevel::kDebug}));
  EXPECT_EQ(c.http, (HttpConfig{"0.0.0.0:9090", HttpAuth::kPassword, "a-long-password", "s3cret",
                                "10.0.0.0/8, fd00::/8", true, dir / "cert.pem", dir / "key.pem",
                                2.5, 60, 8, 300, 12}));
  EXPECT_EQ(c.mqtt, (MqttConfig{true, "broker.lan", 8883, "home/cams", "cam", "pw", dir / "ca.pem",
                                30, 5, true, "ha"}));
  EXPECT_EQ(c.gpio,
            (GpioConfig{"pinctrl-rp1",
                        {{17, "", {0, 2}, 0.6, 3, 500, true, ""},
                         {5, "gpiochip1", {}, 0.5, 1, 2000, false, ""}},
                        GpioLedConfig{27, "", true},
                        GpioButtonConfig{22, "/dev/gpiochip0", false, GpioBias::kPullDown, 20}}));
  EXPECT_EQ(c.file, (FileConfig{true}));

  // Written back out, with or without comments, it reads in as the same Config.
  EXPECT_EQ(parse_config(to_yaml(c, false), (dir / "again.yaml").string()), c);
  EXPECT_EQ(parse_config(to_yaml(c, true), (dir / "again.yaml").string()), c);
}

TEST(ConfigLoader, MutatedFilesGiveConfigErrorsNeverOtherFailures) {
  const std::string shipped = to_yaml(Config{}, true);
  std::mt19937 random(20261121);
  int rejected = 0;
  for (int round = 0; round < 1000; ++round) {
    const std::string text = test::mutated(shipped, random);
    try {
      parse_config(text, "mutated.yaml", {.check_files = round % 2 == 0});
    } catch (const ConfigError& e) {
      ++rejected;
      EXPECT_FALSE(e.problems().empty());
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a ConfigError: " << e.what() << "\nfor:\n" << text;
      return;
    }
  }
  // Half the rounds check files and the shipped file has no model.path: most are rejected.
  EXPECT_GT(rejected, 500);
}

}  // namespace
}  // namespace yolo::config
