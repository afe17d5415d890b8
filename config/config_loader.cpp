// SPDX-License-Identifier: Apache-2.0
#include "config/config_loader.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>
#include <vector>

#include "config/loader_messages.h"
#include "config/schema.h"
#include "config/suggest.h"
#include "text/format.h"

namespace yolo::config {

namespace fs = std::filesystem;

namespace {

// A config is a few kilobytes; anything this large is the wrong file.
constexpr std::uintmax_t kMaxFileBytes = 1 << 20;

struct Where {
  int line = 0;
  int column = 0;
};

// yaml-cpp marks are 0-based, and -1 when the node has no position.
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

// Validates one parsed document into a Config, collecting every problem instead of stopping at
// the first, so that a user fixes them all in one go.
class Validator {
 public:
  Validator(std::string name, fs::path base, LoadOptions options)
      : name_(std::move(name)), base_(std::move(base)), options_(options) {}

  Config run(const YAML::Node& root) {
    Config config;
    read_root(root, config);
    report_old_gpio_keys();
    apply_overrides(config);
    check_combinations(config);
    resolve_paths(config);
    if (options_.check_files) check_files(config);
    check_class_names(config);
    if (!problems_.empty()) {
      // In file order, like a compiler; problems without a place (defaults) last.
      std::stable_sort(problems_.begin(), problems_.end(), [](const auto& a, const auto& b) {
        return std::make_tuple(a.line == 0, a.line, a.column) <
               std::make_tuple(b.line == 0, b.line, b.column);
      });
      throw ConfigError(name_, std::move(problems_));
    }
    if (options_.warnings) {
      for (ConfigProblem& w : warnings_) options_.warnings->push_back(std::move(w));
    }
    return config;
  }

 private:
  void add(const std::string& key, Where at, std::string message) {
    for (const Override& o : options_.overrides) {
      if (o.key == key) message += " (" + key + " was set to '" + o.value + "' " + o.origin + ")";
    }
    problems_.push_back({key, at.line, at.column, std::move(message)});
    failed_.insert(key);
  }

  // Values set from elsewhere replace what the file says, checked the same way.
  void apply_overrides(Config& config) {
    for (const Override& o : options_.overrides) {
      const FieldSpec* field = find_field(o.key);
      if (!field) {
        add(o.key, {}, "is not a setting");
        continue;
      }
      failed_.erase(o.key);
      std::optional<Value> value = convert(*field, o.key, YAML::Node(o.value), {});
      if (!value) continue;
      if (const std::string problem = check_value(*field, *value); !problem.empty()) {
        add(o.key, {}, problem);
        continue;
      }
      field->store(config, *value);
    }
  }

  // Where a key's value was written in the file; nothing when it was left at its default.
  Where written_at(const std::string& key) const {
    const auto it = values_.find(key);
    return it == values_.end() ? Where{} : it->second;
  }

  bool usable(const std::string& key) const { return !failed_.contains(key); }

  void read_root(const YAML::Node& root, Config& config) {
    std::map<std::string, Where> seen;
    for (const auto& entry : root) {
      const YAML::Node& key = entry.first;
      const Where at = where(key.Mark());
      if (!key.IsScalar()) {
        add("", at, "a section name must be plain text, got " + describe(key));
        continue;
      }
      const std::string name = key.Scalar();
      if (const auto first = seen.find(name); first != seen.end()) {
        add(name, at,
            "section written twice (first at line " + std::to_string(first->second.line) +
                "): merge the two into one");
        continue;
      }
      seen.emplace(name, at);
      const auto& all = sections();
      const auto spec = std::find_if(all.begin(), all.end(),
                                     [&](const SectionSpec& s) { return s.name == name; });
      if (spec == all.end()) {
        add(name, at, unknown_section(name));
        continue;
      }
      if (spec->list) {
        read_list_section(*spec, entry.second, at, config);
        continue;
      }
      read_section(name, entry.second, at, config);
    }
  }

