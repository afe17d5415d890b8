// SPDX-License-Identifier: Apache-2.0
// config/address_list.cpp: http.metrics_allow's addresses and networks, IPv4 and IPv6.
#include "config/address_list.h"

#include <gtest/gtest.h>

namespace yolo::config {
namespace {

std::vector<Network> parsed(std::string_view text) {
  std::string error;
  const auto list = parse_address_list(text, &error);
  EXPECT_TRUE(list) << text << ": " << error;
  return list.value_or(std::vector<Network>{});
}

bool allowed(const std::vector<Network>& list, std::string_view address) {
  const auto a = parse_address(address);
  EXPECT_TRUE(a) << address;
  for (const Network& n : list) {
    if (a && n.contains(*a)) return true;
  }
  return false;
}

TEST(AddressList, AddressesAndNetworksOfBothFamilies) {
  const auto list = parsed(" 127.0.0.1 , 192.168.1.0/24,::1, fd00::/8,10.0.0.0/8");
  ASSERT_EQ(list.size(), 5u);
  EXPECT_TRUE(allowed(list, "127.0.0.1"));
  EXPECT_FALSE(allowed(list, "127.0.0.2"));
  EXPECT_TRUE(allowed(list, "192.168.1.77"));
  EXPECT_FALSE(allowed(list, "192.168.2.1"));
  EXPECT_TRUE(allowed(list, "10.200.3.4"));
  EXPECT_TRUE(allowed(list, "::1"));
  EXPECT_TRUE(allowed(list, "fd12:3456::1"));
  EXPECT_FALSE(allowed(list, "fe80::1"));
  EXPECT_FALSE(allowed(list, "::2"));
}

TEST(AddressList, AnIpv4NetworkDoesNotMatchIpv6AndZeroPrefixMatchesItsFamily) {
  const auto v4 = parsed("0.0.0.0/0");
  EXPECT_TRUE(allowed(v4, "203.0.113.9"));
  EXPECT_FALSE(allowed(v4, "2001:db8::1"));
  const auto v6 = parsed("::/0");
  EXPECT_TRUE(allowed(v6, "2001:db8::1"));
  EXPECT_TRUE(allowed(v6, "203.0.113.9")) << "IPv4 is held as IPv4-mapped IPv6";
}

TEST(AddressList, EmptyIsNobodyAndBadItemsAreNamed) {
  EXPECT_TRUE(parsed("").empty());
  EXPECT_TRUE(parsed("  ").empty());
  for (const char* bad : {"localhost", "1.2.3", "10.0.0.0/33", "::1/129", "10.0.0.0/", "1.2.3.4/x",
                          "127.0.0.1,, ::1"}) {
    std::string error;
    EXPECT_FALSE(parse_address_list(bad, &error)) << bad;
    EXPECT_NE(error.find("is not an address or network"), std::string::npos)
        << bad << ": " << error;
  }
}

}  // namespace
}  // namespace yolo::config
