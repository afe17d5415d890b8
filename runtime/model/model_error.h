// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <stdexcept>
#include <string>

namespace yolo::runtime {

// A model file that cannot be used: unreadable, not ONNX, cut short, or using something the
// runtime does not support. The message names the file (and node or op where there is one) and
// says what to do; the CLI maps it to exit status 2.
class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace yolo::runtime