  // A section whose body is a list of mappings (zones, lines): its one field.
  void read_list_section(const SectionSpec& section, const YAML::Node& body, Where key_at,
                         Config& config) {
    const FieldSpec* field = find_field(section.name);
    if (!field) throw std::logic_error("list section without its field");
    if (body.IsMap()) {
      add(field->path(), where(body.Mark()),
          "expected a list, one item per " +
              std::string(section.name).substr(0, section.name.size() - 1) +
              " starting with '- ', such as\n    " + std::string(section.name) + ":\n      " +
              std::string(section.example));
      return;
    }
    read_field(*field, body, key_at, config);
  }

  void read_section(const std::string& section, const YAML::Node& body, Where key_at,
                    Config& config) {
    if (body.IsNull()) return;
    if (!body.IsMap()) {
      add(section, body.Mark().line < 0 ? key_at : where(body.Mark()),
          "expected keys under " + section + " (such as " + section + "." +
              std::string(field_names(section).front()) + ", on the next line, indented), got " +
              describe(body));
      return;
    }
    for (const auto& entry : body) {
      const YAML::Node& key = entry.first;
      const Where at = where(key.Mark());
      if (!key.IsScalar()) {
        add(section, at, "a key must be plain text, got " + describe(key));
        continue;
      }
      const std::string path = section + "." + key.Scalar();
      if (written_.contains(path)) {
        add(path, at,
            "key written twice (first at line " + std::to_string(written_.at(path).line) +
                "): keep one");
        continue;
      }
      written_.emplace(path, at);
      const FieldSpec* field = find_field(path);
      if (!field && section == "gpio" && is_old_gpio_key(key.Scalar())) {
        old_gpio_keys_.push_back({key.Scalar(), at, entry.second});
        continue;
      }
      if (!field) {
        add(path, at, unknown_key(section, key.Scalar()));
        continue;
      }
      read_field(*field, entry.second, at, config);
    }
  }

  void read_field(const FieldSpec& field, const YAML::Node& node, Where key_at, Config& config) {
    const std::string key = field.path();
    // An empty value ("key:") has no position of its own: point at its key.
    const Where at = node.IsNull() ? key_at : where(node.Mark());
    values_.emplace(key, at);
    std::optional<Value> value = convert(field, key, node, at);
    if (!value) return;
    if (const std::string problem = check_value(field, *value); !problem.empty()) {
      add(key, at, problem);
      return;
    }
    field.store(config, *value);
  }

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
      values_.emplace(item_key, item_at);
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
      values_.emplace(member_key, value_at);
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

  // The single output line of earlier versions (gpio.enabled, line, active_low, hold_s; they
  // never drove a line) is one rule of gpio.alerts now: one problem says what to write instead,
  // built from the values written.
  static bool is_old_gpio_key(const std::string& name) {
    return name == "enabled" || name == "line" || name == "active_low" || name == "hold_s";
  }

  void report_old_gpio_keys() {
    if (old_gpio_keys_.empty()) return;
    std::map<std::string, std::string> written;
    std::string names;
    for (const OldKey& k : old_gpio_keys_) {
      written[k.name] = k.value.IsScalar() ? k.value.Scalar() : "";
      names += (names.empty() ? "gpio." : ", gpio.") + k.name;
    }
    const auto enabled = written.find("enabled");
    std::string message =
        names + (old_gpio_keys_.size() == 1 ? " is" : " are") +
        " no longer read: the one output line they described is now a rule of gpio.alerts; ";
    if (enabled != written.end() && to_lower(enabled->second) != "true" &&
        to_lower(enabled->second) != "yes" && to_lower(enabled->second) != "on") {
      message += "remove them (gpio.alerts: [] drives no line)";
    } else {
      std::string rule = "{line: " + (written.contains("line") ? written["line"] : "17");
      rule += ", classes: []";
      if (const auto hold = written.find("hold_s"); hold != written.end()) {
        const std::optional<double> s = parse_number(hold->second);
        rule += ", hold_ms: " + (s ? std::to_string(std::llround(*s * 1000)) : hold->second);
      }
      if (written.contains("active_low")) rule += ", active_low: " + written["active_low"];
      rule += "}";
      message += "write instead under gpio: alerts: [" + rule +
                 "] (classes: [] means any class; docs/gpio.md shows the other keys)";
    }
    const OldKey& first = old_gpio_keys_.front();
    add("gpio." + first.name, first.at, message);
  }

