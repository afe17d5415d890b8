// SPDX-License-Identifier: Apache-2.0
#pragma once

// Makes permission bits count for this thread even when tests run as root: root reads any file
// through CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH, so a chmod 000 file would still open. The
// capabilities are dropped from the effective set only, and restored afterwards.
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace yolo::telemetry::test {

class WithoutFileOverride {
 public:
  WithoutFileOverride() {
    EXPECT_EQ(::syscall(SYS_capget, &header_, saved_), 0);
    __user_cap_data_struct dropped[2] = {saved_[0], saved_[1]};
    for (int cap : {CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH}) {
      dropped[cap / 32].effective &= ~(1u << (cap % 32));
    }
    EXPECT_EQ(::syscall(SYS_capset, &header_, dropped), 0);
  }
  ~WithoutFileOverride() { ::syscall(SYS_capset, &header_, saved_); }
  WithoutFileOverride(const WithoutFileOverride&) = delete;
  WithoutFileOverride& operator=(const WithoutFileOverride&) = delete;

 private:
  __user_cap_header_struct header_{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct saved_[2]{};
};

}  // namespace yolo::telemetry::test
