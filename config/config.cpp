// SPDX-License-Identifier: Apache-2.0
#include "config/config.h"

#include "config/schema.h"

namespace yolo::config {

Config::Config() {
  for (const FieldSpec& field : fields()) field.store(*this, field.default_value);
}

}  // namespace yolo::config