  // Settings that are each valid but do not work together.
  void check_combinations(const Config& c) {
    check_gpio_lines(c.gpio);
    check_tracking(c);
    check_places(c);
    check_alert_zones(c);
    if (c.mqtt.enabled && c.mqtt.host.empty() && usable("mqtt.host")) {
      add("mqtt.host", written_at("mqtt.host"),
          "is empty while mqtt.enabled is true: set the broker's host name or address");
    }
    if (!c.mqtt.password.empty() && c.mqtt.username.empty() && usable("mqtt.username")) {
      add("mqtt.username", written_at("mqtt.username"),
          "is empty while mqtt.password is set: the broker takes a password only with a user "
          "name");
    }
    if (c.http.tls_cert.empty() != c.http.tls_key.empty()) {
      const std::string key = c.http.tls_cert.empty() ? "http.tls_cert" : "http.tls_key";
      if (usable(key)) {
        add(key, written_at(c.http.tls_cert.empty() ? "http.tls_key" : "http.tls_cert"),
            "http.tls_cert and http.tls_key go together: set both (PEM files), or neither and a "
            "self-signed certificate is made");
      }
    }
    const bool wants_int8 =
        c.model.precision == Precision::kInt8 || c.model.precision == Precision::kAuto;
    if (wants_int8 && c.model.quantize == Quantize::kOff && c.model.int8_path.empty() &&
        usable("model.int8_path") && !static_int8_model(c)) {
      const std::string precision = precision_name(c.model.precision);
      add("model.precision", written_at("model.precision"),
          precision +
              " needs model.int8_path: set it to a static INT8 model, or set model.quantize: "
              "auto to make one from model.path");
    }
  }

  void check_tracking(const Config& c) {
    const TrackingConfig& t = c.tracking;
    if (t.low_score > t.high_score && usable("tracking.low_score")) {
      add("tracking.low_score", written_at("tracking.low_score"),
          "is above tracking.high_score (" + text::fixed(t.high_score, 2) +
              "): the second pass takes boxes from low_score up to high_score, so set it lower");
    }
    if (t.new_score < t.low_score && usable("tracking.new_score")) {
      add("tracking.new_score", written_at("tracking.new_score"),
          "is below tracking.low_score (" + text::fixed(t.low_score, 2) +
              "): boxes under low_score are never tracked, so a track cannot start there");
    }
    const EventsConfig& e = c.events;
    if (!e.clips.empty() && e.clip_before_s + e.clip_after_s <= 0 && usable("events.clips")) {
      add("events.clips", written_at("events.clips"),
          "asks for clips while events.clip_before_s and events.clip_after_s are both 0: give "
          "them seconds, or set events.clips: []");
    }
  }

