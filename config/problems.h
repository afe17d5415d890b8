// SPDX-License-Identifier: Apache-2.0
#pragma once

// What one load of a config found, and where: the loader (config_loader.cpp) notes where each key
// was written while it reads the YAML, and the rules, its own and the sections'
// (config/sections/*.cpp), report through it. Internal to config/.

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "config/config_error.h"
#include "config/config_loader.h"

namespace yolo::config {

// 1-based; 0 when unknown (a key left at its default).
struct Where {
  int line = 0;
  int column = 0;
};

class Problems {
 public:
  // `base` is the config file's folder, against which relative paths resolve; `overrides` are
  // named in the messages about their keys.
  Problems(std::filesystem::path base, std::vector<Override> overrides);

  // A problem with `key` at `at`.
  void add(const std::string& key, Where at, std::string message);
  void warn(const std::string& key, Where at, std::string message);

  // False once the key has a problem: a later rule about it would only repeat it.
  bool usable(const std::string& key) const { return !failed_.contains(key); }
  // Whether a key starting with `prefix` has a problem.
  bool any_failed_under(std::string_view prefix) const;
  // The key's value is set again (an override): its earlier problem no longer holds it back.
  void forget_failure(const std::string& key) { failed_.erase(key); }

  // Notes that the key was written at `at`; where it was written first when it already was.
  std::optional<Where> note_key(const std::string& key, Where at);
  void note_value(const std::string& key, Where at) { values_.emplace(key, at); }
  // Where a key's value was written in the file; nothing when it was left at its default.
  Where written_at(const std::string& key) const;

  // The config file's folder, and a path made absolute against it.
  const std::filesystem::path& base() const { return base_; }
  std::filesystem::path resolve(const std::filesystem::path& p) const;
  // A problem with the key unless p is a regular file: `what` says what it should be.
  void require_file(const std::string& key, const std::filesystem::path& p,
                    const std::string& what);

  // Each problem and warning under `list`[i] (e.g. cameras[1].detect_fps) ends with
  // "(WHAT 'names[i]')", so the message names the item, not only its place in the list; names
  // left empty are not said.
  void name_items(std::string_view list, std::string_view what,
                  const std::vector<std::string>& names);

  // Throws a ConfigError with the problems in file order, if there are any; else hands the
  // warnings to `warnings` (when not null).
  void finish(const std::string& file, std::vector<ConfigProblem>* warnings);

 private:
  // "(relative paths start from the config file's folder, DIR)" when the user wrote the key.
  std::string relative_hint(const std::string& key) const;

  std::filesystem::path base_;
  std::vector<Override> overrides_;
  std::vector<ConfigProblem> problems_;
  std::vector<ConfigProblem> warnings_;
  std::set<std::string> failed_;
  // Where each key and each known key's value were written.
  std::map<std::string, Where> keys_;
  std::map<std::string, Where> values_;
};

}  // namespace yolo::config
