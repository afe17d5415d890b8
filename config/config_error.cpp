// SPDX-License-Identifier: Apache-2.0
#include "config/config_error.h"

namespace yolo::config {

std::string format_problem(const std::string& file, const ConfigProblem& p) {
  std::string out = file.empty() ? std::string("config") : file;
  if (p.line > 0) {
    out += ':';
    out += std::to_string(p.line);
    if (p.column > 0) {
      out += ':';
      out += std::to_string(p.column);
    }
  }
  out += ": ";
  if (!p.key.empty()) {
    out += p.key;
    out += ": ";
  }
  out += p.message;
  return out;
}

namespace {

std::string format_all(const std::string& file, const std::vector<ConfigProblem>& problems) {
  if (problems.empty()) throw std::invalid_argument("ConfigError without a problem");
  std::string out;
  for (const ConfigProblem& p : problems) {
    if (!out.empty()) out += '\n';
    out += format_problem(file, p);
  }
  return out;
}

}  // namespace

ConfigError::ConfigError(std::string file, std::string key, int line, int column,
                         const std::string& what)
    : ConfigError(std::move(file), {ConfigProblem{std::move(key), line, column, what}}) {}

ConfigError::ConfigError(std::string file, std::vector<ConfigProblem> problems)
    : std::runtime_error(format_all(file, problems)),
      file_(std::move(file)),
      problems_(std::move(problems)) {}

}  // namespace yolo::config