  // Zones and lines: names unique per camera, lines with a length and an in side that is a side.
  void check_places(const Config& c) {
    if (!c.tracking.enabled && (!c.zones.empty() || !c.lines.empty())) {
      const Where at = written_at("tracking.enabled");
      warnings_.push_back({"tracking.enabled", at.line, at.column,
                           "is false: the zones and lines count nothing and raise no events "
                           "until it is true"});
    }
    std::map<std::pair<std::string, std::string>, std::string> names;
    const auto claim = [&](const std::string& camera, const std::string& name,
                           const std::string& key) {
      const auto [it, fresh] = names.emplace(std::make_pair(camera, name), key);
      if (fresh || !usable(key + ".name")) return;
      add(key + ".name", written_at(key + ".name"),
          "'" + name + "' is already the name of " + it->second + " on camera " + camera +
              ": zones and lines of a camera need names of their own");
    };
    for (std::size_t i = 0; i < c.zones.size(); ++i) {
      claim(c.zones[i].camera, c.zones[i].name, "zones[" + std::to_string(i) + "]");
    }
    for (std::size_t i = 0; i < c.lines.size(); ++i) {
      const LineConfig& l = c.lines[i];
      const std::string key = "lines[" + std::to_string(i) + "]";
      claim(l.camera, l.name, key);
      const double dx = l.to.x - l.from.x;
      const double dy = l.to.y - l.from.y;
      if (std::hypot(dx, dy) < 0.01) {
        if (usable(key + ".to")) {
          add(key + ".to", written_at(key + ".to"),
              "is (almost) where from is: a line needs a length, its ends at least 0.01 of the "
              "frame apart");
        }
        continue;
      }
      const bool vertical = std::abs(dx) < 1e-9;
      const bool horizontal = std::abs(dy) < 1e-9;
      const bool up_down = l.in == tracking::Side::kAbove || l.in == tracking::Side::kBelow;
      if ((up_down && vertical) || (!up_down && horizontal)) {
        if (usable(key + ".in")) {
          add(key + ".in", written_at(key + ".in"),
              std::string("is ") + std::string(tracking::side_name(l.in)) + " on a " +
                  (vertical ? "vertical" : "horizontal") + " line, which has no such side: use " +
                  (vertical ? "left or right" : "above or below"));
        }
      }
    }
  }

  // Class names of zones and lines are the model's (LoadOptions::class_names), or the labels
  // file's when model.labels is set; checked only when the caller gives the hook (a tool that
  // only shows a config does not).
  void check_class_names(const Config& c) {
    std::vector<std::pair<std::string, const std::vector<std::string>*>> lists;
    for (std::size_t i = 0; i < c.zones.size(); ++i) {
      lists.emplace_back("zones[" + std::to_string(i) + "].classes", &c.zones[i].classes);
    }
    for (std::size_t i = 0; i < c.lines.size(); ++i) {
      lists.emplace_back("lines[" + std::to_string(i) + "].classes", &c.lines[i].classes);
    }
    const bool any =
        std::any_of(lists.begin(), lists.end(), [](const auto& l) { return !l.second->empty(); });
    if (!any) return;
    std::optional<std::vector<std::string>> known;
    std::string from;
    if (!options_.class_names) return;
    if (!c.model.labels.empty()) {
      std::ifstream in(c.model.labels);
      std::vector<std::string> names;
      // As vision::ClassNames::from_labels_file reads it: one name per line, trimmed.
      for (std::string line; std::getline(in, line);) {
        const auto first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos) continue;
        names.push_back(line.substr(first, line.find_last_not_of(" \t\r") - first + 1));
      }
      if (in.eof() && !names.empty()) known = std::move(names);
      from = "the labels file " + c.model.labels.string();
    } else {
      known = options_.class_names(c.model.path);
      from = c.model.path.empty() ? "the model" : "the model " + c.model.path.string();
    }
    // Names unknown (no model yet, or one without names): the model's own check says so.
    if (!known) return;
    std::vector<std::string_view> choices(known->begin(), known->end());
    for (const auto& [key, classes] : lists) {
      if (!usable(key)) continue;
      for (std::size_t i = 0; i < classes->size(); ++i) {
        const std::string& name = (*classes)[i];
        if (std::find(known->begin(), known->end(), name) != known->end()) continue;
        std::string message = "'" + name + "' is not a class of " + from;
        if (const std::string near = closest_name(name, choices); !near.empty()) {
          message += ": did you mean '" + near + "'?";
        } else {
          message += ": its classes are " + join_names(choices);
        }
        const std::string item = key + "[" + std::to_string(i) + "]";
        add(item, written_at(item), message);
      }
    }
  }

