// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/http/tls_identity.h"

#include <fcntl.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace yolo::daemon {

namespace fs = std::filesystem;

namespace {

template <class T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using Bio = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using Key = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using Cert = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using Extension = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION, X509_EXTENSION_free>>;

// OpenSSL's last error, for a message.
std::string ssl_error() {
  const unsigned long e = ERR_get_error();
  if (e == 0) return "unknown OpenSSL error";
  char text[256];
  ERR_error_string_n(e, text, sizeof text);
  return text;
}

std::string read_file(const fs::path& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error("cannot read " + std::string(what) + " " + path.string() +
                             " (missing, or not readable by the daemon's user)");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Cert parse_certificate(const std::string& pem, const fs::path& file) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  Cert cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!cert) {
    throw std::runtime_error(file.string() + " is not a PEM certificate (" + ssl_error() +
                             "): give http.tls_cert a file that starts with -----BEGIN "
                             "CERTIFICATE-----");
  }
  return cert;
}

Key parse_key(const std::string& pem, const fs::path& file) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  Key key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!key) {
    throw std::runtime_error(file.string() + " is not a PEM private key without a passphrase (" +
                             ssl_error() + "): give http.tls_key the certificate's key");
  }
  return key;
}

std::string fingerprint(X509* cert) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  X509_digest(cert, EVP_sha256(), digest, &n);
  std::string text;
  for (unsigned int i = 0; i < n; ++i) {
    char byte[4];
    std::snprintf(byte, sizeof byte, i + 1 < n ? "%02X:" : "%02X", digest[i]);
    text += byte;
  }
  return text;
}

void add_extension(X509* cert, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  Extension ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
  if (!ext || X509_add_ext(cert, ext.get(), -1) != 1) {
    throw std::runtime_error("cannot make the self-signed certificate: " + ssl_error());
  }
}

std::string to_pem(X509* cert) {
  Bio bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509(bio.get(), cert);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

std::string to_pem(EVP_PKEY* key) {
  Bio bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

// Writes `text` to `path` readable by its owner only, whole or not at all.
void write_private(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".tmp";
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const bool ok =
      fd >= 0 && write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  if (fd >= 0) close(fd);
  std::error_code ec;
  if (!ok) {
    fs::remove(tmp, ec);
    throw std::runtime_error("cannot write " + path.string() +
                             " (is the state folder writable by the daemon's user?)");
  }
  fs::rename(tmp, path, ec);
  if (ec) throw std::runtime_error("cannot write " + path.string() + ": " + ec.message());
}

}  // namespace

TlsIdentity read_tls_identity(const fs::path& certificate, const fs::path& key_file) {
  TlsIdentity id;
  id.certificate = read_file(certificate, "the certificate (http.tls_cert)");
  id.key = read_file(key_file, "the private key (http.tls_key)");
  id.certificate_file = certificate;
  const Cert cert = parse_certificate(id.certificate, certificate);
  const Key key = parse_key(id.key, key_file);
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    throw std::runtime_error(key_file.string() + " is not the key of " + certificate.string() +
                             ": give http.tls_key the key the certificate was made for");
  }
  id.fingerprint = fingerprint(cert.get());
  return id;
}

TlsIdentity self_signed_tls_identity(const fs::path& folder, const std::string& host_name) {
  const fs::path cert_file = folder / "cert.pem";
  const fs::path key_file = folder / "key.pem";
  std::error_code ec;
  if (fs::exists(cert_file, ec) && fs::exists(key_file, ec)) {
    return read_tls_identity(cert_file, key_file);
  }
  fs::create_directories(folder, ec);
  if (ec) {
    throw std::runtime_error("cannot create " + folder.string() +
                             " for the self-signed "
                             "certificate: " +
                             ec.message());
  }
  Key key(EVP_EC_gen("P-256"));
  Cert cert(X509_new());
  if (!key || !cert) throw std::runtime_error("cannot make a key: " + ssl_error());
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  RAND_bytes(serial, sizeof serial);
  serial[0] &= 0x7f;  // a positive serial number
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -60 * 60);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 10L * 365 * 24 * 60 * 60);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  const std::string common = host_name.empty() ? "yolo-edge" : host_name;
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>("yolo-edge"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>(common.c_str()), -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  std::string names = "DNS:localhost,IP:127.0.0.1,IP:::1";
  if (!host_name.empty()) names = "DNS:" + host_name + ",DNS:" + host_name + ".local," + names;
  add_extension(cert.get(), NID_subject_alt_name, names);
  add_extension(cert.get(), NID_basic_constraints, "critical,CA:TRUE,pathlen:0");
  add_extension(cert.get(), NID_key_usage, "critical,digitalSignature,keyCertSign");
  add_extension(cert.get(), NID_ext_key_usage, "serverAuth");
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0) {
    throw std::runtime_error("cannot sign the self-signed certificate: " + ssl_error());
  }
  TlsIdentity id;
  id.certificate = to_pem(cert.get());
  id.key = to_pem(key.get());
  id.fingerprint = fingerprint(cert.get());
  id.created = true;
  id.certificate_file = cert_file;
  write_private(key_file, id.key);
  write_private(cert_file, id.certificate);
  return id;
}

}  // namespace yolo::daemon
