// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <vector>

#include "tracking/vocabulary.h"

namespace yolo::daemon {

// Object event kinds as bits (bit per kind): what publish() tests on the inference thread, and
// the store's thread too, without a list to walk.
inline unsigned kind_bits(const std::vector<tracking::ObjectEventKind>& kinds) {
  unsigned bits = 0;
  for (const tracking::ObjectEventKind kind : kinds) bits |= 1u << static_cast<unsigned>(kind);
  return bits;
}

inline bool has_kind(unsigned bits, tracking::ObjectEventKind kind) {
  return (bits & (1u << static_cast<unsigned>(kind))) != 0;
}

}  // namespace yolo::daemon
