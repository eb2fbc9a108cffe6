#include "core/config.h"
#include "core/impact.h"
#include "core/torch_version.h"
#include "core/utf8.h"
#include "core/toml_guard.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <vector>
#include <toml++/toml.h>

namespace fs = std::filesystem;

namespace stoker {

ConfigError::ConfigError(std::string f, uint32_t l, uint32_t c, std::string k, const std::string& message)
    : std::runtime_error(message), file(std::move(f)), line(l), column(c), key(std::move(k)) {}

std::string ConfigError::describe() const {
  std::string out = file;
  if (line) out += ":" + std::to_string(line) + ":" + std::to_string(column ? column : 1);
  out += ": ";
  if (!key.empty()) out += "`" + key + "`: ";
  out += what();
  return out;
}

const std::vector<std::string>& known_gpu_profiles() {
  static const std::vector<std::string> profiles = [] {
    std::vector<std::string> out;
    for (const auto& p : hardware_profiles()) out.push_back(p.name);
    return out;
  }();
  return profiles;
}

namespace {

// toml++ 3.3 (Debian 12) reaches __builtin_unreachable() when it asks whether one of these code
// points is whitespace (its generated table has holes: U+00A1-U+0499, U+2C5E-U+2FFF,
// U+3001-U+3057, U+FB26-U+FEFE), which it does for a comment's text, after a value and after a
// line-ending backslash: `# café` crashes a build with checks and is undefined behaviour in any
// other. None of them is whitespace, so the text is parsed with each one that occurs swapped for
// a code point of the supplementary private use areas (planes 15 and 16, which toml++ tests
// safely and treats alike) that does not occur in the text, literally or as a `\U` escape, and
// every string read back is swapped again. The mapping is chosen per text: a fixed one would
// send the private code points a text already holds to the unsafe ones (a fuzzer found that).
// Lines and columns (counted in code points) do not move.
constexpr std::pair<char32_t, char32_t> kTomlUnsafe[] = {
    {0x00A1, 0x0499}, {0x2C5E, 0x2FFF}, {0x3001, 0x3057}, {0xFB26, 0xFEFE}};
constexpr std::pair<char32_t, char32_t> kTomlStandIns[] = {{0xF0000, 0xFFFFD}, {0x100000, 0x10FFFD}};

bool toml_unsafe(char32_t c) {
  for (auto [lo, hi] : kTomlUnsafe)
    if (c >= lo && c <= hi) return true;
  return false;
}

// Calls f(offset, length, code point) for every well-formed, minimally encoded 2- to 4-byte
// sequence; other bytes (ASCII, invalid UTF-8, which toml++ reports) are skipped.
template <class F>
void for_each_multibyte(std::string_view text, F&& f) {
  char32_t c;
  for (size_t i = 0; i < text.size();) {
    size_t n = utf8_multibyte_at(text, i, c);
    if (n) f(i, n, c);
    i += n ? n : 1;
  }
}

// The per-text swap. Building it is linear in the text; a text that leaves no stand-in free
// (over 131,000 distinct private code points) is refused with a clear error.
class TomlSwap {
 public:
  TomlSwap(const std::string& path, std::string_view text) {
    std::vector<char32_t> unsafe;
    std::unordered_set<char32_t> taken;
    for_each_multibyte(text, [&](size_t, size_t, char32_t c) {
      if (toml_unsafe(c)) unsafe.push_back(c);
      else if (c >= kTomlStandIns[0].first) taken.insert(c);
    });
    if (unsafe.empty()) return;
    // `\UXXXXXXXX` escapes put code points in strings that the text does not hold literally.
    for (size_t i = text.find("\\U"); i != std::string_view::npos; i = text.find("\\U", i + 2)) {
      if (i + 10 > text.size()) break;
      char32_t c = 0;
      bool hex = true;
      for (size_t k = i + 2; k < i + 10 && hex; ++k) {
        char h = text[k];
        hex = std::isxdigit(static_cast<unsigned char>(h));
        if (hex) c = c * 16 + static_cast<char32_t>(std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : (h | 0x20) - 'a' + 10);
      }
      if (hex) taken.insert(c);
    }
    auto range = std::begin(kTomlStandIns);
    char32_t next = range->first;
    for (char32_t u : unsafe) {
      if (fwd_.count(u)) continue;
      while (range != std::end(kTomlStandIns) && (next > range->second || taken.count(next))) {
        if (next > range->second) {
          if (++range == std::end(kTomlStandIns)) break;
          next = range->first;
        } else {
          ++next;
        }
      }
      if (range == std::end(kTomlStandIns))
        throw ConfigError(path, 0, 0, "", "the file holds too many distinct private-use characters to be read");
      fwd_.emplace(u, next);
      back_.emplace(next, u);
      ++next;
    }
  }
  std::string to_toml(std::string_view s) const { return map(s, fwd_); }
  std::string from_toml(std::string_view s) const { return map(s, back_); }

