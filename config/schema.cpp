// SPDX-License-Identifier: Apache-2.0
#include "config/schema.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "config/append.h"
#include "config/sections/sections.h"
#include "config/suggest.h"

namespace yolo::config {

namespace {

// Every section, in the order the shipped file and --describe show them.
constexpr section_files::SectionRows kSections[] = {
    {section_files::source_spec, section_files::add_source_fields},
    {section_files::cameras_spec, section_files::add_cameras_fields},
    {section_files::motion_spec, section_files::add_motion_fields},
    {section_files::motion_masks_spec, section_files::add_motion_masks_fields},
    {section_files::model_spec, section_files::add_model_fields},
    {section_files::checks_spec, section_files::add_checks_fields},
    {section_files::detect_spec, section_files::add_detect_fields},
    {section_files::threads_spec, section_files::add_threads_fields},
    {section_files::telemetry_spec, section_files::add_telemetry_fields},
    {section_files::logging_spec, section_files::add_logging_fields},
    {section_files::http_spec, section_files::add_http_fields},
    {section_files::mqtt_spec, section_files::add_mqtt_fields},
    {section_files::gpio_spec, section_files::add_gpio_fields},
    {section_files::webhook_spec, section_files::add_webhook_fields},
    {section_files::tracking_spec, section_files::add_tracking_fields},
    {section_files::zones_spec, section_files::add_zones_fields},
    {section_files::lines_spec, section_files::add_lines_fields},
    {section_files::events_spec, section_files::add_events_fields},
    {section_files::config_spec, section_files::add_config_fields},
};

std::vector<SectionSpec> build_sections() {
  std::vector<SectionSpec> out;
  for (const section_files::SectionRows& section : kSections) out.push_back(section.spec());
  return out;
}

std::vector<FieldSpec> build_fields() {
  std::vector<FieldSpec> out;
  for (const section_files::SectionRows& section : kSections) {
    const std::size_t first = out.size();
    section.add_fields(out);
    for (std::size_t i = first; i < out.size(); ++i) {
      out[i].section = section.spec().name;
      for (FieldSpec& member : out[i].members) member.section = out[i].path();
    }
  }
  return out;
}

std::string format_number(double v) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, end);
  // Keep floats recognisable as floats in the YAML ("1.0", not "1").
  if (s.find_first_of(".ein") == std::string::npos) s += ".0";
  return s;
}

std::string format_bound(const FieldSpec& field, double v) {
  if (field.type != FieldType::kFloat) return std::to_string(static_cast<std::int64_t>(v));
  char buf[64];
  // Whole numbers in full ("1000000", not the shortest form "1e+06"): people read these.
  const bool whole_number = v == std::trunc(v) && std::abs(v) < 1e15;
  const auto [end, ec] = whole_number
                             ? std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed)
                             : std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string member_names(const FieldSpec& field) {
  std::string out;
  for (const FieldSpec& m : field.members) append(out, {out.empty() ? "" : ", ", m.name});
  return out;
}

// A record as a YAML flow mapping, members in table order.
std::string format_record(const FieldSpec& field, const Record& record) {
  std::string out = "{";
  for (const FieldSpec& m : field.members) {
    const auto it = record.values.find(m.name);
    if (it == record.values.end()) continue;
    append(out, {out.size() > 1 ? ", " : "", m.name, ": ", format_field(m, it->second)});
  }
  return out + "}";
}

}  // namespace

std::string FieldSpec::path() const {
  if (name.empty()) return std::string(section);
  return std::string(section) + "." + std::string(name);
}

std::string FieldSpec::accepts() const {
  const std::string range = " from " + format_bound(*this, min) + " to " + format_bound(*this, max);
  switch (type) {
    case FieldType::kBool:
      return "true or false";
    case FieldType::kInt:
      return "whole number" + range;
    case FieldType::kFloat:
      return "number" + range;
    case FieldType::kString:
      return "text";
    case FieldType::kPath:
      return "path";
    case FieldType::kEnum:
      return "one of " + join_names(choices);
    case FieldType::kIntList:
      return "list of whole numbers" + range;
    case FieldType::kRecord:
      return "mapping {" + member_names(*this) + "} or null";
    case FieldType::kRecordList:
      return "list of mappings {" + member_names(*this) + "}";
    case FieldType::kImageSize:
      return "0, a size or [height, width]" + range + ", or auto";
    case FieldType::kPoint:
      return "a point [x, y], each" + range;
    case FieldType::kPointList:
      return "list of points [[x, y], ...], each number" + range;
    case FieldType::kNameList:
      return choices.empty() ? "list of names" : "list of names from " + join_names(choices);
  }
  return "";
}

const std::vector<SectionSpec>& sections() {
  static const std::vector<SectionSpec> table = build_sections();
  return table;
}

