// SPDX-License-Identifier: Apache-2.0
#include "config/loader_messages.h"

#include <sstream>

#include "config/suggest.h"

namespace yolo::config {

namespace {

std::vector<std::string_view> section_names() {
  std::vector<std::string_view> names;
  for (const SectionSpec& s : sections()) names.push_back(s.name);
  return names;
}

// The full key path of a field of that name in another section ("model.imgsz"), or "".
std::string field_elsewhere(std::string_view name, std::string_view not_in) {
  for (const FieldSpec& f : fields()) {
    if (f.name == name && f.section != not_in) return f.path();
  }
  return "";
}

}  // namespace

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar: {
      // Enough to recognise the value, not a whole pasted file.
      constexpr std::size_t kShown = 60;
      const std::string& s = node.Scalar();
      return "'" + (s.size() <= kShown ? s : s.substr(0, kShown - 3) + "...") + "'";
    }
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping of keys";
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return "nothing";
  }
  return "nothing";
}

std::vector<std::string_view> field_names(std::string_view section) {
  std::vector<std::string_view> names;
  for (const FieldSpec& f : fields()) {
    if (f.section == section) names.push_back(f.name);
  }
  return names;
}

std::string unknown_section(const std::string& name) {
  std::string message = "unknown section '" + name + "'";
  if (const std::string near = closest_name(name, section_names()); !near.empty()) {
    message += " (did you mean '" + near + "'?)";
  } else if (const std::string path = field_elsewhere(name, ""); !path.empty()) {
    message += " (did you mean " + path + "? keys go under their section)";
  }
  return message + "; the sections are " + join_names(section_names());
}

std::string unknown_key(const std::string& section, const std::string& name) {
  std::string message = "unknown key '" + name + "' in " + section;
  if (const std::string near = closest_name(name, field_names(section)); !near.empty()) {
    message += " (did you mean '" + near + "'?)";
  } else if (const std::string path = field_elsewhere(name, section); !path.empty()) {
    message += " (did you mean " + path + "? it belongs in another section)";
  }
  return message + "; the keys of " + section + " are " + join_names(field_names(section));
}

std::string unknown_member(const FieldSpec& field, const std::string& key,
                           const std::string& name) {
  std::vector<std::string_view> names;
  for (const FieldSpec& m : field.members) names.push_back(m.name);
  std::string message = "unknown key '" + name + "' in " + key;
  if (const std::string near = closest_name(name, names); !near.empty()) {
    message += " (did you mean '" + near + "'?)";
  }
  return message + "; its keys are " + join_names(names);
}

std::string example(const FieldSpec& field) {
  std::string out;
  for (const FieldSpec& m : field.members) {
    if (!m.required) continue;
    std::string value = "17";
    if (m.type == FieldType::kString) value = "front";
    if (m.type == FieldType::kEnum && !m.choices.empty()) value = std::string(m.choices.front());
    if (m.type == FieldType::kPoint) value = "[0.5, 0.5]";
    if (m.type == FieldType::kPointList) value = "[[0.1, 0.5], [0.4, 0.5], [0.4, 0.9]]";
    out += (out.empty() ? "" : ", ") + std::string(m.name) + ": " + value;
  }
  return "{" + out + "}";
}

std::string expected(const FieldSpec& field) {
  switch (field.type) {
    case FieldType::kBool:
      return "true or false";
    case FieldType::kInt:
      return "a whole number";
    case FieldType::kFloat:
      return "a number";
    case FieldType::kString:
      return "text";
    case FieldType::kPath:
      return "a path";
    case FieldType::kEnum:
      return "a name (one of " + join_names(field.choices) + ")";
    case FieldType::kIntList:
      return "a list of whole numbers";
    case FieldType::kRecord:
      return "a mapping such as " + example(field) + " (or null for none)";
    case FieldType::kRecordList:
      return "a list of mappings such as [" + example(field) + "] (or [] for none)";
    case FieldType::kImageSize:
      return "a size such as 640, [height, width] such as [384, 640], or auto";
    case FieldType::kPoint:
      return "a point [x, y] such as [0.5, 0.6]";
    case FieldType::kPointList:
      return "a list of points such as [[0.1, 0.5], [0.4, 0.5], [0.4, 0.9]]";
    case FieldType::kNameList:
      return "a list of names such as [person, car]";
  }
  return "a value";
}

std::string tab_hint(std::string_view text, int line) {
  std::istringstream lines{std::string(text)};
  std::string l;
  for (int i = 1; std::getline(lines, l); ++i) {
    if (i != line && i != line - 1) continue;
    const std::size_t indent_end = l.find_first_not_of(" \t");
    if (l.substr(0, indent_end).find('\t') != std::string::npos) {
      return "; line " + std::to_string(i) +
             " is indented with a tab, which YAML does not "
             "allow: indent with spaces";
    }
  }
  return "";
}

}  // namespace yolo::config
