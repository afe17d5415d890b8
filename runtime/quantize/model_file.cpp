// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/model_file.h"

#include <unistd.h>

#include <atomic>
#include <fstream>

#include "runtime/quantize/error.h"

namespace yolo::runtime {

TempFile::~TempFile() {
  std::error_code ignored;
  if (!path_.empty()) std::filesystem::remove(path_, ignored);
}

std::filesystem::path unique_sibling(const std::filesystem::path& out, const std::string& tag) {
  static std::atomic<int> counter{0};
  const auto folder = out.has_parent_path() ? out.parent_path() : std::filesystem::path(".");
  std::string name = ".";
  name += out.filename().string();
  for (const std::string& part : {tag, std::to_string(::getpid()), std::to_string(counter++)}) {
    name += '.';
    name += part;
  }
  return folder / name;
}

void save_model(const onnx::ModelProto& model, const std::filesystem::path& path) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file || !model.SerializeToOstream(&file) || !file.flush()) {
    throw QuantizeError("cannot write " + path.string() +
                        " (disk full or folder not writable); free space or choose another --out");
  }
}

void check_writable(const std::filesystem::path& out, const std::string& option) {
  const auto folder = out.has_parent_path() ? out.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec)) {
    throw QuantizeError(option + " " + out.string() + ": folder " + folder.string() +
                        " does not exist; create it or choose another path");
  }
  if (std::filesystem::is_directory(out, ec)) {
    throw QuantizeError(option + " " + out.string() + ": is a folder; give a file name");
  }
  const auto probe = unique_sibling(out, "probe");
  {
    std::ofstream file(probe, std::ios::binary);
    if (!file) {
      throw QuantizeError(option + " " + out.string() + ": cannot create files in " +
                          folder.string() + " (permission denied?); choose a writable folder");
    }
  }
  std::filesystem::remove(probe, ec);
}

void write_model_atomically(const onnx::ModelProto& model, const std::filesystem::path& out) {
  TempFile temp(unique_sibling(out, "partial"));
  save_model(model, temp.path());
  std::error_code ec;
  std::filesystem::rename(temp.path(), out, ec);
  if (ec) {
    throw QuantizeError("cannot rename " + temp.path().string() + " to " + out.string() + ": " +
                        ec.message());
  }
  temp.release();
}

}  // namespace yolo::runtime