const std::vector<FieldSpec>& fields() {
  static const std::vector<FieldSpec> table = build_fields();
  return table;
}

const FieldSpec* find_field(std::string_view path) {
  for (const FieldSpec& f : fields()) {
    if (f.path() == path) return &f;
  }
  return nullptr;
}

const FieldSpec* find_member(const FieldSpec& field, std::string_view name) {
  for (const FieldSpec& m : field.members) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

std::string check_number(const FieldSpec& field, double v) {
  if (v >= field.min && v <= field.max) return "";
  const bool real = field.type == FieldType::kFloat;
  std::string out = format_bound(field, v);
  out += " is out of range: use ";
  out += real ? "a number" : field.type == FieldType::kInt ? "a whole number" : "whole numbers";
  append(out, {" from ", format_bound(field, field.min), " to ", format_bound(field, field.max)});
  return out;
}

static std::string check_point(const FieldSpec& field, const std::vector<double>& point) {
  if (point.size() != 2) {
    return "a point is two numbers [x, y], got " + std::to_string(point.size());
  }
  for (const double v : point) {
    if (v < field.min || v > field.max) {
      return format_number(v) + " is outside the frame: x and y are fractions of the frame, " +
             format_bound(field, field.min) + " to " + format_bound(field, field.max);
    }
  }
  return "";
}

std::string check_value(const FieldSpec& field, const Value& value) {
  std::string problem;
  switch (field.type) {
    case FieldType::kInt:
      problem = check_number(field, static_cast<double>(std::get<std::int64_t>(value)));
      break;
    case FieldType::kFloat:
      problem = check_number(field, std::get<double>(value));
      break;
    case FieldType::kEnum: {
      const std::string& name = std::get<std::string>(value);
      if (std::find(field.choices.begin(), field.choices.end(), name) == field.choices.end()) {
        problem = "'" + name + "' is not allowed: use one of " + join_names(field.choices);
        if (const std::string near = closest_name(name, field.choices); !near.empty()) {
          problem += " (did you mean '" + near + "'?)";
        }
      }
      break;
    }
    case FieldType::kIntList: {
      const auto& items = std::get<std::vector<std::int64_t>>(value);
      for (std::size_t i = 0; i < items.size() && problem.empty(); ++i) {
        if (const std::string p = check_number(field, static_cast<double>(items[i])); !p.empty()) {
          problem = "item " + std::to_string(i) + ": " + p;
        }
      }
      break;
    }
    case FieldType::kRecord:
    case FieldType::kRecordList: {
      const auto& records = std::get<std::vector<Record>>(value);
      if (field.type == FieldType::kRecord && records.size() > 1) return "is more than one mapping";
      for (std::size_t i = 0; i < records.size() && problem.empty(); ++i) {
        for (const auto& [name, member_value] : records[i].values) {
          const FieldSpec* member = find_member(field, name);
          const std::string p = member ? check_value(*member, member_value) : "is not a key";
          if (p.empty()) continue;
          problem = (field.type == FieldType::kRecordList ? "item " + std::to_string(i) + " " : "");
          append(problem, {name, ": ", p});
          break;
        }
      }
      break;
    }
    case FieldType::kImageSize:
      if (const auto* n = std::get_if<std::int64_t>(&value)) {
        problem = check_number(field, static_cast<double>(*n));
      } else if (const auto* list = std::get_if<std::vector<std::int64_t>>(&value)) {
        if (list->size() != 2) {
          problem = "a list needs two sizes, [height, width] such as [384, 640]; got " +
                    std::to_string(list->size());
        }
        for (std::size_t i = 0; i < list->size() && problem.empty(); ++i) {
          problem = check_number(field, static_cast<double>((*list)[i]));
        }
      } else if (const auto* name = std::get_if<std::string>(&value); !name || *name != "auto") {
        problem = "'" + (name ? *name : std::string()) +
                  "' is not a size: use a number such as 640, [height, width] such as "
                  "[384, 640], or auto";
      }
      break;
    case FieldType::kPoint:
      problem = check_point(field, std::get<std::vector<double>>(value));
      break;
    case FieldType::kPointList: {
      const auto& points = std::get<std::vector<std::vector<double>>>(value);
      for (std::size_t i = 0; i < points.size() && problem.empty(); ++i) {
        if (const std::string p = check_point(field, points[i]); !p.empty()) {
          problem = "point " + std::to_string(i) + ": " + p;
        }
      }
      break;
    }
    case FieldType::kNameList: {
      if (field.choices.empty()) break;
      for (const std::string& name : std::get<std::vector<std::string>>(value)) {
        if (std::find(field.choices.begin(), field.choices.end(), name) != field.choices.end()) {
          continue;
        }
        problem = "'" + name + "' is not allowed: use names from " + join_names(field.choices);
        if (const std::string near = closest_name(name, field.choices); !near.empty()) {
          problem += " (did you mean '" + near + "'?)";
        }
        break;
      }
      break;
    }
    case FieldType::kBool:
    case FieldType::kString:
    case FieldType::kPath:
      break;
  }
  if (problem.empty() && field.rule) problem = field.rule(value);
  return problem;
}

std::optional<Value> parse_image_size(std::string_view text) {
  const auto trim = [](std::string_view t) {
    while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
    while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
    return t;
  };
  const auto whole = [](std::string_view t) -> std::optional<std::int64_t> {
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
    if (t.empty() || ec != std::errc() || end != t.data() + t.size()) return std::nullopt;
    return n;
  };
  text = trim(text);
  if (text == "auto") return Value(std::string("auto"));
  const bool bracketed = text.starts_with('[') && text.ends_with(']');
  if (bracketed) text = trim(text.substr(1, text.size() - 2));
  const std::size_t comma = text.find(',');
  if (comma == std::string_view::npos) {
    const auto n = whole(text);
    if (!n) return std::nullopt;
    if (bracketed) return Value(std::vector<std::int64_t>{*n});
    return Value(*n);
  }
  std::vector<std::int64_t> sides;
  for (std::string_view rest = text;;) {
    const std::size_t at = rest.find(',');
    const auto n = whole(trim(rest.substr(0, at)));
    if (!n) return std::nullopt;
    sides.push_back(*n);
    if (at == std::string_view::npos) break;
    rest = rest.substr(at + 1);
  }
  return Value(std::move(sides));
}

runtime::InputSize to_image_size(const Value& value) {
  if (const auto* n = std::get_if<std::int64_t>(&value)) {
    if (*n == 0) return {};
    return runtime::InputSize::fixed(static_cast<int>(*n), static_cast<int>(*n));
  }
  if (const auto* list = std::get_if<std::vector<std::int64_t>>(&value);
      list && list->size() == 2) {
    return runtime::InputSize::fixed(static_cast<int>((*list)[0]), static_cast<int>((*list)[1]));
  }
  if (const auto* name = std::get_if<std::string>(&value); name && *name == "auto") {
    return runtime::InputSize::automatic();
  }
  throw std::invalid_argument("unchecked model.imgsz value stored");
}

std::string format_value(const Value& value) {
  struct Formatter {
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(std::int64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const { return format_number(v); }
    std::string operator()(const std::string& v) const { return quoted(v); }
    std::string operator()(const std::vector<std::int64_t>& v) const {
      std::string out = "[";
      for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
      return out + "]";
    }
    std::string operator()(const std::vector<double>& v) const {
      std::string out = "[";
      for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + format_number(v[i]);
      return out + "]";
    }
    std::string operator()(const std::vector<std::vector<double>>& v) const {
      std::string out = "[";
      for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + (*this)(v[i]);
      return out + "]";
    }
    std::string operator()(const std::vector<std::string>& v) const {
      std::string out = "[";
      for (std::size_t i = 0; i < v.size(); ++i) {
        // Plain words stay plain, as enum names are written; anything else is quoted.
        const bool plain = !v[i].empty() && std::all_of(v[i].begin(), v[i].end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
        });
        out += (i ? ", " : "") + (plain ? v[i] : quoted(v[i]));
      }
      return out + "]";
    }
    std::string operator()(const std::vector<Record>& v) const {
      std::string out = "[";
      for (std::size_t i = 0; i < v.size(); ++i) {
        out += i ? ", {" : "{";
        bool first = true;
        for (const auto& [name, member] : v[i].values) {
          append(out, {first ? "" : ", ", name, ": ", format_value(member)});
          first = false;
        }
        out += "}";
      }
      return out + "]";
    }
  };
  return std::visit(Formatter{}, value);
}

std::string format_field(const FieldSpec& field, const Value& value) {
  switch (field.type) {
    case FieldType::kEnum:
      // Enum names are plain words; quotes would only hide that they are names, not free text.
      return std::get<std::string>(value);
    case FieldType::kImageSize:
      if (const auto* name = std::get_if<std::string>(&value)) return *name;
      return format_value(value);
    case FieldType::kRecord: {
      const auto& records = std::get<std::vector<Record>>(value);
      return records.empty() ? "null" : format_record(field, records.front());
    }
    case FieldType::kRecordList: {
      std::string out = "[";
      for (const Record& r : std::get<std::vector<Record>>(value)) {
        append(out, {out.size() > 1 ? ", " : "", format_record(field, r)});
      }
      return out + "]";
    }
    default:
      return format_value(value);
  }
}

}  // namespace yolo::config
