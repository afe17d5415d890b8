// SPDX-License-Identifier: Apache-2.0
#include "config/address_list.h"

#include <arpa/inet.h>

#include <charconv>
#include <cstring>

namespace yolo::config {

namespace {

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

bool Network::contains(const std::array<std::uint8_t, 16>& other) const {
  int bits = prefix;
  for (std::size_t i = 0; i < 16 && bits > 0; ++i, bits -= 8) {
    const std::uint8_t mask = bits >= 8 ? 0xff : static_cast<std::uint8_t>(0xff << (8 - bits));
    if ((address[i] & mask) != (other[i] & mask)) return false;
  }
  return true;
}

std::optional<std::array<std::uint8_t, 16>> parse_address(std::string_view text) {
  const std::string s(text);
  std::array<std::uint8_t, 16> out{};
  in_addr v4{};
  if (inet_pton(AF_INET, s.c_str(), &v4) == 1) {
    out[10] = out[11] = 0xff;
    std::memcpy(out.data() + 12, &v4, 4);
    return out;
  }
  in6_addr v6{};
  if (inet_pton(AF_INET6, s.c_str(), &v6) == 1) {
    std::memcpy(out.data(), &v6, 16);
    return out;
  }
  return std::nullopt;
}

std::optional<std::vector<Network>> parse_address_list(std::string_view text, std::string* error) {
  std::vector<Network> list;
  while (!trimmed(text).empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view item = trimmed(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    const std::size_t slash = item.find('/');
    const std::string_view host = item.substr(0, slash);
    const auto address = parse_address(host);
    const bool v4 = host.find(':') == std::string_view::npos;
    Network n;
    bool ok = address.has_value();
    if (ok) {
      n.address = *address;
      n.prefix = 128;
      if (slash != std::string_view::npos) {
        const std::string_view bits = item.substr(slash + 1);
        int prefix = -1;
        const auto [end, ec] = std::from_chars(bits.data(), bits.data() + bits.size(), prefix);
        ok = ec == std::errc() && end == bits.data() + bits.size() && !bits.empty() &&
             prefix >= 0 && prefix <= (v4 ? 32 : 128);
        n.prefix = v4 ? 96 + prefix : prefix;
      }
    }
    if (!ok) {
      if (error) {
        // Built with append: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string.
        *error = std::string("'").append(item).append(
            "' is not an address or network: write addresses or networks separated by commas, "
            "e.g. \"127.0.0.1, 192.168.1.0/24, ::1\"");
      }
      return std::nullopt;
    }
    list.push_back(n);
  }
  return list;
}

}  // namespace yolo::config
