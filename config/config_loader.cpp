// SPDX-License-Identifier: Apache-2.0
#include "config/config_loader.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include "config/loader_messages.h"
#include "config/problems.h"
#include "config/schema.h"
#include "config/sections/sections.h"
#include "config/suggest.h"
#include "config/yaml_value.h"

namespace yolo::config {

namespace fs = std::filesystem;

namespace {

// A config is a few kilobytes; anything this large is the wrong file.
constexpr std::uintmax_t kMaxFileBytes = 1 << 20;

// Validates one parsed document into a Config, collecting every problem instead of stopping at
// the first, so that a user fixes them all in one go. The sections' own rules are in their files
// (config/sections/sections.h); the rules across sections are here.
class Validator {
 public:
  Validator(std::string name, fs::path base, LoadOptions options)
      : name_(std::move(name)),
        options_(std::move(options)),
        problems_(std::move(base), options_.overrides) {}

  Config run(const YAML::Node& root) {
    Config config;
    read_root(root, config);
    section_files::report_old_gpio_keys(old_gpio_keys_, problems_);
    apply_overrides(config);
    section_files::check_cameras(config, problems_);
    section_files::check_places(config.zones, config.lines, camera_list(config), problems_);
    section_files::check_motion_masks(config.motion_masks, camera_list(config), problems_);
    check_combinations(config);
    resolve_paths(config);
    if (options_.check_files) check_files(config);
    check_class_names(config);
    // From the file as written: a camera with a wrong key is not in `config` at all.
    std::vector<std::string> camera_names;
    if (root.IsMap() && root["cameras"] && root["cameras"].IsSequence()) {
      for (const YAML::Node& camera : root["cameras"]) {
        const bool named = camera.IsMap() && camera["name"] && camera["name"].IsScalar();
        camera_names.push_back(named ? camera["name"].Scalar() : "");
      }
    }
    problems_.name_items("cameras", "camera", camera_names);
    problems_.finish(name_, options_.warnings);
    return config;
  }

 private:
  void add(const std::string& key, Where at, std::string message) {
    problems_.add(key, at, std::move(message));
  }

  // Values set from elsewhere replace what the file says, checked the same way.
  void apply_overrides(Config& config) {
    for (const Override& o : options_.overrides) {
      const FieldSpec* field = find_field(o.key);
      if (!field) {
        add(o.key, {}, "is not a setting");
        continue;
      }
      problems_.forget_failure(o.key);
      std::optional<Value> value = read_value(*field, o.key, YAML::Node(o.value), {}, problems_);
      if (!value) continue;
      if (const std::string problem = check_value(*field, *value); !problem.empty()) {
        add(o.key, {}, problem);
        continue;
      }
      field->store(config, *value);
    }
  }

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
      if (const std::optional<Where> first = problems_.note_key(path, at)) {
        add(path, at,
            "key written twice (first at line " + std::to_string(first->line) + "): keep one");
        continue;
      }
      const FieldSpec* field = find_field(path);
      if (!field && section == "gpio" && section_files::is_old_gpio_key(key.Scalar())) {
        const YAML::Node& value = entry.second;
        old_gpio_keys_.push_back({key.Scalar(), at, value.IsScalar() ? value.Scalar() : ""});
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
    problems_.note_value(key, at);
    std::optional<Value> value = read_value(field, key, node, at, problems_);
    if (!value) return;
    if (const std::string problem = check_value(field, *value); !problem.empty()) {
      add(key, at, problem);
      return;
    }
    field.store(config, *value);
  }

  // Settings that are each valid but do not work together. Problems are sorted by place; those
  // without one (keys left at their defaults) keep the order of these calls.
  void check_combinations(const Config& c) {
    section_files::check_gpio(c.gpio, problems_);
    section_files::check_tracking(c.tracking, problems_);
    section_files::check_events(c.events, problems_);
    if (!c.tracking.enabled && (!c.zones.empty() || !c.lines.empty())) {
      problems_.warn("tracking.enabled", problems_.written_at("tracking.enabled"),
                     "is false: the zones and lines count nothing and raise no events until it "
                     "is true");
    }

    check_alert_zones(c);
    section_files::check_mqtt(c.mqtt, problems_);
    section_files::check_http(c.http, problems_);
    section_files::check_model(c.model, problems_, options_);
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
      if (!problems_.usable(key)) continue;
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
        add(item, problems_.written_at(item), message);
      }
    }
  }

  // An alert by zone names one of the zones (of any camera). Not checked while a zone has a
  // problem of its own: it may be the one named.
  void check_alert_zones(const Config& c) {
    if (problems_.any_failed_under("zones")) return;
    std::vector<std::string_view> names;
    for (const ZoneConfig& z : c.zones) names.push_back(z.name);
    for (std::size_t i = 0; i < c.gpio.alerts.size(); ++i) {
      const std::string& zone = c.gpio.alerts[i].zone;
      const std::string key = "gpio.alerts[" + std::to_string(i) + "].zone";
      if (zone.empty() || std::find(names.begin(), names.end(), zone) != names.end()) continue;
      if (!problems_.usable(key)) continue;
      std::string message = "'" + zone + "' is not a zone";
      if (names.empty()) {
        message += ": there are none; add it under zones: (see config/yolo-edge.yaml)";
      } else if (const std::string near = closest_name(zone, names); !near.empty()) {
        message += ": did you mean '" + near + "'?";
      } else {
        message += ": the zones are " + join_names(names);
      }
      add(key, problems_.written_at(key), message);
    }
  }

  // Every path setting (a kPath row) resolves against the config file's folder.
  void resolve_paths(Config& c) const {
    for (const FieldSpec& f : fields()) {
      if (f.type != FieldType::kPath) continue;
      f.store(c, problems_.resolve(std::get<std::string>(f.fetch(c))).string());
    }
  }

  // What the settings name: files, folders and the source (LoadOptions::check_files).
  void check_files(Config& c) {
    section_files::check_model_files(c.model, problems_);
    section_files::check_mqtt_files(c.mqtt, problems_);
    section_files::check_http_files(c.http, problems_);
    if (c.cameras.empty()) section_files::check_source(c.source, "source.uri", problems_, options_);
    for (std::size_t i = 0; i < c.cameras.size(); ++i) {
      section_files::check_source(c.cameras[i].source, "cameras[" + std::to_string(i) + "].uri",
                                  problems_, options_);
    }
    section_files::check_telemetry_files(c.telemetry, problems_);
    section_files::check_logging_files(c.logging, problems_);
  }

  std::string name_;
  LoadOptions options_;
  Problems problems_;
  std::vector<section_files::OldGpioKey> old_gpio_keys_;
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
