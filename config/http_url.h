// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace yolo::config {

// An http:// or https:// URL as webhook.url holds it, split the way an HTTP client takes it.
struct HttpUrl {
  bool https = false;
  // A name, an IPv4 address, or an IPv6 address without its brackets.
  std::string host;
  int port = 0;
  // The path and query, "/" when the URL has none.
  std::string target;

  // "https://host:port" (brackets around an IPv6 host), what a client connects to.
  std::string origin() const;
  bool operator==(const HttpUrl&) const = default;
};

// `text` as an HTTP URL; on anything else nothing, and `error` says what is wrong and what to
// write instead. Credentials in the URL (user:password@) are refused: they would be shown in the
// status and logs.
std::optional<HttpUrl> parse_http_url(std::string_view text, std::string* error);

}  // namespace yolo::config
