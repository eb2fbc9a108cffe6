// Mutation test driver (test-only): every single-character deletion, insertions of a few
// characters at every offset, and every truncation of each input file are analyzed in memory,
// in this one process, through the same analyze() every consumer calls. Nothing may crash, hang
// or abort, and every finding and fix edit must lie inside the text it was computed for.
//
//   stoker_mutation [--stride N] [--cxx-stride N] [--sample-dir DIR --sample-every M]
//                   [--fork CRASH_DIR] FILE...
//
// --stride N: mutate every N-th offset of Python files (default 1: every offset);
// --cxx-stride N: the same for C++/CUDA files (default 1; the Clang front end costs far more per
// variant). --sample-dir DIR: write every M-th variant (default 50) there, named after its
// source, mutation and offset, so that the real binary can be run over them.
// On a crash (a fatal signal) or a variant running past 60 s, the variant is described on
// stderr and its text written to $STOKER_MUTATION_CRASH (default /tmp/stoker-mutation-crash.*)
// before the process dies. --fork CRASH_DIR (a survey, not the test): every variant is analyzed
// in a child process instead, so that one crash does not end the run; each crashing or hanging
// variant is written to CRASH_DIR and counted, and the exit status is 1 when any crashed.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/analyzer.h"
#include "core/settings.h"
#include "core/source.h"

using namespace stoker;
namespace fs = std::filesystem;

namespace {

// What the signal handler reports: set before each analysis (plain data, async-signal-safe use).
char g_description[512];
const std::string* g_variant = nullptr;
char g_crash_path[512];

void write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w <= 0) return;
    p += w, n -= static_cast<size_t>(w);
  }
}

void on_fatal(int sig) {
  const char* what = sig == SIGALRM ? "HANG (over 60 s) on " : "CRASH (fatal signal) on ";
  write_all(2, "\nstoker_mutation: ", 18);
  write_all(2, what, std::strlen(what));
  write_all(2, g_description, std::strlen(g_description));
  write_all(2, "\nstoker_mutation: the variant's text is in ", 43);
  write_all(2, g_crash_path, std::strlen(g_crash_path));
  write_all(2, "\n", 1);
  if (g_variant) {
    int fd = ::open(g_crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      write_all(fd, g_variant->data(), g_variant->size());
      ::close(fd);
    }
  }
  ::signal(sig == SIGALRM ? SIGABRT : sig, SIG_DFL);
  ::raise(sig == SIGALRM ? SIGABRT : sig);
}

struct Counts {
  size_t variants = 0;
  size_t crashed = 0;
  size_t with_notices = 0;
  size_t with_findings = 0;
  size_t bad_ranges = 0;
};

bool inside(const TextRange& r, size_t size) { return r.start <= r.end && r.end <= size; }

std::string g_fork_dir;  // --fork: analyze each variant in a child; crashing variants go here

void analyze_variant(const std::string& path, const std::string& text, const char* kind, size_t offset,
                     Counts& counts, const std::string& sample_dir, size_t sample_every) {
  std::snprintf(g_description, sizeof g_description, "%s: %s at offset %zu (%zu bytes)", path.c_str(), kind, offset,
                text.size());
  std::string ext = fs::path(path).extension().string();
  std::snprintf(g_crash_path, sizeof g_crash_path, "%s%s",
                std::getenv("STOKER_MUTATION_CRASH") ? std::getenv("STOKER_MUTATION_CRASH")
                                                     : "/tmp/stoker-mutation-crash",
                ext.c_str());
  g_variant = &text;
  if (!g_fork_dir.empty()) {
    ++counts.variants;
    std::fflush(stdout);
    std::fflush(stderr);
    pid_t pid = ::fork();
    if (pid == 0) {
      for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, SIG_DFL);
      ::signal(SIGALRM, SIG_DFL);
      ::alarm(60);
      SourceFile file(path, text);
      analyze(file, Settings{});
      ::_exit(0);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
      ++counts.crashed;
      std::string stem = fs::path(path).stem().string();
      std::ostringstream name;
      name << stem << "_" << kind << "_" << offset << ext;
      std::ofstream(fs::path(g_fork_dir) / name.str(), std::ios::binary) << text;
      std::fprintf(stderr, "stoker_mutation: %s: %s %d\n", g_description,
                   WIFSIGNALED(status) ? (WTERMSIG(status) == SIGALRM ? "hang, past 60 s" : "killed by signal")
                                       : "exit status",
                   WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    }
    return;
  }
  ::alarm(60);
  SourceFile file(path, text);
  AnalysisResult result = analyze(file, Settings{});
  ::alarm(0);
  ++counts.variants;
  counts.with_notices += !result.notices.empty();
  counts.with_findings += !result.diagnostics.empty();
  for (const auto& d : result.diagnostics) {
    bool ok = inside(d.range, file.text.size());
    if (d.fix)
      for (const auto& e : d.fix->edits) ok = ok && inside(e.range, file.text.size());
    if (!ok) {
      ++counts.bad_ranges;
      std::fprintf(stderr, "stoker_mutation: %s: %s [%u, %u) outside the %zu-byte text\n", g_description,
                   d.code.c_str(), d.range.start, d.range.end, file.text.size());
    }
  }
  if (!sample_dir.empty() && counts.variants % sample_every == 0) {
    std::string stem = fs::path(path).stem().string();
    std::ostringstream name;
    name << stem << "_" << kind << "_" << offset << ext;
    std::ofstream(fs::path(sample_dir) / name.str(), std::ios::binary) << text;
  }
}

}  // namespace

