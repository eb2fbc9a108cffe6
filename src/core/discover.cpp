#include "core/discover.h"

#include <git2.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "core/source.h"

namespace fs = std::filesystem;

namespace stoker {
namespace {

bool is_skipped_directory(const fs::path& dir) {
  std::string name = dir.filename().string();
  if (name.empty()) return false;
  if (name[0] == '.' && name != "." && name != "..") return true;
  static const char* const skip[] = {"node_modules", "__pycache__", "site-packages", "build", "dist",
                                     "venv", "_build", "__pypackages__", "buck-out"};
  for (auto s : skip)
    if (name == s) return true;
  std::error_code ec;
  return fs::exists(dir / "pyvenv.cfg", ec) || fs::exists(dir / "CMakeCache.txt", ec);
}

// Caches one libgit2 repository per work tree; answers "is this path ignored". libgit2 is
// initialized on the first question only (a directory walk): its initialization reads the
// system's CA bundle for TLS, most of a Python-only run's startup (bench/startup/README.md).
class GitIgnore {
 public:
  GitIgnore() = default;
  ~GitIgnore() {
    for (auto& [_, repo] : repos_)
      if (repo) git_repository_free(repo);
    if (initialized_) git_libgit2_shutdown();
  }
  bool ignored(const fs::path& path) {
    std::error_code ec;
    fs::path abs = fs::absolute(path, ec).lexically_normal();
    if (ec) return false;
    git_repository* repo = repo_for(abs.parent_path());
    if (!repo) return false;
    const char* wd = git_repository_workdir(repo);
    if (!wd) return false;
    fs::path rel = abs.lexically_relative(fs::path(wd));
    if (rel.empty() || rel.native().rfind("..", 0) == 0) return false;
    std::string relstr = rel.generic_string();
    if (fs::is_directory(abs, ec)) relstr += "/";
    int result = 0;
    if (git_ignore_path_is_ignored(&result, repo, relstr.c_str()) != 0) return false;
    return result == 1;
  }

 private:
  git_repository* repo_for(const fs::path& dir) {
    auto key = dir.string();
    auto it = repos_.find(key);
    if (it != repos_.end()) return it->second;
    if (!initialized_) {
      git_libgit2_init();
      initialized_ = true;
    }
    git_repository* repo = nullptr;
    if (git_repository_open_ext(&repo, key.c_str(), 0, nullptr) != 0) repo = nullptr;
    repos_[key] = repo;  // note: one handle per directory; repositories are small objects
    return repo;
  }
  std::map<std::string, git_repository*> repos_;
  bool initialized_ = false;
};

}  // namespace

DiscoveryResult discover_files(const std::vector<std::string>& paths,
                               const std::function<bool(const std::string&)>& exclude) {
  DiscoveryResult out;
  GitIgnore gitignore;
  for (const auto& p : paths) {
    std::error_code ec;
    auto status = fs::status(p, ec);
    if (ec || !fs::exists(status)) {
      out.errors.push_back({p, "no such file or directory"});
      continue;
    }
    if (fs::is_regular_file(status)) {
      out.files.push_back(p);
      continue;
    }
    if (!fs::is_directory(status)) {
      out.errors.push_back({p, "not a regular file or directory"});
      continue;
    }
    std::vector<std::string> found;
    fs::recursive_directory_iterator it(p, fs::directory_options::skip_permission_denied, ec), end;
    if (ec) {
      out.errors.push_back({p, "cannot read directory: " + ec.message()});
      continue;
    }
    for (; it != end; it.increment(ec)) {
      if (ec) {
        out.errors.push_back({it->path().string(), "cannot read directory: " + ec.message()});
        ec.clear();
        continue;
      }
      const fs::path& path = it->path();
      std::error_code sec;
      if (it->is_directory(sec)) {
        if (is_skipped_directory(path) || gitignore.ignored(path) || (exclude && exclude(path.string())))
          it.disable_recursion_pending();
        continue;
      }
      if (!it->is_regular_file(sec)) continue;
      if (language_for_path(path.string()) == Language::Unknown) continue;
      if (gitignore.ignored(path) || (exclude && exclude(path.string()))) continue;
      found.push_back(path.string());
    }
    std::sort(found.begin(), found.end());
    if (found.empty()) out.warnings.push_back({p, "no Python or C++/CUDA files found in this directory"});
    out.files.insert(out.files.end(), found.begin(), found.end());
  }
  return out;
}

bool read_source_file(const std::string& path, std::string& text, std::string& error, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = std::string("cannot read file: ") + std::strerror(errno);
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    error = "cannot read file: I/O error";
    return false;
  }
  text = ss.str();
  if (text.size() > max_bytes) {
    error = "file is larger than " + std::to_string(max_bytes >> 20) + " MiB; skipped";
    return false;
  }
  if (looks_binary(text)) {
    error = "binary file (contains NUL bytes); skipped";
    return false;
  }
  size_t bad = first_invalid_utf8(text);
  if (bad != std::string::npos) {
    error = "invalid UTF-8 at byte " + std::to_string(bad) + "; skipped";
    return false;
  }
  return true;
}

}  // namespace stoker
