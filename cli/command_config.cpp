// SPDX-License-Identifier: Apache-2.0
// yolo-edge config: check a config file, describe every setting, or print the default file.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "config/config_loader.h"
#include "config/schema.h"
#include "runtime/engine.h"
#include "vision/capture.h"

namespace yolo::cli {

namespace {

struct ConfigArgs {
  std::string check;
  bool describe = false;
  bool defaults = false;
  bool no_file_checks = false;
};

int run_config(const ConfigArgs& args) {
  if (args.describe) {
    std::fputs(config::describe_schema().c_str(), stdout);
    return kOk;
  }
  if (args.defaults) {
    std::fputs(config::default_config_yaml().c_str(), stdout);
    return kOk;
  }
  config::LoadOptions options;
  options.check_files = !args.no_file_checks;
  options.static_int8 = runtime::is_static_int8_file;
  options.check_source = [](const std::string& uri, const std::filesystem::path& base) {
    vision::SourceCheck c = vision::check_source(uri, base);
    return config::SourceCheck{std::move(c.uri), std::move(c.error), std::move(c.warning)};
  };
  std::vector<config::ConfigProblem> warnings;
  options.warnings = &warnings;
  const config::Config loaded = config::load_config(args.check, options);
  for (const auto& w : warnings) {
    std::fprintf(stderr, "warning: %s\n", config::format_problem(args.check, w).c_str());
  }
  std::printf("%s: valid\n", args.check.c_str());
  std::fputs(config::to_yaml(loaded, false).c_str(), stdout);
  return kOk;
}

}  // namespace

void register_config(CLI::App& app) {
  auto args = std::make_shared<ConfigArgs>();
  auto* sub = app.add_subcommand("config", "Check a config file, or describe every setting");
  auto* check = sub->add_option(
      "--check", args->check, "Validate this config file and print it as the daemon would read it");
  auto* describe = sub->add_flag("--describe", args->describe,
                                 "List every setting with its type, default and description");
  auto* defaults = sub->add_flag("--defaults", args->defaults,
                                 "Print the documented default file (config/yolo-edge.yaml)");
  sub->add_flag("--no-file-checks", args->no_file_checks,
                "With --check: do not require the model files and the source to exist");
  check->excludes(describe)->excludes(defaults);
  describe->excludes(defaults);
  sub->require_option(1, 2);
  add_command(app, sub, [args] { return run_config(*args); });
}

}  // namespace yolo::cli
