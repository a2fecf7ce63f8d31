#pragma once
// The subcommands of the `tileops` CLI, one file each.
#include <CLI/CLI.hpp>

namespace tileops::cli {
void add_plugins_command(CLI::App& app);
void add_failures_command(CLI::App& app);
void add_targets_command(CLI::App& app);
void add_doctor_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_ops_command(CLI::App& app);
void add_cache_command(CLI::App& app);  // built with the CUDA plugin
void add_validate_command(CLI::App& app);
void add_demo_command(CLI::App& app);
void add_bench_command(CLI::App& app);
}  // namespace tileops::cli
