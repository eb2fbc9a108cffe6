// Helpers for end-to-end tests that run the real stoker binary (and other real tools) in a
// throwaway directory.
#pragma once

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

namespace stoker::testing {

struct CommandResult {
  int rc = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') q += "'\\''";
    else q.push_back(c);
  }
  return q + "'";
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_text(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// Runs `command` with /bin/sh in `dir`; stdout and stderr are captured separately.
inline CommandResult run_in(const std::filesystem::path& dir, const std::string& command) {
  static int counter = 0;
  auto err_path = std::filesystem::temp_directory_path() /
                  ("stoker-test-err-" + std::to_string(::getpid()) + "-" + std::to_string(++counter));
  std::string full = "cd " + shell_quote(dir.string()) + " && { " + command + " ; } 2>" + shell_quote(err_path.string());
  CommandResult r;
  FILE* pipe = ::popen(full.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  int status = ::pclose(pipe);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_text(err_path);
  std::filesystem::remove(err_path);
  return r;
}

inline std::string stoker_command(const std::string& args) { return shell_quote(STOKER_BINARY) + " " + args; }

// Runs the stoker binary with `args` from the current directory; stdout and stderr together in
// `out` (as a user sees them), `err` empty.
inline CommandResult run_stoker(const std::string& args) {
  CommandResult r;
  FILE* pipe = ::popen((stoker_command(args) + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  int status = ::pclose(pipe);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// A fresh temporary directory, removed when the object goes away.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "stoker-test-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::filesystem::path operator/(const std::string& rel) const { return path / rel; }
};

// A temporary directory holding one file with the given text (removed with the object).
struct TempSource {
  TempDir dir;
  std::filesystem::path path;
  TempSource(const std::string& name, const std::string& text) : path(dir.path / name) { write_text(path, text); }
};

}  // namespace stoker::testing
