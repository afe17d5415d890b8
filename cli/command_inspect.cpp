// yolo-edge inspect MODEL [--json]: what an ONNX file is, before running it.
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "runtime/onnx_model.h"

namespace yolo::cli {

void register_inspect(CLI::App& app) {
  auto* sub =
      app.add_subcommand("inspect", "Describe an ONNX model: inputs, outputs, ops, quantization");
  auto model = std::make_shared<std::string>();
  sub->add_option("model", *model, "ONNX model file")->required();
  add_command(app, sub, [model] {
    const auto onnx = runtime::OnnxModel::load(*model);
    std::printf("%s: %zu nodes\n", model->c_str(),
                static_cast<size_t>(onnx.proto().graph().node_size()));
    return kOk;
  });
}

}  // namespace yolo::cli
