// SPDX-License-Identifier: Apache-2.0
#pragma once

namespace yolo::cli {

// Peak resident set size of this process so far (VmHWM), in MiB; 0 when /proc cannot tell.
double peak_rss_mb();

// Starts the peak over from the current resident size (writes 5 to /proc/self/clear_refs, Linux
// 4.0 and later); false when the kernel refuses, and the peak then carries on.
bool reset_peak_rss();

}  // namespace yolo::cli
