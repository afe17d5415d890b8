// SPDX-License-Identifier: Apache-2.0
// The http section: the live view, the status API and the metrics.
#include <charconv>
#include <string>

#include "config/address_list.h"
#include "config/schema_rows.h"
#include "config/sections/sections.h"

namespace yolo::config::section_files {

using namespace rows;

namespace {

// HOST:PORT, HOST may be a name, an IPv4 address or a bracketed IPv6 address; "" turns it off.
std::string host_and_port(const Value& v) {
  const std::string& s = std::get<std::string>(v);
  if (s.empty()) return "";
  const std::string hint = "'" + s +
                           "' is not HOST:PORT: use e.g. 127.0.0.1:8080 (this machine only), "
                           "0.0.0.0:8080 (every interface), or \"\" to turn HTTP off";
  const std::size_t colon = s.rfind(':');
  if (colon == std::string::npos || colon == 0) return hint;
  const std::string host = s.substr(0, colon);
  if (host.front() == '[' ? host.back() != ']' : host.find(':') != std::string::npos) return hint;
  int port = 0;
  const char* first = s.data() + colon + 1;
  const char* last = s.data() + s.size();
  const auto [end, ec] = std::from_chars(first, last, port);
  if (ec != std::errc() || end != last || first == last || port < 0 || port > 65535) {
    return "port in '" + s + "' must be a number from 0 to 65535, e.g. " + host + ":8080";
  }
  return "";
}

std::string password_length(const Value& v) {
  const std::string& s = std::get<std::string>(v);
  if (!s.empty() && s.size() < 8) {
    return "is " + std::to_string(s.size()) +
           " characters: use at least 8 (or leave it empty to have one made)";
  }
  return "";
}

std::string address_list(const Value& v) {
  std::string error;
  return parse_address_list(std::get<std::string>(v), &error) ? "" : error;
}

}  // namespace

SectionSpec http_spec() {
  return {"http", "The live view in a browser, the status API and Prometheus metrics."};
}

void add_http_fields(std::vector<FieldSpec>& t) {
  const SectionAdder<HttpConfig> add{t, &Config::http};
  add("listen", &HttpConfig::listen, "0.0.0.0:8080", {.rule = host_and_port},
      "HOST:PORT of the page, the MJPEG stream, the API and /metrics: 0.0.0.0:8080 serves every "
      "device on the network (behind a login, http.auth), 127.0.0.1:8080 this machine only, port 0 "
      "a free port (named in the log), empty turns HTTP off.");
  add("auth", &HttpConfig::auth, HttpAuth::kPassword, {.choices = {"password", "none"}},
      "password: the page, stream, snapshot, events and API need a login (a session cookie) or "
      "'Authorization: Bearer <password>'; none: anyone who can reach http.listen watches (only on "
      "a network you trust).");
  add("password", &HttpConfig::password, "", {.rule = password_length},
      "The live view's password; empty: one made at first start and kept in the state folder (sudo "
      "yolo-edge config --show-credential prints it).");
  add("token", &HttpConfig::token, "",
      "Another bearer token for scripts: it may view and POST /api/precision and /api/reload. With "
      "auth: none it alone allows those POSTs (empty: off).");
  add("metrics_allow", &HttpConfig::metrics_allow, "127.0.0.1, ::1", {.rule = address_list},
      "Addresses or networks (comma-separated, e.g. \"127.0.0.1, 192.168.1.0/24\") whose "
      "Prometheus may scrape /metrics without a login; others send the password or token as a "
      "bearer token.");
  add("tls", &HttpConfig::tls, false,
      "Serve HTTPS: the password and the stream cross the network encrypted. Without tls_cert and "
      "tls_key a self-signed certificate is made in the state folder at first start (its "
      "fingerprint is logged).");
  add("tls_cert", &HttpConfig::tls_cert, "",
      "The server certificate (PEM, with its chain) for tls: true; empty: the self-signed one.");
  add("tls_key", &HttpConfig::tls_key, "",
      "The certificate's private key (PEM), readable by the daemon's user.");
  add("max_fps", &HttpConfig::max_fps, 5.0, {.min = 0.1, .max = 60},
      "Most annotated frames per second encoded for the stream and the snapshot (once per frame "
      "for every viewer).");
  add("jpeg_quality", &HttpConfig::jpeg_quality, 80, {.min = 1, .max = 100},
      "JPEG quality of the annotated stream, 1 (smallest) to 100 (best).");
  add("max_viewers", &HttpConfig::max_viewers, 4, {.min = 1, .max = 64},
      "Most MJPEG and event-stream clients at once; more get 503, so the page, the API and "
      "/metrics always answer.");
  add("max_clients", &HttpConfig::max_clients, 256, {.min = 16, .max = 65536},
      "Most connections at once from everyone. When all are taken, the one slowest to send its "
      "request (a slow client) makes room for a new one; when all are being answered, new ones are "
      "refused. A waiting connection costs 10-20 KiB, not a thread: 256 of them about 5 MB.");
  add("max_clients_per_address", &HttpConfig::max_clients_per_address, 32, {.min = 2, .max = 65536},
      "Most connections at once from one address (a browser opens a few; a reverse proxy may need "
      "more), so one host cannot take them all.");
}

void check_http(const HttpConfig& h, Problems& problems) {
  if (h.tls_cert.empty() == h.tls_key.empty()) return;
  const std::string key = h.tls_cert.empty() ? "http.tls_cert" : "http.tls_key";
  if (!problems.usable(key)) return;
  problems.add(key, problems.written_at(h.tls_cert.empty() ? "http.tls_key" : "http.tls_cert"),
               "http.tls_cert and http.tls_key go together: set both (PEM files), or neither and "
               "a self-signed certificate is made");
}

void check_http_files(const HttpConfig& h, Problems& problems) {
  if (!h.tls || h.tls_cert.empty() || h.tls_key.empty()) return;
  if (problems.usable("http.tls_cert")) {
    problems.require_file("http.tls_cert", h.tls_cert, "the server certificate (PEM)");
  }
  if (problems.usable("http.tls_key")) {
    problems.require_file("http.tls_key", h.tls_key, "the certificate's private key (PEM)");
  }
}

}  // namespace yolo::config::section_files
