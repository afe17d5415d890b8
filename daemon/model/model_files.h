// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

#include "runtime/engine/engine.h"

namespace yolo::daemon {

// What the model planner asks of the files: an interface, so the planner stays a function of the
// config and these answers, and its tests answer from memory.
class ModelFiles {
 public:
  virtual ~ModelFiles() = default;

  // What `path` is (static INT8 or not, its input). Throws what reading throws (a file that is
  // missing or not ONNX).
  virtual const runtime::ModelFile& model_file(const std::filesystem::path& path) = 0;
  // A hash of the file's contents: enough to tell two versions of a model apart.
  virtual std::uint64_t content_hash(const std::filesystem::path& path) = 0;
  virtual bool exists(const std::filesystem::path& path) const = 0;
};

// The files as they are on disk. The manager plans every tick: what a file says and its hash are
// read again only when the file changes (its size or modification time).
class ModelFileCache final : public ModelFiles {
 public:
  const runtime::ModelFile& model_file(const std::filesystem::path& path) override;
  std::uint64_t content_hash(const std::filesystem::path& path) override;
  bool exists(const std::filesystem::path& path) const override;

 private:
  // Which version of a file an entry was read from.
  struct Stamp {
    std::filesystem::path path;
    std::uintmax_t size = 0;
    std::filesystem::file_time_type mtime{};

    bool operator==(const Stamp&) const = default;
  };
  static Stamp stamp(const std::filesystem::path& path);

  std::optional<std::pair<Stamp, runtime::ModelFile>> file_;
  std::optional<std::pair<Stamp, std::uint64_t>> hash_;
};

}  // namespace yolo::daemon
