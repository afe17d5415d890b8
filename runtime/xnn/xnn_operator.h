// SPDX-License-Identifier: Apache-2.0
#pragma once

// The base of the XNNPACK layer: library initialisation, the thread pools and the owner of one
// XNNPACK operator. Every XNNPACK operator lives through create (weights packed once) -> setup
// (shapes, pointers, thread pool) -> run (per frame, allocates nothing) -> delete (RAII).

#include <xnnpack.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include <pthreadpool.h>

namespace yolo::runtime::xnn {

// XNNPACK may read (never write) up to this many bytes past the last element of any input it is
// given, for whole-vector loads: every buffer an input of these wrappers lives in needs that much
// readable memory after it (the arena pads each block). The own kernels here do not over-read.
inline constexpr size_t kExtraInputBytes = XNN_EXTRA_BYTES;

// Affine int8 quantisation parameters: real = scale * (q - zero_point).
struct QuantParams {
  float scale = 1.0f;
  int8_t zero_point = 0;
};

// Initialises XNNPACK once per process (thread-safe). Throws std::runtime_error when the CPU is
// not supported or memory is short. Every wrapper's constructor calls it, so callers need not.
void initialize();

// "invalid_parameter" and so on, for error messages.
std::string_view status_name(xnn_status status);

// Throws std::runtime_error "XNNPACK <what> failed for <name>: <status>" unless status is success.
void check(xnn_status status, std::string_view what, std::string_view name);

// One pthreadpool per thread count, created on first use and destroyed with this object, so
// switching thread counts between runs costs nothing after the first time. Thread-safe.
class ThreadPools {
 public:
  ThreadPools() = default;
  ThreadPools(const ThreadPools&) = delete;
  ThreadPools& operator=(const ThreadPools&) = delete;

  // The pool for `threads` threads (>= 1, else std::invalid_argument). threads == 1 returns
  // nullptr, which XNNPACK and the kernels here run single-threaded on the caller's thread.
  // Throws std::runtime_error when the pool cannot be created.
  pthreadpool_t get(int threads);

 private:
  struct Destroy {
    void operator()(pthreadpool_t pool) const { pthreadpool_destroy(pool); }
  };
  std::mutex mutex_;
  std::map<int, std::unique_ptr<pthreadpool, Destroy>> pools_;
};

// Move-only owner of one xnn_operator_t and the name used in its error messages (the ONNX node
// name, so a failure says which node).
class Operator {
 public:
  Operator() = default;
  Operator(xnn_operator_t op, std::string name) : op_(op), name_(std::move(name)) {}
  Operator(Operator&& other) noexcept;
  Operator& operator=(Operator&& other) noexcept;
  Operator(const Operator&) = delete;
  Operator& operator=(const Operator&) = delete;
  ~Operator();

  xnn_operator_t get() const { return op_; }
  const std::string& name() const { return name_; }

  // xnn_run_operator; throws std::runtime_error naming the operator on failure. The operator must
  // have been set up; `pool` may be nullptr (single-threaded) and may differ from setup's.
  void run(pthreadpool_t pool) const;

 private:
  xnn_operator_t op_ = nullptr;
  std::string name_;
};

// Creates an operator through `create` (a lambda calling one xnn_create_*), throwing with
// `name` and the status on failure. Calls initialize() first.
template <typename Create>
Operator create_operator(std::string name, std::string_view what, Create&& create) {
  initialize();
  xnn_operator_t op = nullptr;
  check(create(&op), what, name);
  return Operator(op, std::move(name));
}

}  // namespace yolo::runtime::xnn
