// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace yolo::vision {

// A labels file that cannot be used; the message names the file and, where it applies, the line.
class LabelsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Display names for class ids: the model's own names, else a labels file, else "class 17".
class ClassNames {
 public:
  // No names: every id is shown as a number.
  ClassNames() = default;
  explicit ClassNames(std::vector<std::string> names) : names_(std::move(names)) {}

  // One name per line; a trailing newline and Windows line ends are fine. An empty line, a
  // duplicate name or a control character is an error naming the line.
  static ClassNames from_labels_file(const std::filesystem::path& path);

  // The model's names when it has any, else the labels file when one is given, else numbers.
  static ClassNames resolve(std::vector<std::string> model_names,
                            const std::filesystem::path& labels_file);

  // The name of `class_id`, or "class <id>" when there is none.
  std::string name(int class_id) const;
  std::size_t size() const { return names_.size(); }
  bool empty() const { return names_.empty(); }
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::vector<std::string> names_;
};

}  // namespace yolo::vision
