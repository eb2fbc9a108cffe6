#include "core/discover.h"

#include <fcntl.h>
#include <git2.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
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
    if (!initialized_ && !may_be_in_repository(dir)) {
      repos_[key] = nullptr;
      return nullptr;
    }
    if (!initialized_) {
      git_libgit2_init();
      initialized_ = true;
    }
    git_repository* repo = nullptr;
    if (git_repository_open_ext(&repo, key.c_str(), 0, nullptr) != 0) repo = nullptr;
    repos_[key] = repo;  // note: one handle per directory; repositories are small objects
    return repo;
  }
  // libgit2 finds a repository as a `.git` entry (directory or gitlink file) in the directory
  // or an ancestor, or as a bare repository (HEAD, objects/, refs/) there. Without any, there is
  // none to open, and libgit2 is not initialized (its start reads the CA bundle, ~55 M
  // instructions, for TLS that stoker never uses). A false "maybe" only costs the start.
  static bool may_be_in_repository(const fs::path& dir) {
    std::error_code ec;
    fs::path real = fs::canonical(dir, ec);  // libgit2 searches from the real path
    if (!ec && real != dir && ancestors_hold_repository(real)) return true;
    return ancestors_hold_repository(dir);
  }
  static bool ancestors_hold_repository(const fs::path& dir) {
    std::error_code ec;
    for (fs::path d = dir;; d = d.parent_path()) {
      if (fs::exists(d / ".git", ec)) return true;
      if (fs::exists(d / "HEAD", ec) && fs::is_directory(d / "objects", ec) && fs::is_directory(d / "refs", ec))
        return true;
      if (d == d.parent_path() || d.empty()) return false;
    }
  }
  std::map<std::string, git_repository*> repos_;
  bool initialized_ = false;
};

const char* file_type_name(fs::file_type t) {
  switch (t) {
    case fs::file_type::fifo: return "a FIFO (named pipe)";
    case fs::file_type::socket: return "a socket";
    case fs::file_type::block: return "a block device";
    case fs::file_type::character: return "a character device";
    default: return "not a regular file";
  }
}

bool is_loop(const std::error_code& ec) { return ec == std::errc::too_many_symbolic_link_levels; }

// The identity of a file or directory, for analyzing it once however often it is reached.
std::string identity(const fs::path& p) {
  std::error_code ec;
  fs::path abs = fs::absolute(p, ec);
  if (ec) return p.lexically_normal().string();
  fs::path c = fs::weakly_canonical(abs, ec);
  return ec ? abs.lexically_normal().string() : c.string();
}

}  // namespace