  // model.path names a static INT8 file itself (then model.int8_path is not needed).
  bool static_int8_model(const Config& c) const {
    if (!options_.static_int8 || c.model.path.empty()) return false;
    const fs::path path = resolve(c.model.path);
    std::error_code ec;
    return fs::is_regular_file(path, ec) && options_.static_int8(path);
  }

  // Each line drives or reads one thing. Chips are compared as written: two spellings of one
  // chip are caught when the daemon requests the line (the second request finds it busy).
  // An alert by zone names one of the zones (of the daemon's one camera). Not checked while a
  // zone has a problem of its own: it may be the one named.
  void check_alert_zones(const Config& c) {
    const bool zones_read = std::none_of(failed_.begin(), failed_.end(), [](const std::string& k) {
      return k.starts_with("zones");
    });
    if (!zones_read) return;
    std::vector<std::string_view> names;
    for (const ZoneConfig& z : c.zones) {
      if (z.camera == kMainCamera) names.push_back(z.name);
    }
    for (std::size_t i = 0; i < c.gpio.alerts.size(); ++i) {
      const std::string& zone = c.gpio.alerts[i].zone;
      const std::string key = "gpio.alerts[" + std::to_string(i) + "].zone";
      if (zone.empty() || std::find(names.begin(), names.end(), zone) != names.end()) continue;
      if (!usable(key)) continue;
      std::string message = "'" + zone + "' is not a zone";
      if (names.empty()) {
        message += ": there are none; add it under zones: (see config/yolo-edge.yaml)";
      } else if (const std::string near = closest_name(zone, names); !near.empty()) {
        message += ": did you mean '" + near + "'?";
      } else {
        message += ": the zones are " + join_names(names);
      }
      add(key, written_at(key), message);
    }
  }

  void check_gpio_lines(const GpioConfig& g) {
    std::map<std::pair<std::string, int>, std::string> users;
    const auto claim = [&](const std::string& chip, int line, const std::string& key) {
      const std::string& on = chip.empty() ? g.chip : chip;
      const auto [it, fresh] = users.emplace(std::make_pair(on, line), key);
      if (fresh || !usable(key + ".line")) return;
      add(key + ".line", written_at(key + ".line"),
          "line " + std::to_string(line) + " of " + on + " is already used by " + it->second +
              ": give each alert, the LED and the button a line of its own");
    };
    for (std::size_t i = 0; i < g.alerts.size(); ++i) {
      claim(g.alerts[i].chip, g.alerts[i].line, "gpio.alerts[" + std::to_string(i) + "]");
    }
    if (g.status_led) claim(g.status_led->chip, g.status_led->line, "gpio.status_led");
    if (g.precision_button) {
      claim(g.precision_button->chip, g.precision_button->line, "gpio.precision_button");
    }
  }

  fs::path resolve(const fs::path& p) const {
    if (p.empty() || p.is_absolute()) return p;
    return (base_ / p).lexically_normal();
  }

  void resolve_paths(Config& c) const {
    for (fs::path* p : {&c.model.path, &c.model.int8_path, &c.model.labels, &c.telemetry.sysfs_root,
                        &c.logging.dir, &c.mqtt.ca_file, &c.http.tls_cert, &c.http.tls_key}) {
      *p = resolve(*p);
    }
  }

  // "(relative paths start from the config file's folder, DIR)" when the user wrote it relative.
  std::string relative_hint(const std::string& key) const {
    const auto it = written_.find(key);
    if (it == written_.end()) return "";
    return " (relative paths start from the config file's folder, " + base_.string() + ")";
  }

