// SPDX-License-Identifier: Apache-2.0
#include "config/yaml_writer.h"

#include <string>
#include <string_view>

#include "config/append.h"
#include "config/schema.h"

namespace yolo::config {

namespace {

// Appends `text` as lines of at most kWidth columns, the first starting with `prefix`, the
// others with `next_prefix` (the same when empty).
void append_wrapped(std::string& out, std::string_view prefix, std::string_view text,
                    std::string_view next_prefix = {}) {
  constexpr std::size_t kWidth = 100;
  if (next_prefix.empty()) next_prefix = prefix;
  std::string line(prefix);
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(start, end - start);
    if (line.size() > prefix.size() && line.size() + 1 + word.size() > kWidth) {
      out += line;
      out += '\n';
      line = next_prefix;
      prefix = next_prefix;
    }
    if (line.size() > prefix.size()) line += ' ';
    line += word;
    start = end + 1;
  }
  out += line;
  out += '\n';
}

}  // namespace

std::string describe_schema() {
  std::string out =
      "yolo-edge configuration (YAML). Every key is optional and falls back to its default,\n"
      "except model.path. Relative paths resolve against the config file's folder.\n";
  for (const SectionSpec& section : sections()) {
    append(out, {"\n", section.name, ": ", section.description, "\n"});
    for (const FieldSpec& f : fields()) {
      if (f.section != section.name) continue;
      append(out, {"  ", f.path(), " (", f.accepts(), "; default ",
                   format_field(f, f.default_value), ")\n"});
      append_wrapped(out, "      ", f.description);
      for (const FieldSpec& m : f.members) {
        append(out,
               {"      ", f.path(), f.type == FieldType::kRecordList ? "[]." : ".", m.name, " (",
                m.accepts(), "; ",
                m.required ? "required" : "default " + format_field(m, m.default_value), ")\n"});
        append_wrapped(out, "          ", m.description);
      }
    }
    // A list section's example, as the shipped file shows it: users copy it.
    if (section.list && !section.example.empty()) {
      append(out, {"  For example:\n    ", section.name, ":\n      ", section.example, "\n"});
    }
  }
  return out;
}

std::string to_yaml(const Config& config, bool with_comments) {
  std::string out;
  for (const SectionSpec& section : sections()) {
    if (!out.empty()) out += '\n';
    if (with_comments) append_wrapped(out, "# ", section.description);
    if (section.list) {
      const FieldSpec* f = find_field(section.name);
      if (with_comments) {
        for (const FieldSpec& m : f->members) {
          std::string line = std::string(m.name) + ": " + std::string(m.description);
          append(line,
                 {" (", m.accepts(), "; ",
                  m.required ? "required" : "default " + format_field(m, m.default_value), ")"});
          append_wrapped(out, "#   ", line, "#       ");
        }
      }
      append(out, {section.name, ": ", format_field(*f, f->fetch(config)), "\n"});
      if (with_comments && !section.example.empty()) {
        append(out, {"# For example:\n# ", section.name, ":\n#   ", section.example, "\n"});
      }
      continue;
    }
    append(out, {section.name, ":\n"});
    for (const FieldSpec& f : fields()) {
      if (f.section != section.name) continue;
      if (with_comments) {
        std::string comment(f.description);
        const bool obvious = f.type == FieldType::kBool || f.type == FieldType::kString ||
                             f.type == FieldType::kPath;
        if (!obvious) append(comment, {" (", f.accepts(), ")"});
        append_wrapped(out, "  # ", comment);
        for (const FieldSpec& m : f.members) {
          std::string line = std::string(m.name) + ": " + std::string(m.description);
          append(line,
                 {" (", m.accepts(), "; ",
                  m.required ? "required" : "default " + format_field(m, m.default_value), ")"});
          append_wrapped(out, "  #   ", line, "  #       ");
        }
      }
      append(out, {"  ", f.name, ": ", format_field(f, f.fetch(config)), "\n"});
    }
  }
  return out;
}

std::string default_config_yaml() {
  return "# yolo-edge daemon configuration: every key with its default.\n"
         "# Remove the keys you leave at their default; set model.path before starting the "
         "daemon.\n"
         "# Relative paths are resolved against this file's folder. An invalid file is rejected\n"
         "# whole, each problem named with its key, line and column; the running daemon keeps its\n"
         "# old settings when a reload finds one.\n"
         "\n" +
         to_yaml(Config{}, true);
}

}  // namespace yolo::config
