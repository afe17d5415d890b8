// SPDX-License-Identifier: Apache-2.0
#include "config/problems.h"

#include <algorithm>
#include <tuple>

#include "config/append.h"

namespace yolo::config {

namespace fs = std::filesystem;

Problems::Problems(fs::path base, std::vector<Override> overrides)
    : base_(std::move(base)), overrides_(std::move(overrides)) {}

void Problems::add(const std::string& key, Where at, std::string message) {
  for (const Override& o : overrides_) {
    if (o.key == key) message += " (" + key + " was set to '" + o.value + "' " + o.origin + ")";
  }
  problems_.push_back({key, at.line, at.column, std::move(message)});
  failed_.insert(key);
}

void Problems::name_items(std::string_view list, std::string_view what,
                          const std::vector<std::string>& names) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty()) continue;
    const std::string item = std::string(list) + "[" + std::to_string(i) + "]";
    for (std::vector<ConfigProblem>* found : {&problems_, &warnings_}) {
      for (ConfigProblem& p : *found) {
        const bool under =
            p.key == item || p.key.starts_with(item + ".") || p.key.starts_with(item + "[");
        if (under) p.message += " (" + std::string(what) + " '" + names[i] + "')";
      }
    }
  }
}

void Problems::warn(const std::string& key, Where at, std::string message) {
  warnings_.push_back({key, at.line, at.column, std::move(message)});
}

bool Problems::any_failed_under(std::string_view prefix) const {
  return std::any_of(failed_.begin(), failed_.end(),
                     [prefix](const std::string& k) { return k.starts_with(prefix); });
}

std::optional<Where> Problems::note_key(const std::string& key, Where at) {
  const auto [it, fresh] = keys_.emplace(key, at);
  if (fresh) return std::nullopt;
  return it->second;
}

Where Problems::written_at(const std::string& key) const {
  const auto it = values_.find(key);
  return it == values_.end() ? Where{} : it->second;
}

fs::path Problems::resolve(const fs::path& p) const {
  if (p.empty() || p.is_absolute()) return p;
  return (base_ / p).lexically_normal();
}

std::string Problems::relative_hint(const std::string& key) const {
  if (!keys_.contains(key)) return "";
  return " (relative paths start from the config file's folder, " + base_.string() + ")";
}

void Problems::require_file(const std::string& key, const fs::path& p, const std::string& what) {
  std::error_code ec;
  const fs::file_status status = fs::status(p, ec);
  if (fs::is_regular_file(status)) return;
  if (fs::is_directory(status)) {
    std::string message;
    append(message, {"'", p.string(), "' is a folder: point to ", what, " in it"});
    add(key, written_at(key), std::move(message));
  } else {
    add(key, written_at(key),
        "no such file '" + p.string() + "': set the path of " + what + relative_hint(key));
  }
}

void Problems::finish(const std::string& file, std::vector<ConfigProblem>* warnings) {
  if (!problems_.empty()) {
    // In file order, like a compiler; problems without a place (defaults) last.
    std::stable_sort(problems_.begin(), problems_.end(), [](const auto& a, const auto& b) {
      return std::make_tuple(a.line == 0, a.line, a.column) <
             std::make_tuple(b.line == 0, b.line, b.column);
    });
    throw ConfigError(file, std::move(problems_));
  }
  if (warnings) {
    for (ConfigProblem& w : warnings_) warnings->push_back(std::move(w));
  }
}

}  // namespace yolo::config
