#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace tileops::bench {

ProgressBar::ProgressBar() : terminal_(isatty(STDERR_FILENO) == 1) {}

ProgressBar::~ProgressBar() {
  if (drawn_) std::fputs("\r\033[K", stderr);
}

void ProgressBar::update(size_t done, size_t total, const std::string& what) {
  if (what.empty()) return;  // the end: the destructor clears the line
  if (!terminal_) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(stderr, "[%zu/%zu %.0f s] %s\n", done + 1, total, seconds, what.c_str());
    return;
  }
  constexpr size_t kWidth = 30;
  const size_t filled = total ? done * kWidth / total : kWidth;
  std::fprintf(stderr, "\r\033[K[%s%s] %zu/%zu %.60s", std::string(filled, '#').c_str(),
               std::string(kWidth - filled, '.').c_str(), done, total, what.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace tileops::bench
