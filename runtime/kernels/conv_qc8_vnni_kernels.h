// SPDX-License-Identifier: Apache-2.0
#pragma once

// What ConvQC8Vnni (conv_qc8_vnni.cpp: checks, packing, planning) hands its AVX-512 VNNI kernels
// (conv_qc8_vnni_kernels.cpp) for one run. Only those two files include it.

#include <cstddef>
#include <cstdint>

#include "runtime/kernels/conv_qc8_vnni.h"

namespace yolo::runtime::kernels::qc8_vnni {

constexpr std::size_t kVector = 16;  // int32 lanes (output channels) in one zmm register
constexpr std::size_t kBlock = 64;   // output channels per block: four zmm accumulators per pixel
// Kernel rows of at most this many bytes (kernel width x channels) are read as one piece.
constexpr std::size_t kMaxRowPiece = 64;

// Whether the pixel-lane kernel (narrow_run) takes the inside runs of a layer, and how it loads a
// tap's groups of 4 inputs for 16 pixels: by byte permutes from the 128 bytes they span (the stem's
// 3 channels at stride 2, 8 channels at stride 1), or, for at most 16 channels, each pixel's into a
// 16-byte slot (one load for 16 channels at stride 1) and dword permutes. More input channels
// stay with the channel-vector kernel, whose broadcasts then serve many multiply-adds each (a
// gather instruction instead was slower).
enum class NarrowLoad : std::uint8_t { kNone, kBytes, kDwords };

// Everything one run needs, shared read-only by the pthreadpool tasks.
struct Job {
  const ConvQC8Geometry* g;
  const ConvQC8Quant* q;
  bool kernel_rows;
  NarrowLoad narrow;
  std::size_t taps, groups, blocks;
  std::size_t run_step;  // bytes between the taps of neighbouring output pixels of a row
  std::size_t in_h, in_w, out_h, out_w;
  const std::int8_t* input;
  std::size_t input_bytes;  // from `input` to the end of the last pixel
  std::int8_t* output;
  const std::int8_t* packed;
  const std::size_t* block_offset;
  const std::int32_t* bias;
  const float* scale;
  const std::int8_t* zero_pixel;
  const std::int8_t* table;  // 256 bytes or null
};

#if defined(__x86_64__)

// On the kernels and on the task's declaration alike: GCC takes a declaration with other target
// options for another version of the function.
#define YOLO_VNNI_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx512vbmi")))

// One pthreadpool task: pixels [start, start + count) for every output channel block; `context`
// is a Job.
YOLO_VNNI_TARGET void conv_task(void* context, std::size_t start, std::size_t count);

// Which NarrowLoad a layer takes (kNone: the channel-vector kernel for all its pixels).
NarrowLoad narrow_load(const ConvQC8Geometry& g, bool kernel_rows, std::size_t groups,
                       std::size_t step);

#endif  // __x86_64__

}  // namespace yolo::runtime::kernels::qc8_vnni