  void require_file(const std::string& key, const fs::path& p, const std::string& what) {
    std::error_code ec;
    const fs::file_status status = fs::status(p, ec);
    if (fs::is_regular_file(status)) return;
    if (fs::is_directory(status)) {
      add(key, written_at(key), "'" + p.string() + "' is a folder: point to " + what + " in it");
    } else {
      add(key, written_at(key),
          "no such file '" + p.string() + "': set the path of " + what + relative_hint(key));
    }
  }

  void check_files(Config& c) {
    if (usable("model.path")) {
      if (c.model.path.empty()) {
        add("model.path", written_at("model.path"),
            "is not set: set it to the ONNX model to run, e.g. /opt/models/yolov8n.onnx");
      } else {
        require_file("model.path", c.model.path, "the ONNX model");
      }
    }
    if (!c.model.int8_path.empty() && usable("model.int8_path")) {
      if (c.model.quantize == Quantize::kOff) {
        require_file("model.int8_path", c.model.int8_path, "the INT8 ONNX model");
      } else if (!fs::exists(c.model.int8_path) &&
                 !fs::is_directory(c.model.int8_path.parent_path())) {
        add("model.int8_path", written_at("model.int8_path"),
            "folder '" + c.model.int8_path.parent_path().string() +
                "' does not exist, so the quantized model cannot be written there: create it "
                "or choose another path");
      }
    }
    if (c.mqtt.enabled && !c.mqtt.ca_file.empty() && usable("mqtt.ca_file")) {
      require_file("mqtt.ca_file", c.mqtt.ca_file, "the broker's CA certificate (PEM)");
    }
    if (c.http.tls && !c.http.tls_cert.empty() && !c.http.tls_key.empty()) {
      if (usable("http.tls_cert")) {
        require_file("http.tls_cert", c.http.tls_cert, "the server certificate (PEM)");
      }
      if (usable("http.tls_key")) {
        require_file("http.tls_key", c.http.tls_key, "the certificate's private key (PEM)");
      }
    }
    if (!c.model.labels.empty() && usable("model.labels")) {
      require_file("model.labels", c.model.labels, "the labels file (one class name per line)");
    }
    if (usable("source.uri")) check_source(c);
    if (usable("telemetry.sysfs_root") && !fs::is_directory(c.telemetry.sysfs_root)) {
      add("telemetry.sysfs_root", written_at("telemetry.sysfs_root"),
          "no such folder '" + c.telemetry.sysfs_root.string() +
              "': use /sys, or a folder laid out like it");
    }
    if (usable("logging.dir") && fs::exists(c.logging.dir) && !fs::is_directory(c.logging.dir)) {
      add("logging.dir", written_at("logging.dir"),
          "'" + c.logging.dir.string() + "' exists but is not a folder: choose a folder path");
    }
  }

  // The capture code decides what a source is (LoadOptions::check_source); a relative file or
  // folder it names resolves against the config's folder like every other path.
  void check_source(Config& c) {
    if (!options_.check_source) return;
    const std::string key = "source.uri";
    SourceCheck check = options_.check_source(c.source.uri, base_);
    if (!check.error.empty()) add(key, written_at(key), check.error);
    if (!check.warning.empty()) {
      const Where at = written_at(key);
      warnings_.push_back({key, at.line, at.column, check.warning});
    }
    c.source.uri = std::move(check.uri);
  }

  // A key of the old single-line gpio section, kept until the section is read.
  struct OldKey {
    std::string name;
    Where at;
    YAML::Node value;
  };

