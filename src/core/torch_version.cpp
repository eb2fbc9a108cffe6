#include "core/torch_version.h"

#include <cctype>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

namespace stoker {

namespace fs = std::filesystem;

std::optional<TorchVersion> parse_torch_version(std::string_view t) {
  auto number = [&](size_t& i, int& out) {
    size_t s = i;
    long v = 0;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])) && i - s < 4) v = v * 10 + (t[i++] - '0');
    out = static_cast<int>(v);
    return i > s;
  };
  size_t i = 0;
  while (i < t.size() && t[i] == ' ') ++i;
  TorchVersion v;
  if (!number(i, v.major)) return std::nullopt;
  if (i < t.size() && t[i] == '.') {
    ++i;
    if (!number(i, v.minor)) return std::nullopt;
  }
  // A patch level, local version or pre-release tag may follow; nothing else.
  if (i < t.size() && !(t[i] == '.' || t[i] == '+' || t[i] == ' ' || std::isalpha(static_cast<unsigned char>(t[i]))))
    return std::nullopt;
  if (v.major < 1 || v.major > 9) return std::nullopt;
  return v;
}

TorchVersion effective_torch_version(const std::string& setting) {
  auto v = parse_torch_version(setting);
  return v ? *v : kNewestTorch;
}

std::optional<TorchVersion> torch_requirement_floor(std::string_view line) {
  size_t semi = line.find(';');
  if (semi != std::string_view::npos) line = line.substr(0, semi);
  size_t i = 0;
  while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
  if (line.substr(i, 5) != "torch") return std::nullopt;
  i += 5;
  // `torchvision`, `torch-geometric`: another package.
  if (i < line.size() && (std::isalnum(static_cast<unsigned char>(line[i])) || line[i] == '-' || line[i] == '_' ||
                          line[i] == '.'))
    return std::nullopt;
  if (i < line.size() && line[i] == '[') {  // extras
    size_t close = line.find(']', i);
    if (close == std::string_view::npos) return std::nullopt;
    i = close + 1;
  }
  std::optional<TorchVersion> lower, upper_exclusive;
  std::string_view rest = line.substr(i);
  size_t p = 0;
  while (p < rest.size()) {
    while (p < rest.size() && (rest[p] == ' ' || rest[p] == ',' || rest[p] == '(' || rest[p] == ')')) ++p;
    if (p >= rest.size()) break;
    std::string op;
    while (p < rest.size() && std::string_view("<>=!~").find(rest[p]) != std::string_view::npos) op += rest[p++];
    while (p < rest.size() && rest[p] == ' ') ++p;
    size_t e = p;
    while (e < rest.size() && rest[e] != ',' && rest[e] != ' ' && rest[e] != ')') ++e;
    auto v = parse_torch_version(rest.substr(p, e - p));
    p = e;
    if (!v || op.empty()) continue;
    if (op == "==" || op == "===" || op == ">=" || op == "~=" || op == ">") {
      if (!lower || *lower < *v) lower = v;
    } else if (op == "<" || op == "<=") {
      upper_exclusive = v;
    }
  }
  if (lower) return lower;
  if (upper_exclusive) {
    TorchVersion u = *upper_exclusive;
    if (u.minor > 0) return TorchVersion{u.major, u.minor - 1};
    if (u.major == 2) return TorchVersion{1, 13};
  }
  return std::nullopt;
}

namespace {

std::optional<TorchVersion> from_requirements(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    if (auto v = torch_requirement_floor(line)) return v;
  }
  return std::nullopt;
}

// Every quoted string in the file that is a torch requirement: [project] dependencies,
// optional-dependencies and tool tables (poetry's `torch = "^2.1"` is a key, read below).
std::optional<TorchVersion> from_pyproject(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    size_t hash = line.find('#');
    if (hash != std::string::npos && line.find('"') > hash) line.resize(hash);
    for (size_t q = line.find('"'); q != std::string::npos;) {
      size_t close = line.find('"', q + 1);
      if (close == std::string::npos) break;
      if (auto v = torch_requirement_floor(std::string_view(line).substr(q + 1, close - q - 1))) return v;
      q = line.find('"', close + 1);
    }
    // Poetry: `torch = "^2.1"` / `torch = ">=2.0"`.
    size_t k = line.find_first_not_of(" \t");
    if (k != std::string::npos && line.compare(k, 5, "torch") == 0) {
      size_t eq = line.find('=', k + 5);
      size_t q = line.find('"', k + 5);
      if (eq != std::string::npos && q != std::string::npos && line.find_first_not_of(" \t", k + 5) == eq) {
        size_t close = line.find('"', q + 1);
        std::string spec = line.substr(q + 1, close == std::string::npos ? std::string::npos : close - q - 1);
        size_t d = spec.find_first_of("0123456789");
        if (d != std::string::npos) {
          std::string ops = spec.substr(0, d);
          auto v = parse_torch_version(std::string_view(spec).substr(d));
          if (v && ops.find('<') == std::string::npos) return v;
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<TorchVersion> declared_torch_version(const fs::path& start) {
  static std::mutex mutex;
  static std::map<std::string, std::optional<TorchVersion>> memo;
  std::lock_guard lock(mutex);
  auto it = memo.find(start.string());
  if (it != memo.end()) return it->second;
  std::optional<TorchVersion> found;
  std::error_code ec;
  fs::path dir = start;
  for (int depth = 0; depth < 64; ++depth) {
    if (auto m = memo.find(dir.string()); m != memo.end() && depth > 0) {
      found = m->second;
      break;
    }
    if (fs::is_regular_file(dir / "requirements.txt", ec) && (found = from_requirements(dir / "requirements.txt")))
      break;
    if (fs::is_regular_file(dir / "pyproject.toml", ec) && (found = from_pyproject(dir / "pyproject.toml"))) break;
    if (fs::exists(dir / ".git", ec)) break;
    fs::path parent = dir.parent_path();
    if (parent == dir || parent.empty()) break;
    dir = parent;
  }
  memo[start.string()] = found;
  return found;
}

}  // namespace stoker
