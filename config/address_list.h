// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace yolo::config {

// One address or network of an allow list ("127.0.0.1", "192.168.1.0/24", "::1", "fd00::/8").
// IPv4 is held as an IPv4-mapped IPv6 address, so one comparison serves both families.
struct Network {
  std::array<std::uint8_t, 16> address{};
  int prefix = 128;  // bits that must match

  // Whether `address` (IPv6, or IPv4-mapped) lies in this network.
  bool contains(const std::array<std::uint8_t, 16>& address) const;
  bool operator==(const Network&) const = default;
};

// A comma-separated list of addresses and networks, as http.metrics_allow holds it; spaces around
// items are ignored and "" is the empty list. On an item that is neither, nothing and `error`
// says which item and what is accepted.
std::optional<std::vector<Network>> parse_address_list(std::string_view text, std::string* error);

// An IPv4 (as IPv4-mapped) or IPv6 address in the form Network::contains takes; nothing when
// `text` is not an address.
std::optional<std::array<std::uint8_t, 16>> parse_address(std::string_view text);

}  // namespace yolo::config
