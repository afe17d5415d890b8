// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/metrics/metric_families.h"

#include <array>
#include <cstdint>

namespace yolo::daemon::metrics {

using prometheus::Counter;
using prometheus::Family;
using prometheus::Gauge;

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t length = lead < 0x80           ? 1
                               : (lead >> 5) == 0x6  ? 2
                               : (lead >> 4) == 0xE  ? 3
                               : (lead >> 3) == 0x1E ? 4
                                                     : 0;
    bool ok = length > 0 && i + length <= text.size();
    std::uint32_t code = length == 1 ? lead : lead & (0x7F >> length);
    for (std::size_t k = 1; ok && k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      ok = (next & 0xC0) == 0x80;
      code = (code << 6) | (next & 0x3F);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are not valid either.
    constexpr std::array<std::uint32_t, 5> kLeast = {0, 0, 0x80, 0x800, 0x10000};
    if (ok && length > 1) {
      ok = code >= kLeast[length] && code <= 0x10FFFF && !(code >= 0xD800 && code <= 0xDFFF);
    }
    if (ok) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

std::string help_text(std::string_view help) {
  std::string out;
  for (char c : valid_utf8(help)) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

Family<Counter>& counter_family(prometheus::Registry& registry, const std::string& name,
                                std::string_view help) {
  return prometheus::BuildCounter().Name(name).Help(help_text(help)).Register(registry);
}

Family<Gauge>& gauge_family(prometheus::Registry& registry, const std::string& name,
                            std::string_view help) {
  return prometheus::BuildGauge().Name(name).Help(help_text(help)).Register(registry);
}

}  // namespace yolo::daemon::metrics
