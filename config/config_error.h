// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace yolo::config {

// One thing wrong in a config: the key path ("model.path"; "" for the whole file), where it is
// (1-based line and column; 0 when unknown, e.g. a default that fails a file check) and what is
// wrong and what to do.
struct ConfigProblem {
  std::string key;
  int line = 0;
  int column = 0;
  std::string message;
};

// "FILE:LINE:COL: KEY: WHAT", leaving out the parts that are unknown.
std::string format_problem(const std::string& file, const ConfigProblem& problem);

// A config that cannot be used. Carries every problem found, so a user fixes them in one go;
// what() has one "FILE:LINE:COL: KEY: WHAT" line per problem. key(), line() and column() are
// those of the first problem.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string file, std::string key, int line, int column, const std::string& what);
  // `problems` must not be empty.
  ConfigError(std::string file, std::vector<ConfigProblem> problems);

  const std::string& file() const { return file_; }
  const std::string& key() const { return problems_.front().key; }
  int line() const { return problems_.front().line; }
  int column() const { return problems_.front().column; }
  const std::vector<ConfigProblem>& problems() const { return problems_; }

 private:
  std::string file_;
  std::vector<ConfigProblem> problems_;
};

}  // namespace yolo::config
