// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace yolo::config {

// Where yolo-edged keeps what it makes (calibration frames, INT8 models, the live view's password
// and certificate): `given` when not empty, else systemd's StateDirectory ($STATE_DIRECTORY, the
// first of a ':' list), else /var/lib/yolo-edge for root and the XDG state folder for anyone
// else. The daemon and `yolo-edge config --show-credential` agree on it through this.
std::filesystem::path state_dir(const std::string& given = "");

// The file holding the live view's password made at first start (http.auth: password with no
// http.password in the config).
std::filesystem::path credential_file(const std::filesystem::path& state_dir);

// The password in credential_file(state_dir), if it exists and is readable.
std::optional<std::string> read_credential(const std::filesystem::path& state_dir);

// The password in credential_file(state_dir), made (random, 100 bits, readable only by this
// user) when there is none; `created` says whether it was. Throws std::runtime_error naming the
// file and the reason when it can be neither read nor made.
std::string load_or_create_credential(const std::filesystem::path& state_dir, bool* created);

}  // namespace yolo::config