 private:
  static std::string map(std::string_view s, const std::unordered_map<char32_t, char32_t>& m) {
    if (m.empty()) return std::string(s);
    std::string out;
    out.reserve(s.size() + s.size() / 8);
    size_t done = 0;
    for_each_multibyte(s, [&](size_t i, size_t n, char32_t c) {
      auto it = m.find(c);
      if (it == m.end()) return;
      out.append(s.substr(done, i - done));
      append_utf8(out, it->second);
      done = i + n;
    });
    out.append(s.substr(done));
    return out;
  }
  std::unordered_map<char32_t, char32_t> fwd_, back_;
};

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string suggestion(std::string_view key, const std::vector<std::string_view>& allowed) {
  std::string_view best;
  size_t best_d = std::max<size_t>(3, key.size() / 3 + 1);
  for (auto k : allowed) {
    size_t d = edit_distance(key, k);
    if (d < best_d) best_d = d, best = k;
  }
  return best.empty() ? std::string() : " (did you mean `" + std::string(best) + "`?)";
}

const char* type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::array: return "an array";
    case toml::node_type::table: return "a table";
    default: return "a date or time";
  }
}

// Reads one table of stoker keys, reporting errors at the offending node.
class TableReader {
 public:
  TableReader(std::string file, std::string prefix, const fs::path& root, const RuleRegistry& rules,
              const TomlSwap& swap)
      : file_(std::move(file)), prefix_(std::move(prefix)), root_(root), rules_(rules), swap_(swap) {}

  // `extending`: `s` holds the settings of the file named by `extend`, and this table is merged
  // onto them as ruff merges: a `select` here starts the rule selection afresh, otherwise
  // `extend-select` and `ignore` add to the base's (and win over its less specific entries);
  // `extend-exclude` adds; every other key replaces.
  void read(const toml::table& t, Settings& s, bool extending = false) {
    static const std::vector<std::string_view> keys{
        "select",  "extend-select", "ignore", "per-file-ignores", "exclude",   "extend-exclude",        "gpu",
        "min-batch-size", "default-workers", "report-unused-ignores", "workload", "cxx", "extend", "analysis-budget",
        "target-torch-version"};
    std::optional<std::vector<std::string>> select, extend_select, ignore;
    for (auto&& [k, v] : t) {
      std::string key = swap_.from_toml(k.str());
      if (key == "extend") continue;  // read by the caller
      else if (key == "select") select = codes(v, key);
      else if (key == "extend-select") extend_select = codes(v, key);
      else if (key == "ignore") ignore = codes(v, key);
      else if (key == "per-file-ignores") per_file_ignores(v, s);
      else if (key == "exclude") s.exclude = strings(v, key);
      else if (key == "extend-exclude") {
        auto more = strings(v, key);
        if (!extending) s.extend_exclude.clear();
        s.extend_exclude.insert(s.extend_exclude.end(), more.begin(), more.end());
      }
      else if (key == "gpu") {
        std::string g = string(v, key);
        const auto& known = known_gpu_profiles();
        if (std::find(known.begin(), known.end(), g) == known.end()) {
          std::string list;
          for (const auto& p : known) list += (list.empty() ? "" : ", ") + p;
          fail(v, key, "unknown GPU profile `" + g + "` (known: " + list + ")");
        }
        s.gpu = g;
      } else if (key == "min-batch-size") s.min_batch_size = static_cast<int>(integer(v, key, 1));
      else if (key == "default-workers") {
        if (v.is_integer()) s.default_workers = std::to_string(integer(v, key, 0));
        else if (v.is_string() && !v.value<std::string>()->empty()) s.default_workers = swap_.from_toml(*v.value<std::string>());
        else fail(v, key, std::string("expected an integer or a Python expression string, found ") + type_name(v));
      } else if (key == "report-unused-ignores") s.report_unused_ignores = boolean(v, key);
      else if (key == "workload") workload(v, s);
      else if (key == "analysis-budget") s.analysis_budget = static_cast<unsigned long long>(integer(v, key, 0));
      else if (key == "cxx") cxx(v, s);
      else if (key == "target-torch-version") {
        std::string t = string(v, key);
        if (!parse_torch_version(t)) fail(v, key, "expected a PyTorch version \"MAJOR.MINOR\" such as \"2.1\"");
        s.target_torch_version = parse_torch_version(t)->str();
      }
      else fail_key(k, key, "unknown key" + suggestion(key, keys));
    }
    RuleSelection& r = s.rules;
    if (!extending || select) {
      if (select) r.select = *select;
      if (extending || extend_select) r.extend_select = extend_select.value_or(std::vector<std::string>{});
      if (extending || ignore) r.ignore = ignore.value_or(std::vector<std::string>{});
      return;
    }
    // Later wins: what this file enables is no longer ignored by the base, what it ignores is no
    // longer enabled by the base (selectors of the base that the new one covers are dropped).
    auto covers = [](const std::string& outer, const std::string& inner) {
      return outer == "ALL" || inner.rfind(outer, 0) == 0;
    };
    auto drop_covered = [&](std::vector<std::string>& list, const std::vector<std::string>& by) {
      std::erase_if(list, [&](const std::string& code) {
        return std::any_of(by.begin(), by.end(), [&](const std::string& b) { return covers(b, code); });
      });
    };
    if (extend_select) {
      drop_covered(r.ignore, *extend_select);
      r.extend_select.insert(r.extend_select.end(), extend_select->begin(), extend_select->end());
    }
    if (ignore) {
      drop_covered(r.select, *ignore);
      drop_covered(r.extend_select, *ignore);
      r.ignore.insert(r.ignore.end(), ignore->begin(), ignore->end());
    }
  }

