// SPDX-License-Identifier: Apache-2.0
#include "telemetry/kernel_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <fstream>
#include <sstream>

namespace yolo::telemetry {

namespace fs = std::filesystem;

namespace {

// Enough for any sysfs number in one read; /proc/stat grows the buffer once.
constexpr std::size_t kFirstBufferSize = 256;
// No kernel file we read comes near this; past it the read keeps what it got.
constexpr std::size_t kLargestBufferSize = 1 << 20;

}  // namespace

std::optional<KernelFile> KernelFile::open(const fs::path& path, std::error_code& error) {
  os::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    error.assign(errno, std::generic_category());
    return std::nullopt;
  }
  error.clear();
  return KernelFile(std::move(fd), path);
}

std::optional<KernelFile> KernelFile::open(const fs::path& path) {
  std::error_code ignored;
  return open(path, ignored);
}

KernelFile::KernelFile(os::UniqueFd fd, fs::path path)
    : fd_(std::move(fd)), path_(std::move(path)), buffer_(kFirstBufferSize, '\0') {}

std::optional<std::string_view> KernelFile::read() {
  while (true) {
    const ssize_t n = ::pread(fd_.get(), buffer_.data(), buffer_.size(), 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return std::nullopt;
    }
    const auto size = static_cast<std::size_t>(n);
    // A read that fills the buffer may have been cut short: read again, whole, from the start.
    if (size < buffer_.size() || buffer_.size() >= kLargestBufferSize) {
      return std::string_view(buffer_.data(), size);
    }
    buffer_.resize(buffer_.size() * 4);
  }
}

std::optional<std::int64_t> KernelFile::read_int(int base) {
  const std::optional<std::string_view> text = read();
  if (!text) return std::nullopt;
  return parse_int(*text, base);
}

std::string_view trim(std::string_view text) {
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

std::optional<std::int64_t> parse_int(std::string_view text, int base) {
  text = trim(text);
  if (base == 16 && (text.starts_with("0x") || text.starts_with("0X"))) text.remove_prefix(2);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) {
    return std::nullopt;
  }
  return value;
}

std::optional<double> parse_double(std::string_view text) {
  text = trim(text);
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) {
    return std::nullopt;
  }
  return value;
}

std::optional<std::string> read_trimmed(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return std::string(trim(text.str()));
}

std::vector<std::pair<int, fs::path>> numbered_entries(const fs::path& dir,
                                                       std::string_view prefix) {
  std::vector<std::pair<int, fs::path>> entries;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(prefix) || name.size() == prefix.size()) continue;
    const std::optional<std::int64_t> number =
        parse_int(std::string_view(name).substr(prefix.size()));
    // "intel-rapl:0:1" or "cpufreq" share a prefix with what we look for but are not numbered.
    if (!number || !std::isdigit(static_cast<unsigned char>(name[prefix.size()]))) continue;
    entries.emplace_back(static_cast<int>(*number), entry.path());
  }
  std::sort(entries.begin(), entries.end());
  return entries;
}

std::string open_failure(const fs::path& path, const std::error_code& error) {
  return path.string() + ": " + error.message();
}

}  // namespace yolo::telemetry
