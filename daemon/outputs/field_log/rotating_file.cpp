// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/field_log/rotating_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

namespace yolo::daemon {

namespace {

// What a user can do about each errno a log write meets.
std::string advice(int error) {
  switch (error) {
    case ENOSPC:
    case EDQUOT:
      return "free space on that file system, or lower logging.max_bytes or logging.max_files";
    case EROFS:
      return "the file system is mounted read-only: remount it read-write or set logging.dir to "
             "a folder on a writable one";
    case EACCES:
    case EPERM:
      return "give the daemon's user write access there, or set logging.dir to a folder it can "
             "write";
    case ENOTDIR:
    case EEXIST:
    case EISDIR:
    case ENOENT:
      return "a part of that path is not a folder: fix logging.dir";
    case EIO:
      return "the storage reports I/O errors: check the SD card or disk";
    case EFBIG:
      return "the file outgrew a size limit: lower logging.max_bytes";
    default:
      return "check the disk and logging.dir";
  }
}

// Whether `name` is `base` followed by "." and a number; the number goes to `number`.
bool is_rotated_name(const std::string& name, const std::string& base, long& number) {
  if (name.size() <= base.size() + 1 || !name.starts_with(base + ".")) return false;
  const std::string digits = name.substr(base.size() + 1);
  if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) {
    return false;
  }
  number = std::stol(digits);
  return true;
}

}  // namespace

std::string FileError::message() const {
  std::string text = "cannot " + operation + " " + path.string() + ": " +
                     std::error_code(error, std::generic_category()).message();
  if (const char* name = strerrorname_np(error)) text += std::string(" (") + name + ")";
  return text + "; " + advice(error);
}

RotatingFile::RotatingFile(RotationPolicy policy) : policy_(std::move(policy)) {}

void RotatingFile::set_policy(RotationPolicy policy) {
  close();
  policy_ = std::move(policy);
}

std::filesystem::path RotatingFile::path() const {
  return policy_.dir / policy_.name;
}

std::filesystem::path RotatingFile::rotated_path(int n) const {
  return policy_.dir / (policy_.name + "." + std::to_string(n));
}

void RotatingFile::close() {
  fd_.reset();
}

std::optional<FileError> RotatingFile::open() {
  std::error_code ec;
  std::filesystem::create_directories(policy_.dir, ec);
  if (ec) return FileError{"create the folder", policy_.dir, ec.value()};
  const auto file = path();
  // Read access only to look at the last byte.
  os::UniqueFd fd(::open(file.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0640));
  if (!fd.valid()) return FileError{"open", file, errno};
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) return FileError{"open", file, errno};
  size_ = info.st_size;
  ends_mid_line_ = false;
  if (S_ISREG(info.st_mode) && size_ > 0) {
    char last = '\n';
    if (::pread(fd.get(), &last, 1, size_ - 1) == 1) ends_mid_line_ = last != '\n';
  }
  folder_warning_.reset();
  if (::faccessat(AT_FDCWD, policy_.dir.c_str(), W_OK | X_OK, AT_EACCESS) != 0) {
    folder_warning_ = FileError{"create or rotate files in", policy_.dir, errno};
  }
  fd_ = std::move(fd);
  return std::nullopt;
}

std::optional<FileError> RotatingFile::delete_oldest() {
  std::error_code ec;
  std::filesystem::directory_iterator it(policy_.dir, ec);
  if (ec) return FileError{"list", policy_.dir, ec.value()};
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    long number = 0;
    if (!is_rotated_name(it->path().filename().string(), policy_.name, number)) continue;
    if (number < policy_.max_files) continue;
    if (::unlink(it->path().c_str()) != 0 && errno != ENOENT) {
      return FileError{"delete", it->path(), errno};
    }
  }
  if (ec) return FileError{"list", policy_.dir, ec.value()};
  return std::nullopt;
}

std::optional<FileError> RotatingFile::rotate() {
  close();
  if (auto error = delete_oldest()) return error;
  for (int n = policy_.max_files - 1; n >= 1; --n) {
    if (::rename(rotated_path(n).c_str(), rotated_path(n + 1).c_str()) != 0 && errno != ENOENT) {
      return FileError{"rotate", rotated_path(n), errno};
    }
  }
  const int moved = policy_.max_files >= 1 ? ::rename(path().c_str(), rotated_path(1).c_str())
                                           : ::unlink(path().c_str());
  if (moved != 0 && errno != ENOENT) return FileError{"rotate", path(), errno};
  return std::nullopt;
}

std::optional<FileError> RotatingFile::append(std::string_view line) {
  if (!fd_.valid()) {
    if (auto error = open()) return error;
  }
  const auto bytes = static_cast<std::int64_t>(line.size() + 1 + (ends_mid_line_ ? 1 : 0));
  if (size_ > 0 && size_ + bytes > policy_.max_bytes) {
    if (auto error = rotate()) return error;
    if (auto error = open()) return error;
  }
  std::string text;
  text.reserve(line.size() + 2);
  if (ends_mid_line_) text += '\n';
  text += line;
  text += '\n';
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd_.get(), text.data() + done, text.size() - done);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    // write() returning 0 for a regular file means no space was found.
    const int error = n < 0 ? errno : ENOSPC;
    if (done > 0 && ::ftruncate(fd_.get(), size_) != 0) {
      // The partial line stays; the next open() finds the file ending mid-line and starts the
      // next line on a fresh one.
    }
    close();
    return FileError{"write", path(), error};
  }
  size_ += static_cast<std::int64_t>(text.size());
  ends_mid_line_ = false;
  return std::nullopt;
}

std::optional<FileError> RotatingFile::sync() {
  if (fd_.valid() && ::fdatasync(fd_.get()) != 0) return FileError{"sync", path(), errno};
  return std::nullopt;
}

}  // namespace yolo::daemon
