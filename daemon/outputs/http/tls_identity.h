// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <string>

namespace yolo::daemon {

// The HTTPS server's certificate and key, as PEM text.
struct TlsIdentity {
  std::string certificate;
  std::string key;
  // SHA-256 of the certificate (DER), as AA:BB:..., for the log: what a browser shows to compare.
  std::string fingerprint;
  // Made here at this start (a self-signed one), rather than read.
  bool created = false;
  std::filesystem::path certificate_file;
};

// Reads http.tls_cert and http.tls_key. Throws std::runtime_error naming the file and what is
// wrong (missing, unreadable, not PEM, key and certificate not a pair).
TlsIdentity read_tls_identity(const std::filesystem::path& certificate,
                              const std::filesystem::path& key);

// The self-signed certificate in `folder` (cert.pem, key.pem), made at first use: an ECDSA P-256
// key, valid 10 years, for this host's name, localhost and 127.0.0.1. Throws std::runtime_error
// when it can be neither read nor made.
TlsIdentity self_signed_tls_identity(const std::filesystem::path& folder,
                                     const std::string& host_name);

}  // namespace yolo::daemon