 private:
  [[noreturn]] void fail(const toml::node& n, const std::string& key, const std::string& msg) const {
    throw ConfigError(file_, n.source().begin.line, n.source().begin.column, prefix_ + key, msg);
  }
  [[noreturn]] void fail_key(const toml::key& k, const std::string& key, const std::string& msg) const {
    throw ConfigError(file_, k.source().begin.line, k.source().begin.column, prefix_ + key, msg);
  }
  std::string string(const toml::node& v, const std::string& key) const {
    if (!v.is_string()) fail(v, key, std::string("expected a string, found ") + type_name(v));
    return swap_.from_toml(*v.value<std::string>());
  }
  bool boolean(const toml::node& v, const std::string& key) const {
    if (!v.is_boolean()) fail(v, key, std::string("expected a boolean, found ") + type_name(v));
    return *v.value<bool>();
  }
  int64_t integer(const toml::node& v, const std::string& key, int64_t min) const {
    if (!v.is_integer()) fail(v, key, std::string("expected an integer, found ") + type_name(v));
    int64_t i = *v.value<int64_t>();
    if (i < min || i > 1'000'000'000) fail(v, key, "expected an integer of at least " + std::to_string(min));
    return i;
  }
  double number(const toml::node& v, const std::string& key, bool allow_zero) const {
    if (!v.is_number()) fail(v, key, std::string("expected a number, found ") + type_name(v));
    double d = *v.value<double>();
    if (d < 0 || (!allow_zero && d == 0) || !std::isfinite(d))
      fail(v, key, allow_zero ? "expected a number of at least 0" : "expected a number greater than 0");
    return d;
  }
  std::vector<std::string> strings(const toml::node& v, const std::string& key) const {
    const toml::array* a = v.as_array();
    if (!a) fail(v, key, std::string("expected an array of strings, found ") + type_name(v));
    std::vector<std::string> out;
    for (const auto& item : *a) {
      if (!item.is_string()) fail(item, key, std::string("expected an array of strings, found ") + type_name(item) +
                                                 " in the array");
      out.push_back(swap_.from_toml(*item.value<std::string>()));
    }
    return out;
  }
  std::vector<std::string> codes(const toml::node& v, const std::string& key) const {
    auto out = strings(v, key);
    const toml::array& a = *v.as_array();
    for (size_t i = 0; i < out.size(); ++i)
      if (!rules_.is_valid_selector(out[i]))
        fail(*a.get(i), key, "unknown rule code or prefix `" + out[i] + "` (see `stoker rule --all`)");
    return out;
  }
  void per_file_ignores(const toml::node& v, Settings& s) const {
    const toml::table* t = v.as_table();
    if (!t) fail(v, "per-file-ignores", std::string("expected a table of glob = [codes], found ") + type_name(v));
    s.per_file_ignores.clear();
    for (auto&& [glob, codes_node] : *t)
      s.per_file_ignores.emplace_back(swap_.from_toml(glob.str()),
                                      codes(codes_node, "per-file-ignores." + swap_.from_toml(glob.str())));
  }
  void workload(const toml::node& v, Settings& s) const {
    const toml::table* t = v.as_table();
    if (!t) fail(v, "workload", std::string("expected a table, found ") + type_name(v));
    static const std::vector<std::string_view> keys{"step-time-ms", "load-time-ms", "batch-bytes", "workers"};
    for (auto&& [k, item] : *t) {
      std::string key = swap_.from_toml(k.str()), full = "workload." + key;
      if (key == "step-time-ms") s.workload.step_time_ms = number(item, full, false);
      else if (key == "load-time-ms") s.workload.load_time_ms = number(item, full, true);
      else if (key == "batch-bytes") s.workload.batch_bytes = number(item, full, false);
      else if (key == "workers") s.workload.workers = static_cast<int>(integer(item, full, 0));
      else fail_key(k, full, "unknown key" + suggestion(key, keys));
    }
  }
  void cxx(const toml::node& v, Settings& s) const {
    const toml::table* t = v.as_table();
    if (!t) fail(v, "cxx", std::string("expected a table, found ") + type_name(v));
    static const std::vector<std::string_view> keys{"compile-commands", "extra-args", "cuda-path"};
    for (auto&& [k, item] : *t) {
      std::string key = swap_.from_toml(k.str()), full = "cxx." + key;
      if (key == "compile-commands") s.compile_commands_dir = path(item, full);
      else if (key == "extra-args") s.cxx_extra_args = strings(item, full);
      else if (key == "cuda-path") s.cuda_path = path(item, full);
      else fail_key(k, full, "unknown key" + suggestion(key, keys));
    }
  }
  std::string path(const toml::node& v, const std::string& key) const {
    fs::path p = string(v, key);
    if (p.empty()) return {};
    return (p.is_absolute() ? p : (root_ / p)).lexically_normal().string();
  }

  std::string file_, prefix_;
  fs::path root_;
  const RuleRegistry& rules_;
  const TomlSwap& swap_;
};

fs::path absolute_of(const std::string& p) {
  std::error_code ec;
  fs::path a = fs::absolute(p, ec);
  return (ec ? fs::path(p) : a).lexically_normal();
}

std::optional<Settings> load_chain(const std::string& path, const Settings& base, const RuleRegistry& rules,
                                   const fs::path& root, std::vector<std::string>& chain);

std::optional<Settings> parse_with_root(const std::string& path, std::string_view text, const Settings& base,
                                        const RuleRegistry& rules, const fs::path& root,
                                        std::vector<std::string>& chain) {
  toml::table doc;
  TomlSwap swap(path, text);
  try {
    doc = toml::parse(swap.to_toml(text), path);
  } catch (const toml::parse_error& e) {
    throw ConfigError(path, e.source().begin.line, e.source().begin.column, "",
                      "invalid TOML: " + swap.from_toml(e.description()));
  } catch (const TomlCheckFailed& e) {
    throw ConfigError(path, 0, 0, "", std::string("invalid TOML: ") + e.what());
  }
  bool pyproject = fs::path(path).filename() == "pyproject.toml";
  const toml::table* table = &doc;
  std::string prefix;
  if (pyproject) {
    const toml::node* tool = doc.get("tool");
    if (!tool || !tool->is_table()) return std::nullopt;
    const toml::node* st = tool->as_table()->get("stoker");
    if (!st) return std::nullopt;
    if (!st->is_table())
      throw ConfigError(path, st->source().begin.line, st->source().begin.column, "tool.stoker",
                        std::string("expected a table, found ") + type_name(*st));
    table = st->as_table();
    prefix = "tool.stoker.";
  }
  Settings s = base;
  bool extending = false;
  if (const toml::node* ext = table->get("extend")) {
    auto fail = [&](const std::string& msg) {
      throw ConfigError(path, ext->source().begin.line, ext->source().begin.column, prefix + "extend", msg);
    };
    if (!ext->is_string()) fail(std::string("expected a path string, found ") + type_name(*ext));
    std::string target = swap.from_toml(*ext->value<std::string>());
    if (target.rfind("~/", 0) == 0)
      if (const char* home = std::getenv("HOME")) target = std::string(home) + target.substr(1);
    fs::path p = target;
    // As ruff: relative to the directory of the file that says `extend`.
    p = (p.is_absolute() ? p : absolute_of(path).parent_path() / p).lexically_normal();
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) fail("cannot read `" + p.string() + "` (no such file)");
    if (std::find(chain.begin(), chain.end(), p.string()) != chain.end()) fail("`extend` cycle through `" + p.string() + "`");
    chain.push_back(p.string());
    std::optional<Settings> parent;
    try {
      // The base file's own paths (cxx.*) are relative to its directory.
      parent = load_chain(p.string(), base, rules, p.parent_path(), chain);
    } catch (const ConfigError& e) {
      fail("in the extended configuration: " + e.describe());
    }
    chain.pop_back();
    if (!parent) fail("`" + p.string() + "` has no [tool.stoker] table");
    s = std::move(*parent);
    extending = true;
  }
  s.config_file = path;
  s.config_root = root.string();  // globs of the whole chain are relative to this file's directory
  TableReader(path, prefix, root, rules, swap).read(*table, s, extending);
  return s;
}

