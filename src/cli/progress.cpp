#include "cli/progress.h"

#include <cstdlib>
#include <filesystem>

namespace stoker::cli {

Progress::Progress(FILE* out) : out_(out), start_(std::chrono::steady_clock::now()) {
  if (const char* d = std::getenv("STOKER_PROGRESS_DELAY_MS")) {
    char* end = nullptr;
    long ms = std::strtol(d, &end, 10);
    if (end != d && ms >= 0) delay_ = std::chrono::milliseconds(ms);
  }
  last_ = start_ - std::chrono::hours(1);
}

void Progress::file_done(size_t done, size_t total, const std::string& path) {
  auto now = std::chrono::steady_clock::now();
  if (now - start_ < delay_) return;
  std::lock_guard lock(mutex_);
  if (done < total && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  if (dir.size() > 60) dir = "..." + dir.substr(dir.size() - 57);
  std::fprintf(out_, "\r\x1b[K[%zu/%zu] %s", done, total, dir.c_str());
  std::fflush(out_);
  drawn_ = true;
}

void Progress::finish() {
  std::lock_guard lock(mutex_);
  if (!drawn_) return;
  std::fputs("\r\x1b[K", out_);
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace stoker::cli
