// SPDX-License-Identifier: Apache-2.0
// yolo-edge config: check a config file, describe every setting, or print the default file.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "config/config_loader.h"
#include "config/credential.h"
#include "config/yaml_writer.h"
#include "detector/model_names.h"
#include "runtime/engine/engine.h"
#include "vision/capture.h"

namespace yolo::cli {

namespace {

struct ConfigArgs {
  std::string check;
  bool describe = false;
  bool defaults = false;
  bool no_file_checks = false;
  bool show_credential = false;
  std::string state_dir;
};

// The live view's password: the one the config sets, else the one yolo-edged made in its state
// folder at first start.
int show_credential(const ConfigArgs& args) {
  if (!args.check.empty()) {
    config::LoadOptions options;
    options.check_files = false;
    const config::Config loaded = config::load_config(args.check, options);
    if (loaded.http.auth == config::HttpAuth::kNone) {
      std::printf("%s sets http.auth: none: viewing needs no password\n", args.check.c_str());
      return kOk;
    }
    if (!loaded.http.password.empty()) {
      std::printf("%s\n", loaded.http.password.c_str());
      std::fprintf(stderr, "(http.password in %s)\n", args.check.c_str());
      return kOk;
    }
  }
  const std::filesystem::path dir = config::state_dir(args.state_dir);
  const std::filesystem::path file = config::credential_file(dir);
  if (const auto password = config::read_credential(dir)) {
    std::printf("%s\n", password->c_str());
    std::fprintf(stderr, "(made by yolo-edged at its first start, kept in %s)\n",
                 file.string().c_str());
    return kOk;
  }
  std::error_code ec;
  const bool exists = std::filesystem::exists(file, ec);
  std::fprintf(stderr, "yolo-edge config: %s %s: %s\n", file.string().c_str(),
               exists ? "cannot be read" : "does not exist",
               exists ? "run this as root (sudo) or as the yolo-edge user"
                      : "yolo-edged makes it at its first start with http.auth: password and no "
                        "http.password; give --state-dir if it keeps its state elsewhere");
  return kFailed;
}

int run_config(const ConfigArgs& args) {
  if (args.show_credential) return show_credential(args);
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
  options.class_names = detector::model_class_names;
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
  auto* credential = sub->add_flag(
      "--show-credential", args->show_credential,
      "Print the live view's password: http.password of the --check file, else the one "
      "yolo-edged made in its state folder (run as root or the yolo-edge user)");
  sub->add_option("--state-dir", args->state_dir,
                  "With --show-credential: the daemon's state folder (default: as yolo-edged "
                  "chooses it, /var/lib/yolo-edge as root)");
  check->excludes(describe)->excludes(defaults);
  describe->excludes(defaults)->excludes(credential);
  defaults->excludes(credential);
  sub->require_option(1, 3);
  add_command(app, sub, [args] { return run_config(*args); });
}

}  // namespace yolo::cli
