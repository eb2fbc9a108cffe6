#include "output/paths.h"

#include <cctype>
#include <filesystem>

namespace fs = std::filesystem;

namespace stoker::output {

static fs::path cwd() {
  std::error_code ec;
  fs::path p = fs::current_path(ec);
  return ec ? fs::path("/") : p;
}

static fs::path absolute_of(const std::string& path) {
  fs::path p(path);
  return (p.is_absolute() ? p : cwd() / p).lexically_normal();
}

bool under_working_directory(const std::string& path) {
  fs::path rel = absolute_of(path).lexically_relative(cwd());
  return !rel.empty() && rel.native().rfind("..", 0) != 0;
}

std::string relative_path(const std::string& path) {
  fs::path abs = absolute_of(path);
  fs::path rel = abs.lexically_relative(cwd());
  if (rel.empty() || rel.native().rfind("..", 0) == 0) return abs.generic_string();
  return rel.generic_string();
}

std::string uri_escape(std::string_view path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

std::string working_directory_uri() {
  std::string p = cwd().generic_string();
  if (p.empty() || p.back() != '/') p.push_back('/');
  return "file://" + uri_escape(p);
}

}  // namespace stoker::output
