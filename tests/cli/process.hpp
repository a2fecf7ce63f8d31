#pragma once
// Runs a shell command (popen) and collects its output and exit status: how the CLI
// suites see the `tileops` binary, as a user does.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace cli_test {

struct Result {
  int status = -1;  // the exit status, or -1 when the command did not exit normally
  std::string out;  // stdout (and stderr when the command redirects it)
};

inline Result run(const std::string& command) {
  Result r;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  const int raw = ::pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

// Single quotes for the shell.
inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// `env` with TILEOPS_PLUGIN_PATH as given (unset when empty) and logging off, then the
// CLI with `args`; stderr joins stdout unless `merge_stderr` is false (then it is dropped).
inline std::string cli_command(const std::string& cli, const std::string& plugin_path, const std::string& args,
                               bool merge_stderr = true) {
  std::string env = "env -u TILEOPS_PLUGIN_PATH TILEOPS_LOG_LEVEL=off ";
  if (!plugin_path.empty()) env += "TILEOPS_PLUGIN_PATH=" + quote(plugin_path) + " ";
  return env + quote(cli) + " " + args + (merge_stderr ? " 2>&1" : " 2>/dev/null");
}

}  // namespace cli_test
