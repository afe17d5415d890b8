// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/http/http_access.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace yolo::daemon {

namespace fs = std::filesystem;

namespace {

// Failures older than this are forgotten: a typo next week starts again at no delay.
constexpr auto kFailureMemory = std::chrono::minutes(15);
constexpr std::string_view kBearer = "Bearer ";
constexpr std::string_view kBasic = "Basic ";

// The secret an Authorization header carries: a bearer token, or the password of HTTP Basic
// (any user name), which VLC, Home Assistant's MJPEG camera and `http://user:pass@host/` URLs send.
std::optional<std::string> secret_of(std::string_view authorization) {
  if (authorization.size() > kBearer.size() && authorization.starts_with(kBearer)) {
    return std::string(authorization.substr(kBearer.size()));
  }
  if (authorization.size() <= kBasic.size() || !authorization.starts_with(kBasic)) {
    return std::nullopt;
  }
  const std::string_view encoded = authorization.substr(kBasic.size());
  if (encoded.size() % 4 != 0 || encoded.size() > 1024) return std::nullopt;
  std::string decoded(encoded.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(decoded.data()),
                                reinterpret_cast<const unsigned char*>(encoded.data()),
                                static_cast<int>(encoded.size()));
  if (n < 0) return std::nullopt;
  // EVP_DecodeBlock counts the padding's zero bytes in.
  std::size_t size = static_cast<std::size_t>(n);
  if (encoded.ends_with("==")) {
    size -= 2;
  } else if (encoded.ends_with('=')) {
    size -= 1;
  }
  decoded.resize(size);
  const std::size_t colon = decoded.find(':');
  if (colon == std::string::npos) return std::nullopt;
  return decoded.substr(colon + 1);
}

std::int64_t wall_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string random_hex(std::size_t bytes) {
  std::vector<unsigned char> raw(bytes);
  if (RAND_bytes(raw.data(), static_cast<int>(raw.size())) != 1) {
    throw std::runtime_error("no random numbers for a session");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text;
  for (unsigned char b : raw) {
    text += kHex[b >> 4];
    text += kHex[b & 15];
  }
  return text;
}

}  // namespace

bool same_secret(std::string_view a, std::string_view b) {
  // Comparing digests makes the time independent of the lengths as well as the bytes.
  unsigned char da[EVP_MAX_MD_SIZE];
  unsigned char db[EVP_MAX_MD_SIZE];
  unsigned int na = 0;
  unsigned int nb = 0;
  if (EVP_Digest(a.data(), a.size(), da, &na, EVP_sha256(), nullptr) != 1 ||
      EVP_Digest(b.data(), b.size(), db, &nb, EVP_sha256(), nullptr) != 1 || na != nb) {
    return false;
  }
  return CRYPTO_memcmp(da, db, na) == 0;
}

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &n, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("SHA-256 failed");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text;
  for (unsigned int i = 0; i < n; ++i) {
    text += kHex[digest[i] >> 4];
    text += kHex[digest[i] & 15];
  }
  return text;
}

HttpAccess::HttpAccess(fs::path sessions_file) : file_(std::move(sessions_file)) {
  load_sessions();
}

void HttpAccess::configure(const config::HttpConfig& http, std::string password) {
  std::lock_guard lock(mutex_);
  const std::string under = sha256_hex(password);
  if (!sessions_for_.empty() && under != sessions_for_ && !sessions_.empty()) {
    // A new password is meant to lock out whoever knew the old one.
    sessions_.clear();
    sessions_for_ = under;
    save_sessions();
  }
  sessions_for_ = under;
  http_ = http;
  password_ = std::move(password);
  // The schema has checked the list; one that did not parse would let no address in.
  metrics_allow_ = config::parse_address_list(http.metrics_allow, nullptr)
                       .value_or(std::vector<config::Network>{});
}

config::HttpAuth HttpAccess::mode() const {
  std::lock_guard lock(mutex_);
  return http_.auth;
}

bool HttpAccess::valid_session(std::string_view cookie) const {
  if (cookie.empty()) return false;
  const auto it = sessions_.find(sha256_hex(cookie));
  return it != sessions_.end() && it->second > wall_seconds();
}

bool HttpAccess::valid_credential(std::string_view authorization) const {
  const std::optional<std::string> given = secret_of(authorization);
  if (!given || given->empty()) return false;
  // Both compared, whatever the first gives: the time says nothing about which one matched.
  const bool password = http_.auth == config::HttpAuth::kPassword && !password_.empty() &&
                        same_secret(*given, password_);
  const bool token = !http_.token.empty() && same_secret(*given, http_.token);
  return password || token;
}

