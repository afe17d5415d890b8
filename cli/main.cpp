// SPDX-License-Identifier: Apache-2.0
// yolo-edge: detect, bench, inspect, quantize and report from the command line.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace {

std::string command_list(const CLI::App& app) {
  std::string list;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    list += (list.empty() ? "" : ", ") + sub->get_name();
  }
  return list;
}

// CLI11 reports a misspelt command as an unexpected argument, or as a missing subcommand when
// it comes before an option; name it as what the user meant.
bool report_unknown_command(const CLI::App& app, const std::vector<std::string>& leftover) {
  if (!app.get_subcommands().empty() || leftover.empty() || leftover.front().starts_with("-")) {
    return false;
  }
  std::fprintf(stderr,
               "yolo-edge: unknown command '%s'; the commands are: %s (see yolo-edge --help)\n",
               leftover.front().c_str(), command_list(app).c_str());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"yolo-edge: YOLO object detection on the Raspberry Pi CPU, FP32 and INT8",
               "yolo-edge"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", std::string("yolo-edge ") + YOLO_EDGE_VERSION);
  app.footer(
      "Run yolo-edge COMMAND --help for the options of a command.\n"
      "Exit status: 0 success; 1 the command ran and found a failure; 2 bad input (usage, or an "
      "unreadable model, config or image).");
  yolo::cli::register_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (!report_unknown_command(app, app.remaining())) app.exit(e);
    return yolo::cli::kBadInput;  // a usage error: unknown option, missing argument, bad value
  }
  if (app.get_subcommands().empty()) {
    std::fprintf(stderr,
                 "yolo-edge: no command given; the commands are: %s (see yolo-edge --help)\n",
                 command_list(app).c_str());
    return yolo::cli::kBadInput;
  }
  return yolo::cli::run_selected(app);
}
