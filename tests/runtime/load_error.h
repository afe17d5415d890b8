// SPDX-License-Identifier: Apache-2.0
#pragma once

// The message a model that must not load gives, for tests that check what it says.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "runtime/engine/engine.h"
#include "runtime/model/model_error.h"

namespace yolo::test {

// The message of the ModelError that loading `model` with `options` throws; a test failure and ""
// when it loads.
inline std::string load_error(const std::filesystem::path& model,
                              const runtime::EngineOptions& options) {
  try {
    runtime::Engine::load(model, options);
  } catch (const runtime::ModelError& e) {
    return e.what();
  }
  ADD_FAILURE() << model << " loaded";
  return "";
}

}  // namespace yolo::test
