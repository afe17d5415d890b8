// SPDX-License-Identifier: Apache-2.0
// ModelFileCache: what a model file says and the hash of its contents, read again only when the
// file changes (daemon/model/model_files.cpp). Real files in a scratch folder.
#include "daemon/model/model_files.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/runtime/test_model_builder.h"
#include "tests/support/temp_folder.h"

namespace yolo::daemon {
namespace {

namespace fs = std::filesystem;

// A one-node model whose input is 1x3x`side`x`side`, written to `path`.
void write_model(const fs::path& path, int side) {
  test::ModelBuilder b;
  b.input("images", {1, 3, side, side});
  b.node("Relu", {"images"}, {"out"});
  b.output("out");
  std::ofstream out(path, std::ios::binary);
  b.proto().SerializeToOstream(&out);
}

// Rewrites `path` as a model of `side` with the modification time it had: a change the cache
// cannot see when the size stays the same too.
void rewrite_unseen(const fs::path& path, int side) {
  const fs::file_time_type mtime = fs::last_write_time(path);
  write_model(path, side);
  fs::last_write_time(path, mtime);
}

TEST(ModelFileCache, ReadsAModelFileAgainOnlyWhenItChanges) {
  test::TempFolder folder;
  const fs::path model = folder.path() / "m.onnx";
  write_model(model, 32);
  ModelFileCache cache;
  EXPECT_EQ(cache.model_file(model).path, model);
  EXPECT_EQ(cache.model_file(model).precision, runtime::Precision::kFp32);
  EXPECT_EQ(cache.model_file(model).input, runtime::Shape({1, 3, 32, 32}));

  // 33 is as many bytes as 32: same size, same time, what was read stands.
  rewrite_unseen(model, 33);
  EXPECT_EQ(cache.model_file(model).input, runtime::Shape({1, 3, 32, 32}));
  // A new time is a new file.
  fs::last_write_time(model, fs::last_write_time(model) + std::chrono::seconds(1));
  EXPECT_EQ(cache.model_file(model).input, runtime::Shape({1, 3, 33, 33}));
  // So is a new size.
  write_model(model, 640);
  EXPECT_EQ(cache.model_file(model).input, runtime::Shape({1, 3, 640, 640}));
}

TEST(ModelFileCache, TheHashFollowsTheContents) {
  test::TempFolder folder;
  const fs::path model = folder.path() / "m.onnx";
  const fs::path copy = folder.path() / "copy.onnx";
  write_model(model, 32);
  write_model(copy, 32);
  ModelFileCache cache;
  const std::uint64_t first = cache.content_hash(model);
  EXPECT_EQ(cache.content_hash(copy), first);

  // Back to `model` (the cache keeps one file), then a change it cannot see.
  EXPECT_EQ(cache.content_hash(model), first);
  rewrite_unseen(model, 33);
  EXPECT_EQ(cache.content_hash(model), first);
  fs::last_write_time(model, fs::last_write_time(model) + std::chrono::seconds(1));
  EXPECT_NE(cache.content_hash(model), first);
}

TEST(ModelFileCache, AMissingFileThrowsAndDoesNotExist) {
  test::TempFolder folder;
  const fs::path missing = folder.path() / "missing.onnx";
  ModelFileCache cache;
  EXPECT_FALSE(cache.exists(missing));
  EXPECT_THROW(cache.model_file(missing), fs::filesystem_error);
  EXPECT_THROW(cache.content_hash(missing), fs::filesystem_error);
  write_model(missing, 32);
  EXPECT_TRUE(cache.exists(missing));
}

}  // namespace
}  // namespace yolo::daemon
