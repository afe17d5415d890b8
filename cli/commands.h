// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace yolo::cli {

// Exit status of every command: 0 success, 1 the command ran but found a failure (e.g. a
// comparison below threshold, a model with problems), 2 bad input (usage, unreadable or invalid
// model/config/image).
enum ExitStatus { kOk = 0, kFailed = 1, kBadInput = 2 };

// Adding a command NAME:
//   1. write cli/NAME/command_NAME.cpp (with what only it uses beside it) defining `void
//   register_NAME(CLI::App& app)`, which creates
//      the subcommand (`app.add_subcommand`), its options (stored in shared_ptrs the action
//      captures) and hands its action to add_command;
//   2. declare register_NAME below and list it in kCommands in commands.cpp.
// The action runs after parsing succeeded and returns an ExitStatus; an exception escaping it
// is printed as "yolo-edge NAME: <message>" and gives status 2.
using CommandAction = std::function<int()>;
void add_command(CLI::App& app, CLI::App* sub, CommandAction action);

void register_commands(CLI::App& app);
// Runs the action of the parsed subcommand, mapping uncaught errors to a message and status 2.
int run_selected(CLI::App& app);

// One registration function per command file.
void register_inspect(CLI::App& app);
void register_detect(CLI::App& app);
void register_bench(CLI::App& app);
void register_config(CLI::App& app);
void register_compare(CLI::App& app);
void register_quantize(CLI::App& app);
void register_logs(CLI::App& app);
void register_report(CLI::App& app);
void register_track(CLI::App& app);
void register_counts(CLI::App& app);

}  // namespace yolo::cli
