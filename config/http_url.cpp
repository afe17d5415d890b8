// SPDX-License-Identifier: Apache-2.0
#include "config/http_url.h"

#include <charconv>

namespace yolo::config {

std::string HttpUrl::origin() const {
  const bool v6 = host.find(':') != std::string::npos;
  return std::string(https ? "https://" : "http://") + (v6 ? "[" + host + "]" : host) + ":" +
         std::to_string(port);
}

std::optional<HttpUrl> parse_http_url(std::string_view text, std::string* error) {
  const auto fail = [&](std::string_view what) -> std::optional<HttpUrl> {
    if (error) *error = std::string(1, '\'').append(text).append("' ").append(what);
    return std::nullopt;
  };
  HttpUrl url;
  std::string_view rest = text;
  if (rest.starts_with("https://")) {
    url.https = true;
    rest.remove_prefix(8);
  } else if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else {
    return fail(
        "is not an http:// or https:// URL: write e.g. https://example.com/hook, or \"\" "
        "to turn it off");
  }
  const std::size_t path_at = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, path_at);
  // A fragment stays with the client; a query without a path gets the root's.
  std::string_view target = path_at == std::string_view::npos ? "" : rest.substr(path_at);
  target = target.substr(0, target.find('#'));
  url.target = target.starts_with("/") ? std::string(target) : std::string(1, '/').append(target);
  if (url.target.find_first_of(" \t\r\n") != std::string::npos) {
    return fail("has white space in its path: write it as %20");
  }
  if (authority.find('@') != std::string_view::npos) {
    return fail(
        "has credentials (user:password@) in it, which the status and logs would show: "
        "put a token in the path or query instead");
  }
  std::string_view port_text;
  if (authority.starts_with("[")) {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return fail("has an IPv6 address without its closing ]");
    url.host = std::string(authority.substr(1, close - 1));
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty() && !after.starts_with(":"))
      return fail("has text after its ]: write [::1]:8080");
    if (!after.empty()) port_text = after.substr(1);
  } else {
    const std::size_t colon = authority.rfind(':');
    url.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
    if (url.host.find(':') != std::string::npos) {
      return fail("has an IPv6 address without brackets: write http://[::1]:8080/hook");
    }
  }
  if (url.host.empty()) return fail("has no host: write e.g. http://192.168.1.10:8123/hook");
  if (url.host.find_first_of(" \t\r\n/") != std::string::npos) {
    return fail("has white space in its host");
  }
  url.port = url.https ? 443 : 80;
  if (!port_text.empty()) {
    const char* last = port_text.data() + port_text.size();
    const auto [end, ec] = std::from_chars(port_text.data(), last, url.port);
    if (ec != std::errc() || end != last || url.port < 1 || url.port > 65535) {
      return fail("has port '" + std::string(port_text) + "': use a number from 1 to 65535");
    }
  }
  return url;
}

}  // namespace yolo::config
