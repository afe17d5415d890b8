// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "config/config.h"

namespace yolo::config {

// The schema: every setting the daemon reads, in one table of rows, each section's written in
// its own file (config/sections/NAME.cpp) and listed once in config/schema.cpp. Defaults
// (Config::Config), validation (config_loader.cpp), the documentation (describe_schema) and the
// shipped default file (default_config_yaml, config/yolo-edge.yaml; both in config/yaml_writer.h)
// all come from it.

// kRecord is one optional mapping of keys of its own (gpio.status_led), kRecordList a list of them
// (gpio.alerts); FieldSpec::members describes those keys. kImageSize is model.imgsz: a number (0
// or a square), [height, width], or auto. kPoint is [x, y] (a line's end), kPointList a list of
// them (a zone's corners), each number within min and max; kNameList is a list of names, each one
// of `choices` when there are any (events.snapshots), free otherwise (class names).
enum class FieldType {
  kBool,
  kInt,
  kFloat,
  kString,
  kPath,
  kEnum,
  kIntList,
  kRecord,
  kRecordList,
  kImageSize,
  kPoint,
  kPointList,
  kNameList
};

struct Record;

// A setting's value before it is stored into the typed Config. Enums are held by name, paths as
// the text written in the file; kRecord and kRecordList values are lists of records (none or one
// for kRecord); kImageSize values are a number, a list of two (height, width) or "auto".
using Value = std::variant<bool, std::int64_t, double, std::string, std::vector<std::int64_t>,
                           std::vector<Record>, std::vector<double>,
                           std::vector<std::vector<double>>, std::vector<std::string>>;

// One mapping of a kRecord or kRecordList field: each member's value by its name.
struct Record {
  std::map<std::string, Value, std::less<>> values;

  bool operator==(const Record&) const = default;
};

struct SectionSpec {
  std::string_view name;
  std::string_view description;
  // The section's body is a list of mappings (zones, lines), not keys: it has one kRecordList
  // field with an empty name, whose members are the keys of each mapping.
  bool list = false;
  // For a list section: one mapping, as YAML, that the shipped file shows commented out.
  std::string_view example{};
};

struct FieldSpec {
  // A section's rows leave it out: schema.cpp sets it from the section's spec, and a record's
  // members' to the record's path ("gpio.alerts"; "zones" for a list section's).
  std::string section{};
  std::string_view name;
  FieldType type;
  Value default_value;
  // Inclusive range of kInt and kFloat values and of kIntList items.
  double min = 0;
  double max = 0;
  // Allowed names of a kEnum, in the order of the C++ enum.
  std::vector<std::string_view> choices{};
  std::string_view description{};
  // A rule beyond type and range; returns what is wrong and what to do, or "" when the value is
  // fine.
  std::string (*rule)(const Value&) = nullptr;
  std::function<void(Config&, const Value&)> store{};
  std::function<Value(const Config&)> fetch{};
  // The keys of each mapping of a kRecord or kRecordList field, described like fields (their
  // section is this field's path; store and fetch stay empty: the record field stores them all).
  std::vector<FieldSpec> members{};
  // A member that must be written: it has no sensible default (a line number).
  bool required = false;

  // "section.name"; "section" for a list section's field.
  std::string path() const;
  // What the field accepts, e.g. "number from 0 to 1" or "one of fp32, int8".
  std::string accepts() const;
};

const std::vector<SectionSpec>& sections();
const std::vector<FieldSpec>& fields();
// The field with this "section.name", or nullptr.
const FieldSpec* find_field(std::string_view path);
// The member of a kRecord or kRecordList field with this name, or nullptr.
const FieldSpec* find_member(const FieldSpec& field, std::string_view name);

// Checks a value of the field's type against its range, choices and rule: "" when valid, else
// what is wrong and what to do.
std::string check_value(const FieldSpec& field, const Value& value);

// Checks one number (a kInt or kFloat value, or one kIntList item) against the field's range: ""
// when inside, else the number and the range to use.
std::string check_number(const FieldSpec& field, double value);

// model.imgsz as a command-line option writes it (--imgsz): "auto", "640", "384,640" or
// "[384, 640]", as the field's value (unchecked: check_value says what is wrong); nullopt when
// the text is none of these forms.
std::optional<Value> parse_image_size(std::string_view text);
// A checked kImageSize value as the typed setting.
runtime::InputSize to_image_size(const Value& value);

// The value as YAML text: strings and paths double-quoted, lists in flow style.
std::string format_value(const Value& value);

// The value as the field is written in YAML: like format_value, but enum names unquoted and
// records in flow style with their members in table order ("null" for a kRecord left out).
std::string format_field(const FieldSpec& field, const Value& value);

}  // namespace yolo::config
