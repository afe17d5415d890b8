// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/address_list.h"
#include "config/config.h"

namespace yolo::daemon {

// Who may do what over HTTP (docs/live-view.md, "Who may watch"). With http.auth: password
// (the default) everything needs a credential: a session cookie from POST /login with the
// password, or `Authorization: Bearer` (or HTTP Basic, any user name) with the password or
// http.token. /metrics is also open to the addresses of http.metrics_allow. With http.auth: none,
// viewing is open and only the POSTs that change the daemon need http.token. Failed logins are
// counted per address, and each next attempt from that address is answered later (1 s, doubling, at
// most 30 s). Sessions last 30 days and are kept in a file of the state folder (as hashes), so a
// phone stays logged in across restarts; a changed password ends them all. Thread-safe.
class HttpAccess {
 public:
  using Clock = std::chrono::steady_clock;
  using Address = std::array<std::uint8_t, 16>;

  static constexpr const char* kCookie = "yolo_edge_session";
  static constexpr std::chrono::hours kSessionLife{24 * 30};
  static constexpr std::size_t kMaxSessions = 64;
  static constexpr std::chrono::seconds kMaxLoginDelay{30};

  // What a request may do.
  enum class Grant { kNothing, kView, kControl };

  // `sessions_file`: where sessions are kept (empty: in memory only).
  explicit HttpAccess(std::filesystem::path sessions_file);

  // Takes http.* (auth, token, metrics_allow, tls) and the password in force: http.password, or
  // the one made at first start.
  void configure(const config::HttpConfig& http, std::string password);
  config::HttpAuth mode() const;

  // What a request with this cookie value (or "") and Authorization header (or "") from
  // `address` may do on a page, stream or API path.
  Grant grant(std::string_view cookie, std::string_view authorization) const;
  // Whether a scrape of /metrics from `address` with this Authorization header is allowed.
  bool may_scrape(const Address& address, std::string_view cookie,
                  std::string_view authorization) const;

  struct Login {
    bool ok = false;
    // The new session's cookie value (ok only).
    std::string session;
    // How long to wait before answering: failures from this address so far.
    std::chrono::milliseconds delay{0};
    // Failed attempts from this address in a row, this one included.
    int failures = 0;
  };
  // How long the answer to the next attempt waits after `failures` failed ones in a row.
  static std::chrono::milliseconds login_delay(int failures);
  // Checks a password typed at the login page, from `address`.
  Login login(std::string_view password, const Address& address);
  // Ends the session of this cookie value.
  void logout(std::string_view cookie);

  // The Set-Cookie value for a new session, or for ending one (empty `session`).
  std::string set_cookie(const std::string& session) const;

  // Failed logins since start, and sessions open now.
  std::uint64_t failed_logins() const;
  std::size_t sessions() const;

 private:
  bool valid_session(std::string_view cookie) const;
  bool valid_credential(std::string_view authorization) const;
  void load_sessions();
  void save_sessions() const;

  const std::filesystem::path file_;
  mutable std::mutex mutex_;
  config::HttpConfig http_;
  std::string password_;
  std::vector<config::Network> metrics_allow_;
  // SHA-256 of the password the sessions were opened under.
  std::string sessions_for_;
  // SHA-256 (hex) of each session's cookie value -> when it ends (wall clock, seconds).
  std::map<std::string, std::int64_t> sessions_;
  struct Failures {
    int count = 0;
    Clock::time_point last{};
  };
  std::map<Address, Failures> failures_;
  std::uint64_t failed_total_ = 0;
};

// Whether two secrets are equal, in a time that depends on neither.
bool same_secret(std::string_view a, std::string_view b);

// The bytes as lower-case hex of their SHA-256.
std::string sha256_hex(std::string_view bytes);

}  // namespace yolo::daemon
