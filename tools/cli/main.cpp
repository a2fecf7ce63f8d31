// tileops: inspect plugins and load failures, validate the manifest, run and
// benchmark ops.
#include "commands.hpp"
#include "output.hpp"

#include <tileops/errors.hpp>

#include <iostream>

int main(int argc, char** argv) {
  CLI::App app{"tileops: a host runtime for tensor operators"};
  app.require_subcommand(1);
  app.set_version_flag("--version", tileops::cli::version_text);
  tileops::cli::add_plugins_command(app);
  tileops::cli::add_failures_command(app);
  tileops::cli::add_targets_command(app);
  tileops::cli::add_doctor_command(app);
  tileops::cli::add_ops_command(app);
  tileops::cli::add_validate_command(app);
  tileops::cli::add_run_command(app);
  tileops::cli::add_demo_command(app);
  tileops::cli::add_bench_command(app);
#ifdef TILEOPS_CLI_HAS_CUDA_CACHE
  tileops::cli::add_cache_command(app);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::Error& e) {  // parse errors, --help, and commands that set a status
    return app.exit(e);
  } catch (const tileops::Error& e) {
    std::cerr << e.kind() << ": " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
