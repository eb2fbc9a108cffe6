// The progress line of `stoker check` on a terminal: "[1234/5000] src/models" on stderr,
// redrawn in place at most ten times a second, once the run has taken longer than about a
// second (STOKER_PROGRESS_DELAY_MS changes the delay; the tests use it), and erased at the end.
// The CLI only creates one when stderr is a terminal and the output is for people.
#pragma once

#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>

namespace stoker::cli {

class Progress {
 public:
  explicit Progress(FILE* out);
  ~Progress() { finish(); }
  // Thread-safe; called after each file.
  void file_done(size_t done, size_t total, const std::string& path);
  // Erases the line (when one was drawn).
  void finish();

 private:
  FILE* out_;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point start_, last_;
  std::chrono::milliseconds delay_{1000};
  bool drawn_ = false;
};

}  // namespace stoker::cli
