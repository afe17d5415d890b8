#include "cli/model_options.h"

namespace yolo::cli {

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
  sub.add_option("--imgsz", imgsz, "Input size for models exported with dynamic axes")
      ->check(CLI::Range(32, 4096));
  sub.add_flag("--profile", profile, "Time every operator and print where the time goes");
}

runtime::Precision ModelOptions::parsed_precision() const {
  return precision == "int8" ? runtime::Precision::kInt8 : runtime::Precision::kFp32;
}

}  // namespace yolo::cli
