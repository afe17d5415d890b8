// SPDX-License-Identifier: Apache-2.0
#include "config/credential.h"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace yolo::config {

namespace fs = std::filesystem;

namespace {

// No 0/o, 1/l: the password is read off a terminal and typed on a phone.
constexpr char kAlphabet[] = "abcdefghijkmnpqrstuvwxyz23456789";

std::string random_password() {
  unsigned char bytes[20];
  for (std::size_t got = 0; got < sizeof bytes;) {
    const ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(std::string("no random numbers: ") + std::strerror(errno));
    got += static_cast<std::size_t>(n);
  }
  std::string text;
  for (std::size_t i = 0; i < sizeof bytes; ++i) {
    if (i > 0 && i % 5 == 0) text += '-';
    text += kAlphabet[bytes[i] % 32];  // 256 is a multiple of 32: no bias
  }
  return text;
}

}  // namespace

fs::path state_dir(const std::string& given) {
  if (!given.empty()) return fs::absolute(given);
  if (const char* env = std::getenv("STATE_DIRECTORY"); env && *env) {
    const std::string dirs = env;
    return dirs.substr(0, dirs.find(':'));
  }
  if (geteuid() == 0) return "/var/lib/yolo-edge";
  if (const char* xdg = std::getenv("XDG_STATE_HOME"); xdg && *xdg) {
    return fs::path(xdg) / "yolo-edge";
  }
  const char* home = std::getenv("HOME");
  return fs::path(home && *home ? home : "/tmp") / ".local" / "state" / "yolo-edge";
}

fs::path credential_file(const fs::path& state_dir) {
  return state_dir / "http-password";
}

std::optional<std::string> read_credential(const fs::path& dir) {
  std::ifstream in(credential_file(dir));
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  if (line.empty()) return std::nullopt;
  return line;
}

std::string load_or_create_credential(const fs::path& dir, bool* created) {
  if (created) *created = false;
  if (auto existing = read_credential(dir)) return *existing;
  const fs::path file = credential_file(dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  const std::string password = random_password();
  // O_EXCL: a second daemon (or a restart racing this one) keeps the first password.
  const int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST) {
      if (auto raced = read_credential(dir)) return *raced;
    }
    throw std::runtime_error("cannot create the live view's password file " + file.string() + ": " +
                             std::strerror(errno) +
                             "; set http.password in the config, or make the folder writable "
                             "for the daemon's user");
  }
  const std::string line = password + "\n";
  const bool written = write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  close(fd);
  if (!written) {
    fs::remove(file, ec);
    throw std::runtime_error("cannot write the live view's password file " + file.string());
  }
  if (created) *created = true;
  return password;
}

}  // namespace yolo::config
