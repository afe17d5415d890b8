// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>
#include <type_traits>

namespace yolo::runtime {

// A shape as messages write it, "[1,3,640,640]", from any range of dims: integers (Shape, spans,
// XNNPACK's size_t dims, an ONNX tensor's dims) or text (the named dims of a declared input,
// "batch"). With `separator` ", " it is "[1, 3, 640, 640]", the form of `yolo-edge inspect`'s
// table and of the model checks' problems, which their tests pin.
template <typename Dims>
std::string shape_text(const Dims& dims, std::string_view separator = ",") {
  std::string text = "[";
  bool first = true;
  for (const auto& d : dims) {
    if (!first) text += separator;
    first = false;
    if constexpr (std::is_convertible_v<decltype(d), std::string_view>) {
      text += d;
    } else {
      text += std::to_string(d);
    }
  }
  return text + "]";
}

}  // namespace yolo::runtime
