// SPDX-License-Identifier: Apache-2.0
#include "cli/model_options.h"

#include <charconv>
#include <cstdint>

#include "config/schema.h"

namespace yolo::cli {

CLI::Option* add_imgsz_option(CLI::App& sub, int& imgsz, const std::string& description) {
  const config::FieldSpec& field = *config::find_field("model.imgsz");
  const CLI::Validator schema(
      [&field](std::string& text) -> std::string {
        std::int64_t n = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
        if (error != std::errc() || end != text.data() + text.size()) {
          return "'" + text + "' is not a whole number";
        }
        return config::check_value(field, config::Value{n});
      },
      field.accepts());
  return sub.add_option("--imgsz", imgsz, description)->check(schema);
}

void ModelOptions::add_to(CLI::App& sub, bool several_precisions) {
  sub.add_option("--model,-m", model, "ONNX model file")->required();
  if (several_precisions) {
    sub.add_option("--precision", precisions, "Precisions to run: fp32, int8 or both (fp32,int8)")
        ->delimiter(',')
        ->check(CLI::IsMember({"fp32", "int8"}));
  } else {
    sub.add_option("--precision", precision, "Run the model in fp32 or int8")
        ->check(CLI::IsMember({"fp32", "int8"}))
        ->capture_default_str();
  }
  add_imgsz_option(sub, imgsz);
  sub.add_flag("--profile", profile, "Time every operator and print where the time goes");
}

runtime::Precision ModelOptions::parsed_precision() const {
  return precision == "int8" ? runtime::Precision::kInt8 : runtime::Precision::kFp32;
}

}  // namespace yolo::cli
