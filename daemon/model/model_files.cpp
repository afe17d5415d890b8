// SPDX-License-Identifier: Apache-2.0
#include "daemon/model/model_files.h"

#include <fstream>
#include <stdexcept>

namespace yolo::daemon {

namespace fs = std::filesystem;

namespace {

// FNV-1a over the file's bytes.
std::uint64_t fnv1a(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::uint64_t hash = 1469598103934665603ULL;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) {
      hash ^= static_cast<unsigned char>(buffer[i]);
      hash *= 1099511628211ULL;
    }
  }
  if (in.bad()) throw std::runtime_error("cannot read " + file.string());
  return hash;
}

}  // namespace

ModelFileCache::Stamp ModelFileCache::stamp(const fs::path& path) {
  return {path, fs::file_size(path), fs::last_write_time(path)};
}

const runtime::ModelFile& ModelFileCache::model_file(const fs::path& path) {
  Stamp now = stamp(path);
  if (!file_ || file_->first != now) file_.emplace(std::move(now), runtime::read_model_file(path));
  return file_->second;
}

std::uint64_t ModelFileCache::content_hash(const fs::path& path) {
  Stamp now = stamp(path);
  if (!hash_ || hash_->first != now) hash_.emplace(std::move(now), fnv1a(path));
  return hash_->second;
}

bool ModelFileCache::exists(const fs::path& path) const {
  return fs::exists(path);
}

}  // namespace yolo::daemon
