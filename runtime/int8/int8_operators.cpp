// SPDX-License-Identifier: Apache-2.0
#include "runtime/int8/int8_operators.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace yolo::runtime {

const Int8Support* find_int8_operator(std::string_view op) {
  const ops::OpSpec* spec = ops::find_op("", std::string(op));
  return spec ? spec->int8() : nullptr;
}

std::string quantized_operator_list() {
  std::vector<std::pair<Int8Lowering, std::string>> quantized;
  for (const auto& [op, spec] : ops::ops_with_int8()) {
    if (spec->int8()->quantized_inputs != QuantizedInputs::kNone) {
      quantized.emplace_back(spec->int8()->lowering, op);
    }
  }
  std::sort(quantized.begin(), quantized.end());
  std::string list;
  for (const auto& entry : quantized) list += (list.empty() ? "" : ", ") + entry.second;
  return list;
}

}  // namespace yolo::runtime
