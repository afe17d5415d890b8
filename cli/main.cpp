// yolo-edge: detect, bench, inspect, quantize and report from the command line.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"yolo-edge: YOLO object detection on the Raspberry Pi CPU, FP32 and INT8"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("yolo-edge ") + YOLO_EDGE_VERSION);
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
    app.exit(e);
    return 2;  // a usage error: unknown option, missing argument, bad value
  }
  return yolo::cli::run_selected(app);
}