HttpAccess::Grant HttpAccess::grant(std::string_view cookie, std::string_view authorization) const {
  std::lock_guard lock(mutex_);
  if (http_.auth == config::HttpAuth::kNone) {
    return valid_credential(authorization) ? Grant::kControl : Grant::kView;
  }
  return valid_session(cookie) || valid_credential(authorization) ? Grant::kControl
                                                                  : Grant::kNothing;
}

bool HttpAccess::may_scrape(const Address& address, std::string_view cookie,
                            std::string_view authorization) const {
  {
    std::lock_guard lock(mutex_);
    if (http_.auth == config::HttpAuth::kNone) return true;
    for (const config::Network& n : metrics_allow_) {
      if (n.contains(address)) return true;
    }
  }
  return grant(cookie, authorization) != Grant::kNothing;
}

std::chrono::milliseconds HttpAccess::login_delay(int failures) {
  if (failures <= 0) return std::chrono::milliseconds(0);
  return std::min<std::chrono::milliseconds>(
      kMaxLoginDelay, std::chrono::milliseconds(1000) * (1LL << std::min(failures - 1, 10)));
}

HttpAccess::Login HttpAccess::login(std::string_view password, const Address& address) {
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  for (auto it = failures_.begin(); it != failures_.end();) {
    it = now - it->second.last > kFailureMemory ? failures_.erase(it) : std::next(it);
  }
  Login result;
  Failures& f = failures_[address];
  // Every attempt after a failure waits, the right one too: guessing goes no faster for it.
  result.delay = login_delay(f.count);
  const bool right = http_.auth == config::HttpAuth::kPassword && !password_.empty() &&
                     same_secret(password, password_);
  if (!right) {
    ++f.count;
    f.last = now;
    ++failed_total_;
    result.failures = f.count;
    return result;
  }
  failures_.erase(address);
  result.ok = true;
  result.session = random_hex(32);
  const std::int64_t now_s = wall_seconds();
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    it = it->second <= now_s ? sessions_.erase(it) : std::next(it);
  }
  while (sessions_.size() >= kMaxSessions) {
    sessions_.erase(
        std::min_element(sessions_.begin(), sessions_.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; }));
  }
  sessions_[sha256_hex(result.session)] =
      now_s + std::chrono::duration_cast<std::chrono::seconds>(kSessionLife).count();
  save_sessions();
  return result;
}

void HttpAccess::logout(std::string_view cookie) {
  if (cookie.empty()) return;
  std::lock_guard lock(mutex_);
  if (sessions_.erase(sha256_hex(cookie)) > 0) save_sessions();
}

std::string HttpAccess::set_cookie(const std::string& session) const {
  std::lock_guard lock(mutex_);
  // Lax, not Strict: a link to the page from elsewhere (a dashboard) finds the session, while a
  // POST from another site (a forged precision switch) goes without it.
  std::string cookie = std::string(kCookie) + "=" + session + "; Path=/; HttpOnly; SameSite=Lax";
  cookie += session.empty()
                ? "; Max-Age=0"
                : "; Max-Age=" +
                      std::to_string(
                          std::chrono::duration_cast<std::chrono::seconds>(kSessionLife).count());
  if (http_.tls) cookie += "; Secure";
  return cookie;
}

std::uint64_t HttpAccess::failed_logins() const {
  std::lock_guard lock(mutex_);
  return failed_total_;
}

std::size_t HttpAccess::sessions() const {
  std::lock_guard lock(mutex_);
  return sessions_.size();
}

void HttpAccess::load_sessions() {
  if (file_.empty()) return;
  std::ifstream in(file_);
  if (!in) return;
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (!j.is_object() || !j.contains("password") || !j.contains("sessions")) return;
  sessions_for_ = j["password"].get<std::string>();
  for (const auto& [hash, end] : j["sessions"].items()) {
    if (end.is_number_integer()) sessions_[hash] = end.get<std::int64_t>();
  }
}

void HttpAccess::save_sessions() const {
  if (file_.empty()) return;
  // Written beside and renamed over: a crash leaves the old file or the new, never half of one.
  const fs::path tmp = file_.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) return;  // sessions then last until a restart: nothing else depends on the file
    out << nlohmann::json{{"password", sessions_for_}, {"sessions", sessions_}}.dump() << "\n";
  }
  std::error_code ec;
  fs::permissions(tmp, fs::perms::owner_read | fs::perms::owner_write, ec);
  fs::rename(tmp, file_, ec);
}

}  // namespace yolo::daemon
