// SPDX-License-Identifier: Apache-2.0
#include "cli/common/model_options.h"

#include <cstdio>
#include <optional>

#include "config/schema.h"

namespace yolo::cli {

CLI::Option* add_threshold_option(CLI::App& sub, const std::string& name, float& threshold,
                                  const std::string& description) {
  return sub.add_option(name, threshold, description)
      ->check(CLI::Range(0.0f, 1.0f))
      ->capture_default_str();
}

CLI::Option* add_threads_option(CLI::App& sub, int& threads, const std::string& description) {
  return sub.add_option("--threads,-t", threads, description)
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
}

CLI::Option* add_labels_option(CLI::App& sub, std::string& labels) {
  return sub.add_option("--labels", labels,
                        "Class names file, one per line (if the model has none)");
}

CLI::Option* add_imgsz_option(CLI::App& sub, runtime::InputSize& imgsz,
                              const std::string& description, const std::string& name) {
  const config::FieldSpec& field = *config::find_field("model.imgsz");
  auto* option = sub.add_option_function<std::string>(
      name,
      [&imgsz](const std::string& text) {
        imgsz = config::to_image_size(*config::parse_image_size(text));
      },
      description);
  option->check(CLI::Validator(
      [&field](std::string& text) -> std::string {
        const std::optional<config::Value> value = config::parse_image_size(text);
        if (!value) {
          return "'" + text + "' is not a size: use 640, HEIGHT,WIDTH such as 384,640, or auto";
        }
        return config::check_value(field, *value);
      },
      "SIZE"));
  return option->type_name("SIZE");
}

void ModelOptions::add_to(CLI::App& sub, bool several_precisions) {
  sub.add_option("--model,-m", model, "ONNX model file")->required();
  if (several_precisions) {
    sub.add_option("--precision", precisions, "Precisions to run: fp32, int8 or both (fp32,int8)")
        ->delimiter(',')
        ->check(CLI::IsMember(precision_choices()));
  } else {
    sub.add_option("--precision", precision,
                   "Run the model in fp32 or int8 (default: as the file was made: int8 for a "
                   "static INT8 file, fp32 for the others)")
        ->check(CLI::IsMember(precision_choices()));
  }
  add_imgsz_option(sub, imgsz);
  sub.add_flag("--profile", profile, "Time every operator and print where the time goes");
}

void FrameRunOptions::add_to(CLI::App& sub, const std::string& conf_help) {
  sub.add_option("--frames", frames, "Stop after this many frames (0 = all)")
      ->check(CLI::NonNegativeNumber);
  add_threshold_option(sub, "--conf", conf, conf_help);
  add_threshold_option(sub, "--iou", iou, "IoU threshold of the NMS");
  add_threads_option(sub, threads, "Inference threads");
}

runtime::Precision ModelOptions::parsed_precision() const {
  return precision_option(precision);
}

detector::DetectorOptions ModelOptions::detector_options(const std::string& model_file, int threads,
                                                         const cv::Mat& first) const {
  detector::DetectorOptions options;
  options.model = model_file;
  options.engine.precision = parsed_precision();
  options.engine.threads = threads;
  options.engine.imgsz = imgsz;
  options.engine.profile = profile;
  options.engine.log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  // imgsz auto takes the source's aspect: the engine is planned for the first frame's size (and
  // planned again when a later frame has another).
  if (!first.empty() && options.engine.imgsz.mode == runtime::InputSize::Mode::kAuto) {
    options.engine.imgsz = runtime::InputSize::automatic(first.rows, first.cols);
  }
  return options;
}

std::vector<std::string> precision_choices() {
  return {runtime::precision_name(runtime::Precision::kFp32),
          runtime::precision_name(runtime::Precision::kInt8)};
}

runtime::Precision precision_option(const std::string& name) {
  if (name.empty()) return runtime::Precision::kFile;
  const auto precision = runtime::parse_precision(name);
  if (!precision) throw std::invalid_argument("unknown precision '" + name + "'");
  return *precision;
}

}  // namespace yolo::cli
