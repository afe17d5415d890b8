#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace yolo::cli {

// Exit status of every command: 0 success, 1 the command ran but found a failure (e.g. a
// comparison below threshold), 2 bad input (usage, unreadable or invalid model/config/image).
enum ExitStatus { kOk = 0, kFailed = 1, kBadInput = 2 };

// Each command lives in its own command_NAME.cpp and adds itself to the app here; the action
// runs after parsing succeeded and returns the exit status.
using CommandAction = std::function<int()>;
void add_command(CLI::App& app, CLI::App* sub, CommandAction action);

void register_commands(CLI::App& app);
// Runs the action of the parsed subcommand, mapping uncaught errors to a message and status 2.
int run_selected(CLI::App& app);

// One registration function per command file.
void register_inspect(CLI::App& app);

}  // namespace yolo::cli