int main(int argc, char** argv) {
  size_t stride = 1, cxx_stride = 1, sample_every = 50;
  std::string sample_dir;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if ((a == "--stride" || a == "--cxx-stride" || a == "--sample-every") && i + 1 < argc) {
      long v = std::atol(argv[++i]);
      if (v < 1) {
        std::fprintf(stderr, "stoker_mutation: %s wants a positive number\n", a.c_str());
        return 2;
      }
      (a == "--stride" ? stride : a == "--cxx-stride" ? cxx_stride : sample_every) = static_cast<size_t>(v);
    } else if (a == "--sample-dir" && i + 1 < argc) {
      sample_dir = argv[++i];
    } else if (a == "--fork" && i + 1 < argc) {
      g_fork_dir = argv[++i];
      fs::create_directories(g_fork_dir);
    } else if (a.starts_with("-")) {
      std::fprintf(stderr, "usage: stoker_mutation [--stride N] [--cxx-stride N] [--sample-dir DIR --sample-every M] [--fork CRASH_DIR] FILE...\n");
      return 2;
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: stoker_mutation [--stride N] [--cxx-stride N] [--sample-dir DIR --sample-every M] [--fork CRASH_DIR] FILE...\n");
    return 2;
  }
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM}) ::signal(sig, on_fatal);
  static const char kInserted[] = {'(', ':', '\n', 'x'};
  static const char* kInsertName[] = {"insert-paren", "insert-colon", "insert-newline", "insert-x"};
  Counts total;
  auto t0 = std::chrono::steady_clock::now();
  for (const auto& path : files) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "stoker_mutation: cannot read %s\n", path.c_str());
      return 2;
    }
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (language_for_path(path) == Language::Unknown) {
      std::fprintf(stderr, "stoker_mutation: %s is neither Python nor C++/CUDA\n", path.c_str());
      return 2;
    }
    size_t step = language_for_path(path) == Language::Cxx ? cxx_stride : stride;
    Counts counts;
    analyze_variant(path, text, "original", 0, counts, "", 1);
    for (size_t i = 0; i <= text.size(); i += step) {
      analyze_variant(path, text.substr(0, i), "truncate", i, counts, sample_dir, sample_every);
      if (i < text.size()) {
        std::string deleted = text.substr(0, i) + text.substr(i + 1);
        analyze_variant(path, deleted, "delete", i, counts, sample_dir, sample_every);
      }
      for (size_t k = 0; k < sizeof kInserted; ++k) {
        std::string inserted = text.substr(0, i) + kInserted[k] + text.substr(i);
        analyze_variant(path, inserted, kInsertName[k], i, counts, sample_dir, sample_every);
      }
    }
    if (g_fork_dir.empty())
      std::printf("stoker_mutation: %s: %zu bytes, every %zu%s offset: %zu variants, %zu with notices, %zu with findings\n",
                  path.c_str(), text.size(), step, step == 1 ? "" : "th", counts.variants, counts.with_notices,
                  counts.with_findings);
    else
      std::printf("stoker_mutation: %s: %zu bytes, every %zu%s offset: %zu variants, %zu crashed or hung\n",
                  path.c_str(), text.size(), step, step == 1 ? "" : "th", counts.variants, counts.crashed);
    total.variants += counts.variants;
    total.crashed += counts.crashed;
    total.bad_ranges += counts.bad_ranges;
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!g_fork_dir.empty()) {
    std::printf("stoker_mutation: %zu variants analyzed one process each in %.1f s: %zu crashed or hung (in %s)\n",
                total.variants, s, total.crashed, g_fork_dir.c_str());
    return total.crashed ? 1 : 0;
  }
  std::printf("stoker_mutation: %zu variants analyzed in %.1f s without a crash; %zu findings outside their text\n",
              total.variants, s, total.bad_ranges);
  return total.bad_ranges ? 1 : 0;
}