DiscoveryResult discover_files(const std::vector<std::string>& paths,
                               const std::function<bool(const std::string&)>& exclude) {
  DiscoveryResult out;
  GitIgnore gitignore;
  std::set<std::string> seen_files, seen_dirs, seen_args;
  auto add_file = [&](const std::string& p, std::vector<std::string>& to) {
    if (seen_files.insert(identity(p)).second) to.push_back(p);
  };
  for (const auto& p : paths) {
    if (!seen_args.insert(identity(p)).second) {
      out.warnings.push_back({p, "given more than once; analyzed once"});
      continue;
    }
    std::error_code ec;
    auto status = fs::status(p, ec);
    if (is_loop(ec)) {
      out.errors.push_back({p, "symbolic link loop"});
      continue;
    }
    if (ec || !fs::exists(status)) {
      std::error_code lec;
      if (fs::is_symlink(fs::symlink_status(p, lec))) out.errors.push_back({p, "broken symbolic link"});
      else if (ec && ec != std::errc::no_such_file_or_directory) out.errors.push_back({p, "cannot access: " + ec.message()});
      else out.errors.push_back({p, "no such file or directory"});
      continue;
    }
    if (fs::is_regular_file(status)) {
      add_file(p, out.files);
      continue;
    }
    if (!fs::is_directory(status)) {
      // Never opened: opening a FIFO would block until a writer comes.
      out.errors.push_back({p, std::string("not a regular file or directory (") + file_type_name(status.type()) + "); skipped"});
      continue;
    }
    // The walk: one directory at a time, each read on its own, so an unreadable directory is
    // reported and its siblings are still walked. Symbolic links to directories are not
    // followed (as git and ruff), so a link cycle cannot make the walk loop.
    std::vector<std::string> found;
    std::vector<fs::path> pending{fs::path(p)};
    if (!seen_dirs.insert(identity(p)).second) continue;  // inside a directory already walked
    bool any_error = false;
    while (!pending.empty()) {
      fs::path dir = std::move(pending.back());
      pending.pop_back();
      fs::directory_iterator it(dir, ec), end;
      if (ec) {
        out.errors.push_back({dir.string(), "cannot read directory: " + ec.message()});
        any_error = true;
        continue;
      }
      std::vector<fs::path> subdirs;
      for (; it != end; it.increment(ec)) {
        if (ec) break;
        const fs::path& path = it->path();
        std::error_code sec;
        fs::file_status link = it->symlink_status(sec);
        fs::file_status target = it->status(sec);
        bool source = language_for_path(path.string()) != Language::Unknown;
        if (sec) {
          if (is_loop(sec)) out.warnings.push_back({path.string(), "symbolic link loop; skipped"});
          else if (fs::is_symlink(link) && source) out.warnings.push_back({path.string(), "broken symbolic link; skipped"});
          else if (source) out.warnings.push_back({path.string(), "cannot access: " + sec.message() + "; skipped"});
          continue;
        }
        if (fs::is_directory(target)) {
          if (fs::is_symlink(link)) continue;
          if (is_skipped_directory(path) || gitignore.ignored(path) || (exclude && exclude(path.string()))) continue;
          if (seen_dirs.insert(identity(path)).second) subdirs.push_back(path);
          continue;
        }
        if (!source) continue;
        if (!fs::is_regular_file(target)) {
          out.warnings.push_back({path.string(), std::string(file_type_name(target.type())) + "; skipped"});
          continue;
        }
        if (gitignore.ignored(path) || (exclude && exclude(path.string()))) continue;
        found.push_back(path.string());
      }
      if (ec) {
        out.errors.push_back({dir.string(), "cannot read directory: " + ec.message()});
        any_error = true;
      }
      // Depth first, in name order (the final list is sorted anyway).
      std::sort(subdirs.rbegin(), subdirs.rend());
      for (auto& s : subdirs) pending.push_back(std::move(s));
    }
    // Sorted before duplicates (a file and a link to it) are dropped: the first spelling in
    // name order is kept, whatever order the directories were read in.
    std::sort(found.begin(), found.end());
    if (found.empty() && !any_error)
      out.warnings.push_back({p, "no Python or C++/CUDA files found in this directory"});
    for (const auto& f : found) add_file(f, out.files);
  }
  return out;
}

bool read_source_file(const std::string& path, std::string& text, std::string& error, size_t max_bytes) {
  // O_NONBLOCK: a path that became a FIFO after discovery must not block the run.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    int e = errno;
    error = e == ENOENT ? "cannot read file: it no longer exists (removed during the run?)"
                        : std::string("cannot read file: ") + std::strerror(e);
    return false;
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st{};
  if (::fstat(fd, &st) != 0) {
    error = std::string("cannot read file: ") + std::strerror(errno);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    error = S_ISFIFO(st.st_mode) ? "not a regular file (a FIFO); skipped" : "not a regular file; skipped";
    return false;
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    error = "file is larger than " + std::to_string(max_bytes >> 20) + " MiB; skipped";
    return false;
  }
  text.clear();
  text.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = std::string("cannot read file: ") + std::strerror(errno);
      return false;
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > max_bytes) {  // it grew while being read
      error = "file is larger than " + std::to_string(max_bytes >> 20) + " MiB; skipped";
      return false;
    }
  }
  if (looks_binary(text)) {
    error = "binary file (contains NUL bytes); skipped";
    return false;
  }
  if (size_t nul = text.find('\0'); nul != std::string::npos) {
    LineIndex lines(text);
    auto pos = lines.position(text, static_cast<uint32_t>(nul));
    error = "source contains a NUL byte at line " + std::to_string(pos.row) + ", column " +
            std::to_string(pos.column) + "; skipped (Python and C++ source cannot contain NUL bytes)";
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