std::optional<Settings> parse_with_root(const std::string& path, std::string_view text, const Settings& base,
                                        const RuleRegistry& rules, const fs::path& root) {
  std::vector<std::string> chain{absolute_of(path).string()};
  return parse_with_root(path, text, base, rules, root, chain);
}

std::optional<Settings> load_chain(const std::string& path, const Settings& base, const RuleRegistry& rules,
                                   const fs::path& root, std::vector<std::string>& chain) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, 0, 0, "", "cannot read configuration file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_with_root(path, ss.str(), base, rules, root, chain);
}

}  // namespace

std::optional<Settings> parse_config_text(const std::string& path, std::string_view text, const Settings& base,
                                          const RuleRegistry& rules) {
  return parse_with_root(path, text, base, rules, absolute_of(path).parent_path());
}

static std::optional<Settings> load_with_root(const std::string& path, const Settings& base, const RuleRegistry& rules,
                                              const fs::path& root) {
  std::vector<std::string> chain{absolute_of(path).string()};
  return load_chain(path, base, rules, root, chain);
}

std::optional<Settings> load_config_file(const std::string& path, const Settings& base, const RuleRegistry& rules) {
  return load_with_root(path, base, rules, absolute_of(path).parent_path());
}

// --- Globs ------------------------------------------------------------------------------------