  std::string name_;
  fs::path base_;
  LoadOptions options_;
  std::vector<OldKey> old_gpio_keys_;
  std::vector<ConfigProblem> problems_;
  std::vector<ConfigProblem> warnings_;
  // Keys with a problem: later checks of the same key would only repeat it.
  std::set<std::string> failed_;
  // Where each key and each known key's value were written.
  std::map<std::string, Where> written_;
  std::map<std::string, Where> values_;
};

// yaml-cpp 0.7 never gets past a ',' where a document starts: LoadAll makes empty documents
// until memory runs out. The parser's events show it first (a second document starting where the
// last one did); throws the syntax error there.
void refuse_stuck_documents(const std::string& text) {
  struct Starts : YAML::EventHandler {
    std::optional<YAML::Mark> last;
    bool stuck = false;
    void OnDocumentStart(const YAML::Mark& mark) override {
      stuck = last && last->pos == mark.pos;
      last = mark;
    }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
  };
  std::istringstream in(text);
  YAML::Parser parser(in);
  Starts starts;
  while (!starts.stuck && parser.HandleNextDocument(starts)) {
  }
  if (starts.stuck) {
    throw YAML::ParserException(*starts.last, "a ',' outside any [list] or {mapping}");
  }
}

}  // namespace

Config parse_config(std::string_view text, std::string name, const LoadOptions& options) {
  if (text.find('\0') != std::string_view::npos) {
    throw ConfigError(name, "", 0, 0,
                      "is a binary file, not YAML text: give the path of the YAML config "
                      "(e.g. config/yolo-edge.yaml)");
  }
  std::vector<YAML::Node> documents;
  try {
    refuse_stuck_documents(std::string(text));
    documents = YAML::LoadAll(std::string(text));
  } catch (const YAML::Exception& e) {
    const Where at = where(e.mark);
    throw ConfigError(name, "", at.line, at.column,
                      "not valid YAML: " + e.msg + tab_hint(text, at.line) +
                          "; fix the syntax there (config/yolo-edge.yaml shows the layout)");
  }
  if (documents.empty() || documents.front().IsNull()) {
    throw ConfigError(name, "", 0, 0,
                      "the file is empty (or only comments): set at least model.path; "
                      "config/yolo-edge.yaml lists every key with its default");
  }
  if (documents.size() > 1) {
    const Where at = where(documents[1].Mark());
    throw ConfigError(name, "", at.line, at.column,
                      "holds " + std::to_string(documents.size()) +
                          " YAML documents (separated by ---): a config is one, remove the others");
  }
  const YAML::Node& root = documents.front();
  if (!root.IsMap()) {
    const Where at = where(root.Mark());
    throw ConfigError(name, "", at.line, at.column,
                      "is YAML but not a mapping of sections: got " + describe(root) +
                          "; a config looks like 'model:' with 'path: yolov8n.onnx' indented "
                          "under it (see config/yolo-edge.yaml)");
  }
  fs::path folder = fs::path(name).parent_path();
  fs::path base = folder.empty() ? fs::current_path() : fs::absolute(folder);
  return Validator(std::move(name), base.lexically_normal(), options).run(root);
}

Config load_config(const fs::path& file, const LoadOptions& options) {
  const std::string name = file.string();
  std::error_code ec;
  const fs::file_status status = fs::status(file, ec);
  if (!fs::exists(status)) {
    throw ConfigError(name, "", 0, 0,
                      "no such file: check the path; config/yolo-edge.yaml is a documented start");
  }
  if (fs::is_directory(status)) {
    throw ConfigError(name, "", 0, 0,
                      "is a folder, not a config file: give the path of the YAML file in it, "
                      "e.g. " +
                          (file / "yolo-edge.yaml").string());
  }
  if (!fs::is_regular_file(status)) {
    throw ConfigError(name, "", 0, 0, "is not a regular file: give the path of a YAML file");
  }
  const std::uintmax_t size = fs::file_size(file, ec);
  if (!ec && size > kMaxFileBytes) {
    throw ConfigError(name, "", 0, 0,
                      "is " + std::to_string(size) +
                          " bytes, far too large for a config (a few KB): is it the right file?");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw ConfigError(name, "", 0, 0,
                      "cannot be opened (permission denied?): check its permissions; the daemon "
                      "reads it as its own user");
  }
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw ConfigError(name, "", 0, 0, "could not be read to the end: check the disk");
  return parse_config(text, name, options);
}

}  // namespace yolo::config
