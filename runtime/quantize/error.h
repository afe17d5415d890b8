// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <stdexcept>

namespace yolo::runtime {

// Bad input to the quantizer (no frames, already quantized, not a detector, unwritable output):
// the message says what and where, and what to do. The CLI maps it to exit status 2.
class QuantizeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace yolo::runtime