static bool match_component(std::string_view p, std::string_view s) {
  size_t pi = 0, si = 0, star_p = std::string_view::npos, star_s = 0;
  while (si < s.size()) {
    if (pi < p.size() && p[pi] == '*') {
      star_p = pi++;
      star_s = si;
      continue;
    }
    if (pi < p.size() && p[pi] == '[') {
      size_t close = p.find(']', pi + 2);
      if (close != std::string_view::npos) {
        bool negate = p[pi + 1] == '!' || p[pi + 1] == '^';
        bool hit = false;
        for (size_t k = pi + 1 + (negate ? 1 : 0); k < close; ++k) {
          if (k + 2 < close && p[k + 1] == '-') {
            hit |= s[si] >= p[k] && s[si] <= p[k + 2];
            k += 2;
          } else {
            hit |= s[si] == p[k];
          }
        }
        if (hit != negate) {
          pi = close + 1;
          ++si;
          continue;
        }
      } else if (s[si] == '[') {
        ++pi, ++si;
        continue;
      }
    } else if (pi < p.size() && (p[pi] == '?' || p[pi] == s[si])) {
      ++pi, ++si;
      continue;
    }
    if (star_p == std::string_view::npos) return false;
    pi = star_p + 1;
    si = ++star_s;
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

static std::vector<std::string_view> components(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t slash = s.find('/', start);
    std::string_view c = s.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (!c.empty() && c != ".") out.push_back(c);
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return out;
}

// Pattern components against path components; the pattern may match a leading directory.
static bool match_components(const std::vector<std::string_view>& p, size_t pi,
                             const std::vector<std::string_view>& s, size_t si) {
  if (pi == p.size()) return true;  // matched the whole path or a directory above it
  if (p[pi] == "**") {
    for (size_t k = si; k <= s.size(); ++k)
      if (match_components(p, pi + 1, s, k)) return true;
    return false;
  }
  if (si == s.size()) return false;
  return match_component(p[pi], s[si]) && match_components(p, pi + 1, s, si + 1);
}

bool glob_match(std::string_view pattern, std::string_view path) {
  auto s = components(path);
  if (pattern.find('/') == std::string_view::npos) {
    for (auto c : s)
      if (match_component(pattern, c)) return true;
    return false;
  }
  return match_components(components(pattern), 0, s, 0);
}

// --- Resolver ---------------------------------------------------------------------------------

ConfigResolver::ConfigResolver(std::optional<std::string> explicit_config, CliOverrides overrides,
                               const RuleRegistry& rules)
    : explicit_(std::move(explicit_config)),
      overrides_(std::move(overrides)),
      rules_(rules),
      defaults_(std::make_shared<Settings>()) {
  auto d = std::make_shared<Settings>();
  d->config_root = absolute_of(".").string();
  defaults_ = d;
}

void ConfigResolver::record(const ConfigError& e) {
  for (const auto& have : errors_)
    if (have.file == e.file) return;
  errors_.push_back(e);
}

std::vector<ConfigError> ConfigResolver::errors() const {
  std::lock_guard lock(mutex_);
  return errors_;
}

std::shared_ptr<const Settings> ConfigResolver::load(const std::string& file) {
  auto it = by_file_.find(file);
  if (it != by_file_.end()) return it->second;
  std::shared_ptr<const Settings> result;
  try {
    // With --config the file applies everywhere, so its relative paths are relative to the
    // working directory (as ruff does); a discovered file's are relative to its own directory.
    fs::path root = explicit_ ? absolute_of(".") : absolute_of(file).parent_path();
    auto s = load_with_root(file, Settings{}, rules_, root);
    if (s) result = std::make_shared<Settings>(std::move(*s));
    else if (explicit_)
      throw ConfigError(file, 0, 0, "tool.stoker", "no [tool.stoker] table in this pyproject.toml");
  } catch (const ConfigError& e) {
    record(e);
    result = defaults_;
  }
  by_file_[file] = result;
  return result;
}

std::shared_ptr<const Settings> ConfigResolver::for_directory(const std::string& abs_dir) {
  std::lock_guard lock(mutex_);
  if (explicit_) return load(*explicit_);
  std::vector<std::string> visited;
  std::shared_ptr<const Settings> found;
  fs::path dir = abs_dir;
  while (true) {
    auto it = by_dir_.find(dir.string());
    if (it != by_dir_.end()) {
      found = it->second;
      break;
    }
    visited.push_back(dir.string());
    for (const char* name : {".stoker.toml", "stoker.toml", "pyproject.toml"}) {
      std::error_code ec;
      fs::path candidate = dir / name;
      if (!fs::is_regular_file(candidate, ec)) continue;
      auto s = load(candidate.string());
      if (s) {
        found = s;
        break;
      }
    }
    if (found) break;
    fs::path parent = dir.parent_path();
    if (parent == dir || parent.empty()) {
      found = defaults_;
      break;
    }
    dir = parent;
  }
  for (const auto& v : visited) by_dir_[v] = found;
  return found;
}

static std::string relative_to(const fs::path& abs, const std::string& root) {
  fs::path rel = abs.lexically_relative(root);
  if (rel.empty() || rel.native().rfind("..", 0) == 0) return abs.generic_string();
  return rel.generic_string();
}

Settings ConfigResolver::settings_for(const std::string& path) {
  fs::path abs = absolute_of(path);
  Settings s = *for_directory(abs.parent_path().string());
  if (overrides_.select) s.rules.select = *overrides_.select;
  s.rules.extend_select.insert(s.rules.extend_select.end(), overrides_.extend_select.begin(),
                               overrides_.extend_select.end());
  s.rules.ignore.insert(s.rules.ignore.end(), overrides_.ignore.begin(), overrides_.ignore.end());
  if (overrides_.report_unused_ignores) s.report_unused_ignores = *overrides_.report_unused_ignores;
  if (overrides_.gpu) s.gpu = *overrides_.gpu;
  if (overrides_.compile_commands_dir) s.compile_commands_dir = *overrides_.compile_commands_dir;
  if (overrides_.cuda_path) s.cuda_path = *overrides_.cuda_path;
  if (overrides_.show_parse_errors) s.show_parse_errors = true;
  if (overrides_.target_torch_version) s.target_torch_version = *overrides_.target_torch_version;
  // Not configured: the torch requirement the project declares (core/torch_version.h).
  if (s.target_torch_version.empty())
    if (auto v = declared_torch_version(abs.parent_path())) s.target_torch_version = v->str();
  if (overrides_.workload) {
    const WorkloadHints& w = *overrides_.workload;
    if (w.step_time_ms) s.workload.step_time_ms = w.step_time_ms;
    if (w.load_time_ms) s.workload.load_time_ms = w.load_time_ms;
    if (w.batch_bytes) s.workload.batch_bytes = w.batch_bytes;
    if (w.workers) s.workload.workers = w.workers;
  }
  std::string rel = relative_to(abs, s.config_root);
  for (const auto& [glob, codes] : s.per_file_ignores)
    if (glob_match(glob, rel)) s.rules.ignore.insert(s.rules.ignore.end(), codes.begin(), codes.end());
  return s;
}

bool ConfigResolver::excluded(const std::string& path) {
  fs::path abs = absolute_of(path);
  auto s = for_directory(abs.parent_path().string());
  if (s->exclude.empty() && s->extend_exclude.empty()) return false;
  std::string rel = relative_to(abs, s->config_root);
  for (const auto* list : {&s->exclude, &s->extend_exclude})
    for (const auto& glob : *list)
      if (glob_match(glob, rel)) return true;
  return false;
}

std::string ConfigResolver::config_file_for(const std::string& path) {
  return for_directory(absolute_of(path).parent_path().string())->config_file;
}

// --- Showing ----------------------------------------------------------------------------------

static toml::array to_array(const std::vector<std::string>& v) {
  toml::array a;
  for (const auto& s : v) a.push_back(s);
  return a;
}

void write_effective_config(std::ostream& out, const Settings& s, const std::string& for_path) {
  out << "# Effective stoker configuration for " << for_path << "\n";
  out << "# From: " << (s.config_file.empty() ? "built-in defaults (no configuration file found)" : s.config_file)
      << "\n";
  toml::table t;
  t.insert("select", to_array(s.rules.select));
  t.insert("extend-select", to_array(s.rules.extend_select));
  t.insert("ignore", to_array(s.rules.ignore));
  toml::table pfi;
  for (const auto& [glob, codes] : s.per_file_ignores) pfi.insert(glob, to_array(codes));
  t.insert("per-file-ignores", std::move(pfi));
  t.insert("exclude", to_array(s.exclude));
  t.insert("extend-exclude", to_array(s.extend_exclude));
  t.insert("gpu", s.gpu);
  t.insert("min-batch-size", s.min_batch_size);
  t.insert("default-workers", s.default_workers);
  t.insert("report-unused-ignores", s.report_unused_ignores);
  t.insert("analysis-budget", static_cast<int64_t>(s.analysis_budget));
  t.insert("target-torch-version", effective_torch_version(s.target_torch_version).str());
  toml::table w;
  if (s.workload.step_time_ms) w.insert("step-time-ms", *s.workload.step_time_ms);
  if (s.workload.load_time_ms) w.insert("load-time-ms", *s.workload.load_time_ms);
  if (s.workload.batch_bytes) w.insert("batch-bytes", *s.workload.batch_bytes);
  if (s.workload.workers) w.insert("workers", *s.workload.workers);
  t.insert("workload", std::move(w));
  toml::table c;
  c.insert("compile-commands", s.compile_commands_dir);
  c.insert("extra-args", to_array(s.cxx_extra_args));
  c.insert("cuda-path", s.cuda_path);
  t.insert("cxx", std::move(c));
  out << t << "\n";
}

}  // namespace stoker
