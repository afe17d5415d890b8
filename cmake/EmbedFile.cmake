# SPDX-License-Identifier: Apache-2.0
# Writes a C++ source defining `std::string_view NAMESPACE::FUNCTION()` that returns the bytes of
# INPUT, so the daemon's page is inside the binary (a Pi may be offline: no CDN, no files to
# install beside it). Run as `cmake -DINPUT=... -DOUTPUT=... -DNAMESPACE=... -DFUNCTION=... -P`.
file(READ "${INPUT}" content HEX)
string(LENGTH "${content}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${content}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
get_filename_component(name "${INPUT}" NAME)
file(WRITE "${OUTPUT}.tmp"
"// Generated from ${name} by cmake/EmbedFile.cmake; edit that file instead.
#include <string_view>

namespace ${NAMESPACE} {
namespace {
constexpr unsigned char kBytes[] = {
${bytes}};
}  // namespace

std::string_view ${FUNCTION}() {
  return {reinterpret_cast<const char*>(kBytes), ${size}};
}

}  // namespace ${NAMESPACE}
")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
