// SPDX-License-Identifier: Apache-2.0
#include "daemon/base/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "os/unique_fd.h"

namespace yolo::daemon {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kPartial = ".partial";

[[noreturn]] void fail(int error, const std::string& what, const fs::path& path) {
  throw std::system_error(error, std::generic_category(), what + " " + path.string());
}

}  // namespace

void write_file_atomically(const fs::path& path, std::string_view bytes) {
  const fs::path tmp = path.string() + std::string(kPartial);
  {
    os::UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (!fd.valid()) fail(errno, "cannot create", tmp);
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const int error = n < 0 ? errno : ENOSPC;
        ::unlink(tmp.c_str());
        fail(error, "cannot write", tmp);
      }
      done += static_cast<std::size_t>(n);
    }
    // On the disk before the rename makes it the file: a power cut then leaves the old or the
    // new content, never an empty file under the real name.
    if (::fsync(fd.get()) != 0) {
      const int error = errno;
      ::unlink(tmp.c_str());
      fail(error, "cannot flush", tmp);
    }
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(tmp.c_str());
    fail(error, "cannot rename to", path);
  }
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (os::UniqueFd d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)); d.valid()) {
    // The rename itself is on the disk once the folder is flushed; a failure here loses nothing
    // already written.
    ::fsync(d.get());
  }
}

bool is_partial_file(const fs::path& path) {
  return path.filename().string().ends_with(kPartial);
}

int remove_partial_files(const fs::path& dir) {
  std::error_code ec;
  int removed = 0;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (is_partial_file(entry.path()) && fs::remove(entry.path(), ec)) ++removed;
  }
  return removed;
}

}  // namespace yolo::daemon
