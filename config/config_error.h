#pragma once

#include <stdexcept>
#include <string>

namespace yolo::config {

// A config that cannot be used. Carries where the problem is (file, key path, line and column,
// 1-based; 0 when unknown) so every message a user sees says what, where and what to do.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string file, std::string key, int line, int column, const std::string& what);

  const std::string& file() const { return file_; }
  const std::string& key() const { return key_; }
  int line() const { return line_; }
  int column() const { return column_; }

 private:
  std::string file_;
  std::string key_;
  int line_;
  int column_;
};

}  // namespace yolo::config
