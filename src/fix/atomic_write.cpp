#include "fix/atomic_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace stoker::fix {
namespace {

bool read_all(const std::string& path, std::string& out, std::string& error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = std::string("cannot read: ") + std::strerror(errno);
    return false;
  }
  out.clear();
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      error = std::string("cannot read: ") + std::strerror(errno);
      ::close(fd);
      return false;
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return true;
}

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

bool replace_file_atomically(const std::string& path, std::string_view bytes, std::string_view expected,
                             std::string& error) {
  char resolved[PATH_MAX];
  if (!::realpath(path.c_str(), resolved)) {
    error = std::string("cannot resolve path: ") + std::strerror(errno);
    return false;
  }
  const std::string target = resolved;
  struct stat st{};
  if (::stat(target.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    error = "not a regular file";
    return false;
  }
  std::string current;
  if (!read_all(target, current, error)) return false;
  if (current != expected) {
    error = "the file changed on disk since it was read; not fixed (run stoker again)";
    return false;
  }
  const size_t slash = target.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : target.substr(0, slash);
  const std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
  std::string tmpl = dir + "/." + base + ".stoker-XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  int fd = ::mkstemp(name.data());
  if (fd < 0) {
    error = std::string("cannot create a temporary file next to it: ") + std::strerror(errno);
    return false;
  }
  const std::string tmp = name.data();
  auto fail = [&](const char* what) {
    error = std::string(what) + ": " + std::strerror(errno);
    ::close(fd);
    ::unlink(tmp.c_str());
    return false;
  };
  if (!write_all(fd, bytes)) return fail("cannot write the temporary file");
  if (::fchmod(fd, st.st_mode & 07777) != 0) return fail("cannot set permissions");
  // Keeping the owner only works for root or the owner itself; otherwise the new file is ours.
  if (::fchown(fd, st.st_uid, st.st_gid) != 0) { /* best effort */ }
  if (::fsync(fd) != 0) return fail("cannot flush the temporary file");
  if (::close(fd) != 0) {
    error = std::string("cannot close the temporary file: ") + std::strerror(errno);
    ::unlink(tmp.c_str());
    return false;
  }
  // Last look right before the rename, to keep the window for a concurrent editor small.
  if (!read_all(target, current, error) || current != expected) {
    if (error.empty()) error = "the file changed on disk since it was read; not fixed (run stoker again)";
    ::unlink(tmp.c_str());
    return false;
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    error = std::string("cannot replace the file: ") + std::strerror(errno);
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace stoker::fix
