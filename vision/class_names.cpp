// SPDX-License-Identifier: Apache-2.0
#include "vision/class_names.h"

#include <fstream>
#include <map>

namespace yolo::vision {

ClassNames ClassNames::from_labels_file(const std::filesystem::path& path) {
  const std::string where = "labels file " + path.string();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw LabelsError(where + ": not found; give a text file with one class name per line");
  if (std::filesystem::is_directory(path, ec))
    throw LabelsError(where + ": is a directory; give a text file with one class name per line");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw LabelsError(where + ": cannot be read (check its permissions)");

  std::vector<std::string> names;
  std::map<std::string, int> first_line;
  std::string line;
  int line_no = 0;
  int blank_line = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos) {
      // Blank lines are only allowed at the very end of the file.
      if (blank_line == 0) blank_line = line_no;
      continue;
    }
    const std::string where_line = where + ":" + std::to_string(line_no);
    if (blank_line != 0)
      throw LabelsError(where + ":" + std::to_string(blank_line) +
                        ": empty line; every line must hold one class name (class " +
                        std::to_string(names.size()) + ")");
    const auto last = line.find_last_not_of(" \t");
    std::string name = line.substr(first, last - first + 1);
    for (const char c : name) {
      if (static_cast<unsigned char>(c) < 0x20)
        throw LabelsError(where_line + ": contains a control character; is this a text file?");
    }
    if (const auto it = first_line.find(name); it != first_line.end())
      throw LabelsError(where_line + ": duplicate class name '" + name + "' (first on line " +
                        std::to_string(it->second) + ")");
    first_line.emplace(name, line_no);
    names.push_back(std::move(name));
  }
  if (names.empty()) throw LabelsError(where + ": holds no class names; write one per line");
  return ClassNames(std::move(names));
}

ClassNames ClassNames::resolve(std::vector<std::string> model_names,
                               const std::filesystem::path& labels_file) {
  if (!model_names.empty()) return ClassNames(std::move(model_names));
  if (!labels_file.empty()) return from_labels_file(labels_file);
  return ClassNames();
}

std::string ClassNames::name(int class_id) const {
  if (class_id >= 0 && static_cast<std::size_t>(class_id) < names_.size()) return names_[class_id];
  return "class " + std::to_string(class_id);
}

}  // namespace yolo::vision
