// SPDX-License-Identifier: Apache-2.0
#pragma once

// A 256-entry byte table applied to a run of int8 values: the form every int8 activation function
// (SiLU, sigmoid, requantization) takes. AVX-512 VBMI does 64 values with two vpermi2b lookups
// and a blend where the CPU has it; aarch64 (the Pi) 16 values with four NEON tbl/tbx lookups;
// elsewhere, and for a tail shorter than the vector, a plain loop.

#include <array>
#include <cstddef>
#include <cstdint>

namespace yolo::runtime::kernels {

// out[i] = table[uint8_t(in[i])] for i < n; `in` and `out` may be the same buffer.
void lookup_s8(const std::array<std::int8_t, 256>& table, const std::int8_t* in, std::int8_t* out,
               std::size_t n);

}  // namespace yolo::runtime::kernels
