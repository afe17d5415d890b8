// SPDX-License-Identifier: Apache-2.0
#include "cli/commands.h"

#include <cstdio>
#include <exception>
#include <map>

namespace yolo::cli {

namespace {

// In the order `yolo-edge --help` lists them.
constexpr void (*kCommands[])(CLI::App&) = {
    register_detect, register_bench,   register_inspect,  register_config, register_track,
    register_counts, register_compare, register_quantize, register_logs,   register_report,
};

std::map<const CLI::App*, CommandAction>& actions() {
  static std::map<const CLI::App*, CommandAction> table;
  return table;
}

}  // namespace

void add_command(CLI::App&, CLI::App* sub, CommandAction action) {
  actions()[sub] = std::move(action);
}

void register_commands(CLI::App& app) {
  for (const auto registration : kCommands) registration(app);
}

int run_selected(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands()) {
    auto it = actions().find(sub);
    if (it == actions().end()) continue;
    try {
      return it->second();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "yolo-edge %s: %s\n", sub->get_name().c_str(), e.what());
      return kBadInput;
    }
  }
  std::fprintf(stderr, "yolo-edge: no command given; see yolo-edge --help\n");
  return kBadInput;
}

}  // namespace yolo::cli
