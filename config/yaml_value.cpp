// SPDX-License-Identifier: Apache-2.0
#include "config/yaml_value.h"

#include <charconv>
#include <cmath>
#include <set>

#include "config/loader_messages.h"
#include "config/suggest.h"

namespace yolo::config {

Where where(const YAML::Mark& mark) {
  if (mark.line < 0) return {};
  return {mark.line + 1, mark.column + 1};
}

std::optional<std::int64_t> parse_whole(std::string_view s) {
  if (s.starts_with('+')) s.remove_prefix(1);
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<double> parse_number(std::string_view s) {
  if (s.starts_with('+')) s.remove_prefix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty() || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
}

namespace {

// Converts one node, and the items of a list or record one by one, reporting each problem where
// it was written.
class Reader {
 public:
  explicit Reader(Problems& problems) : problems_(problems) {}

  // `key` names the value in messages: the field's path, or "gpio.alerts[0].line" for a member.
  std::optional<Value> convert(const FieldSpec& field, const std::string& key,
                               const YAML::Node& node, Where at) {
    const bool textual = field.type == FieldType::kString || field.type == FieldType::kPath;
    const bool records = field.type == FieldType::kRecord || field.type == FieldType::kRecordList;
    if (node.IsNull()) {
      if (textual) return Value(std::string());
      if (field.type == FieldType::kIntList) return Value(std::vector<std::int64_t>());
      if (field.type == FieldType::kPointList) return Value(std::vector<std::vector<double>>());
      if (field.type == FieldType::kNameList) return Value(std::vector<std::string>());
      if (records) return Value(std::vector<Record>());
      add(key, at,
          "has no value: set " + expected(field) + " (" + field.accepts() +
              "), or remove the key to keep the default");
      return std::nullopt;
    }
    if (field.type == FieldType::kIntList) return convert_list(field, key, node, at);
    if (field.type == FieldType::kPoint) {
      auto point = convert_point(field, key, node, at);
      if (!point) return std::nullopt;
      return Value(std::move(*point));
    }
    if (field.type == FieldType::kPointList) return convert_points(field, key, node, at);
    if (field.type == FieldType::kNameList) return convert_names(field, key, node, at);
    if (records) return convert_records(field, key, node, at);
    if (field.type == FieldType::kImageSize && node.IsSequence()) {
      return convert_list(field, key, node, at);
    }
    if (!node.IsScalar()) {
      add(key, at, "expected " + expected(field) + ", got " + describe(node));
      return std::nullopt;
    }
    const std::string& s = node.Scalar();
    switch (field.type) {
      case FieldType::kBool: {
        const std::string v = to_lower(s);
        if (v == "true" || v == "yes" || v == "on") return Value(true);
        if (v == "false" || v == "no" || v == "off") return Value(false);
        break;
      }
      case FieldType::kInt:
        if (const auto v = parse_whole(s)) return Value(*v);
        break;
      case FieldType::kFloat:
        if (const auto v = parse_number(s)) return Value(*v);
        break;
      case FieldType::kString:
      case FieldType::kPath:
      case FieldType::kEnum:
        return Value(s);
      case FieldType::kImageSize:
        if (to_lower(s) == "auto") return Value(std::string("auto"));
        if (const auto v = parse_whole(s)) return Value(*v);
        break;
      case FieldType::kIntList:
      case FieldType::kRecord:
      case FieldType::kRecordList:
      case FieldType::kPoint:
      case FieldType::kPointList:
      case FieldType::kNameList:
        break;
    }
    add(key, at, "expected " + expected(field) + ", got " + describe(node));
    return std::nullopt;
  }

  std::optional<Value> convert_list(const FieldSpec& field, const std::string& key,
                                    const YAML::Node& node, Where at) {
    if (!node.IsSequence()) {
      add(key, at, "expected a list such as [0, 2] (or [] for none), got " + describe(node));
      return std::nullopt;
    }
    std::vector<std::int64_t> items;
    bool ok = true;
    for (std::size_t i = 0; i < node.size(); ++i) {
      const YAML::Node item = node[i];
      const std::string item_key = key + "[" + std::to_string(i) + "]";
      const std::optional<std::int64_t> v =
          item.IsScalar() ? parse_whole(item.Scalar()) : std::nullopt;
      if (!v) {
        add(item_key, where(item.Mark()),
            "expected a whole number from " + std::to_string(static_cast<std::int64_t>(field.min)) +
                " to " + std::to_string(static_cast<std::int64_t>(field.max)) + ", got " +
                describe(item));
        ok = false;
        continue;
      }
      if (const std::string problem = check_number(field, static_cast<double>(*v));
          !problem.empty()) {
        add(item_key, where(item.Mark()), problem);
        ok = false;
        continue;
      }
      items.push_back(*v);
    }
    if (!ok) return std::nullopt;
    return Value(std::move(items));
  }

  // [x, y]: two numbers, each checked against the field's range where it was written.
  std::optional<std::vector<double>> convert_point(const FieldSpec& field, const std::string& key,
                                                   const YAML::Node& node, Where at) {
    if (!node.IsSequence() || node.size() != 2) {
      add(key, at, "expected a point [x, y] such as [0.5, 0.6], got " + describe(node));
      return std::nullopt;
    }
    std::vector<double> point;
    for (std::size_t i = 0; i < 2; ++i) {
      const YAML::Node item = node[i];
      const std::optional<double> v = item.IsScalar() ? parse_number(item.Scalar()) : std::nullopt;
      if (!v) {
        add(key, where(item.Mark()),
            std::string("expected a number for ") + (i ? "y" : "x") + ", got " + describe(item));
        return std::nullopt;
      }
      point.push_back(*v);
    }
    FieldSpec one = field;
    one.type = FieldType::kPoint;
    one.rule = nullptr;
    if (const std::string problem = check_value(one, Value(point)); !problem.empty()) {
      add(key, at, problem);
      return std::nullopt;
    }
    return point;
  }

  std::optional<Value> convert_points(const FieldSpec& field, const std::string& key,
                                      const YAML::Node& node, Where at) {
    if (!node.IsSequence()) {
      add(key, at,
          "expected a list of points such as [[0.1, 0.5], [0.4, 0.5], [0.4, 0.9]], got " +
              describe(node));
      return std::nullopt;
    }
    std::vector<std::vector<double>> points;
    bool ok = true;
    for (std::size_t i = 0; i < node.size(); ++i) {
      auto point =
          convert_point(field, key + "[" + std::to_string(i) + "]", node[i], where(node[i].Mark()));
      if (point) {
        points.push_back(std::move(*point));
      } else {
        ok = false;
      }
    }
    if (!ok) return std::nullopt;
    return Value(std::move(points));
  }

  // Each name is placed (key[i]) so that a wrong one, here or against the model's classes
  // (check_class_names), is reported where it is written.
  std::optional<Value> convert_names(const FieldSpec& field, const std::string& key,
                                     const YAML::Node& node, Where at) {
    if (!node.IsSequence()) {
      add(key, at,
          "expected a list of names such as [person, car] (or [] for none), got " + describe(node));
      return std::nullopt;
    }
    std::vector<std::string> names;
    bool ok = true;
    for (std::size_t i = 0; i < node.size(); ++i) {
      const YAML::Node item = node[i];
      const std::string item_key = key + "[" + std::to_string(i) + "]";
      const Where item_at = where(item.Mark());
      problems_.note_value(item_key, item_at);
      if (!item.IsScalar() || item.Scalar().empty()) {
        add(item_key, item_at, "expected a name, got " + describe(item));
        ok = false;
        continue;
      }
      if (const std::string problem =
              check_value(field, Value(std::vector<std::string>{item.Scalar()}));
          !problem.empty()) {
        add(item_key, item_at, problem);
        ok = false;
        continue;
      }
      names.push_back(item.Scalar());
    }
    if (!ok) return std::nullopt;
    return Value(std::move(names));
  }

  // A kRecord's mapping, or a kRecordList's list of mappings; each item is named key[i].
  std::optional<Value> convert_records(const FieldSpec& field, const std::string& key,
                                       const YAML::Node& node, Where at) {
    std::vector<Record> records;
    if (field.type == FieldType::kRecord) {
      if (!node.IsMap()) {
        add(key, at, "expected " + expected(field) + ", got " + describe(node));
        return std::nullopt;
      }
      std::optional<Record> record = convert_record(field, key, node, at);
      if (!record) return std::nullopt;
      records.push_back(std::move(*record));
      return Value(std::move(records));
    }
    if (!node.IsSequence()) {
      add(key, at, "expected " + expected(field) + ", got " + describe(node));
      return std::nullopt;
    }
    bool ok = true;
    for (std::size_t i = 0; i < node.size(); ++i) {
      const YAML::Node item = node[i];
      const std::string item_key = key + "[" + std::to_string(i) + "]";
      const Where item_at = where(item.Mark());
      std::optional<Record> record;
      if (item.IsMap()) {
        record = convert_record(field, item_key, item, item_at);
      } else {
        add(item_key, item_at,
            "expected a mapping such as " + example(field) + ", got " + describe(item));
      }
      if (record) {
        records.push_back(std::move(*record));
      } else {
        ok = false;
      }
    }
    if (!ok) return std::nullopt;
    return Value(std::move(records));
  }

  // One mapping of a record field: every member checked like a field, the ones left out at
  // their defaults; a required one left out is a problem.
  std::optional<Record> convert_record(const FieldSpec& field, const std::string& key,
                                       const YAML::Node& node, Where at) {
    Record record;
    // Members written, valid or not: a wrong one is not also a missing one.
    std::set<std::string> written;
    bool ok = true;
    for (const auto& entry : node) {
      const Where key_at = where(entry.first.Mark());
      if (!entry.first.IsScalar()) {
        add(key, key_at, "a key must be plain text, got " + describe(entry.first));
        ok = false;
        continue;
      }
      const std::string name = entry.first.Scalar();
      const std::string member_key = key + "." + name;
      const FieldSpec* member = find_member(field, name);
      if (!member) {
        add(member_key, key_at, unknown_member(field, key, name));
        ok = false;
        continue;
      }
      if (!written.insert(name).second) {
        add(member_key, key_at, "key written twice: keep one");
        ok = false;
        continue;
      }
      const Where value_at = entry.second.IsNull() ? key_at : where(entry.second.Mark());
      problems_.note_value(member_key, value_at);
      std::optional<Value> value = convert(*member, member_key, entry.second, value_at);
      if (value) {
        if (const std::string problem = check_value(*member, *value); !problem.empty()) {
          add(member_key, value_at, problem);
          value.reset();
        }
      }
      if (!value) {
        ok = false;
        continue;
      }
      record.values.emplace(name, std::move(*value));
    }
    for (const FieldSpec& m : field.members) {
      if (written.contains(std::string(m.name))) continue;
      if (m.required) {
        add(key, at,
            "has no " + std::string(m.name) + ": set it (" + m.accepts() + "), e.g. " +
                example(field));
        ok = false;
        continue;
      }
      record.values.emplace(m.name, m.default_value);
    }
    if (!ok) return std::nullopt;
    return record;
  }

 private:
  void add(const std::string& key, Where at, std::string message) {
    problems_.add(key, at, std::move(message));
  }

  Problems& problems_;
};

}  // namespace

std::optional<Value> read_value(const FieldSpec& field, const std::string& key,
                                const YAML::Node& node, Where at, Problems& problems) {
  return Reader(problems).convert(field, key, node, at);
}

}  // namespace yolo::config
