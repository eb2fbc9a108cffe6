// What a module's text says about the project's layout, read before any module is parsed (the
// layout must exist before round 1): the modules it imports, and the directories it puts on
// sys.path. Both are byte scans, linear in the text, with no allocation per byte.
#include <algorithm>
#include <cctype>
#include <filesystem>

#include "python/frameworks.h"
#include "python/namespace_reads.h"
#include "python/project.h"

namespace fs = std::filesystem;

namespace stoker::python {

namespace {

constexpr size_t kMaxScannedImports = 4096;  // per module
constexpr size_t kMaxNameLength = 512;
constexpr size_t kMaxPathDirs = 64;          // sys.path entries per module
constexpr int kMaxPathEvalDepth = 8;         // nested calls and names in one path expression
constexpr int kMaxAncestors = 32;            // bases tried for a relative path

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A cursor over the text that skips blanks, backslash continuations and (inside brackets)
// newlines and comments.
struct Cursor {
  std::string_view t;
  size_t at = 0;
  int depth = 0;  // open brackets: newlines do not end the statement

  bool done() const { return at >= t.size(); }
  void blanks() {
    while (at < t.size()) {
      char c = t[at];
      if (c == ' ' || c == '\t' || c == '\f' || c == '\r') {
        ++at;
      } else if (c == '\\' && at + 1 < t.size() && (t[at + 1] == '\n' || t[at + 1] == '\r')) {
        at += 2;
      } else if (depth > 0 && c == '\n') {
        ++at;
      } else if (depth > 0 && c == '#') {
        while (at < t.size() && t[at] != '\n') ++at;
      } else {
        break;
      }
    }
  }
  bool eat(char c) {
    blanks();
    if (at < t.size() && t[at] == c) {
      ++at;
      return true;
    }
    return false;
  }
  bool peek(char c) {
    blanks();
    return at < t.size() && t[at] == c;
  }
  std::string_view ident() {
    blanks();
    size_t s = at;
    if (at < t.size() && ident_start(t[at]))
      while (at < t.size() && ident_char(t[at])) ++at;
    return t.substr(s, at - s);
  }
  bool keyword(std::string_view k) {
    blanks();
    if (t.substr(at, k.size()) != k || (at + k.size() < t.size() && ident_char(t[at + k.size()]))) return false;
    at += k.size();
    return true;
  }
  // a.b.c (dots between identifiers, blanks allowed around them)
  std::string dotted() {
    std::string out;
    for (;;) {
      auto part = ident();
      if (part.empty()) return out.size() && out.back() == '.' ? std::string{} : out;
      out += part;
      if (out.size() > kMaxNameLength) return {};
      size_t save = at;
      if (!eat('.')) break;
      if (!peek('.') && !ident_start(at < t.size() ? t[at] : ' ')) {
        at = save;
        break;
      }
      out += '.';
    }
    return out;
  }
};

// `from X import a, (b as c)`: the names after `import`.
void scan_from_names(Cursor& c, const std::string& base, std::vector<std::string>& out,
                     std::vector<std::string>* starred) {
  bool paren = c.eat('(');
  if (paren) ++c.depth;
  for (;;) {
    if (c.eat('*')) {
      if (starred) starred->push_back(base);
      break;
    }
    auto name = c.ident();
    if (name.empty()) break;
    std::string full = base;
    if (!full.empty() && full.back() != '.') full += '.';
    full += name;
    out.push_back(std::move(full));
    if (c.keyword("as")) c.ident();
    if (!c.eat(',')) break;
  }
  if (paren) {
    c.eat(')');
    --c.depth;
  }
}

}  // namespace

std::vector<std::string> imported_names(std::string_view text, std::vector<std::string>* starred) {
  std::vector<std::string> out;
  size_t line = 0;
  while (line < text.size() && out.size() < kMaxScannedImports) {
    size_t eol = text.find('\n', line);
    if (eol == std::string_view::npos) eol = text.size();
    Cursor c{text, line};
    c.blanks();
    if (c.keyword("import")) {
      for (;;) {
        std::string name = c.dotted();
        if (name.empty()) break;
        out.push_back(std::move(name));
        if (c.keyword("as")) c.ident();
        if (!c.eat(',')) break;
      }
    } else if (c.keyword("from")) {
      std::string base;
      while (c.eat('.')) base += '.';
      bool ok = c.keyword("import");  // `from . import x`
      if (!ok) {
        base += c.dotted();
        ok = c.keyword("import");
      }
      if (ok && !base.empty()) {
        out.push_back(base);
        scan_from_names(c, base, out, starred);
      }
    }
    // The next line after the statement (a parenthesized import may span several).
    line = std::max(eol, c.at);
    if (line < text.size() && text[line] != '\n') line = text.find('\n', line);
    if (line == std::string_view::npos) break;
    ++line;
  }
  return out;
}

namespace {

// Calls `statement(c, eol)` with a cursor past each line's indentation and an `async`, and the
// line's end; true at the first line it answers true for. One pass over the text.
template <class Statement>
bool any_line_start(std::string_view text, Statement statement) {
  size_t line = 0;
  while (line < text.size()) {
    size_t eol = text.find('\n', line);
    if (eol == std::string_view::npos) eol = text.size();
    Cursor c{text.substr(0, eol), line};
    c.blanks();
    c.keyword("async");
    if (statement(c, eol)) return true;
    line = eol + 1;
  }
  return false;
}

}  // namespace

bool has_loop_statement(std::string_view text) {
  return any_line_start(text, [&](Cursor& c, size_t eol) {
    if (c.keyword("for")) {
      std::string_view rest = text.substr(c.at, eol - c.at);
      return rest.find(" in ") != std::string_view::npos && rest.find(':') != std::string_view::npos;
    }
    return c.keyword("while") && text.substr(c.at, eol - c.at).find(':') != std::string_view::npos;
  });
}

bool defines_step_hook(std::string_view text) {
  const auto& names = FrameworkTable::get().step_hook_methods();
  return any_line_start(text, [&](Cursor& c, size_t eol) {
    if (!c.keyword("def")) return false;
    size_t name = c.at;
    while (name < eol && text[name] == ' ') ++name;
    size_t end = name;
    while (end < eol && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
    return end > name && names.count(std::string(text.substr(name, end - name))) > 0;
  });
}

// ---------------------------------------------------------------------------------------
// sys.path entries.

namespace {

// A path as far as the scan knows it: absolute, relative (to the working directory), or not.
struct PathValue {
  enum class Kind { Unknown, Absolute, Relative } kind = Kind::Unknown;
  fs::path path;
  static PathValue unknown() { return {}; }
};

class PathEval {
 public:
  PathEval(std::string_view text, const fs::path& file) : text_(text), file_(file) {}

  PathValue expression(Cursor& c, int depth) {
    if (depth > kMaxPathEvalDepth) return PathValue::unknown();
    PathValue v = term(c, depth);
    while (c.peek('/') && !(c.at + 1 < c.t.size() && c.t[c.at + 1] == '/')) {  // pathlib's `/`
      c.eat('/');
      v = join(v, term(c, depth));
    }
    return v;
  }

 private:
  static PathValue join(const PathValue& a, const PathValue& b) {
    if (a.kind == PathValue::Kind::Unknown || b.kind == PathValue::Kind::Unknown) return PathValue::unknown();
    if (b.kind == PathValue::Kind::Absolute) return b;
    return {a.kind, a.path / b.path};
  }
  static PathValue parent(const PathValue& a) {
    if (a.kind == PathValue::Kind::Unknown) return a;
    fs::path p = a.path.lexically_normal();
    if (p.has_filename() || p.filename().empty()) p = p.parent_path();  // "a/b/" is "a/b"
    if (a.kind == PathValue::Kind::Relative && p.empty()) p = ".";
    return {a.kind, p};
  }

  // A string literal ('...', "...", r'...'; no f-strings, no escapes of interest).
  static bool literal(Cursor& c, std::string& out) {
    c.blanks();
    size_t at = c.at;
    while (at < c.t.size() && (c.t[at] == 'r' || c.t[at] == 'R' || c.t[at] == 'u' || c.t[at] == 'U')) ++at;
    if (at >= c.t.size() || (c.t[at] != '\'' && c.t[at] != '"')) return false;
    char q = c.t[at];
    size_t end = c.t.find(q, at + 1);
    size_t nl = c.t.find('\n', at + 1);
    if (end == std::string_view::npos || (nl != std::string_view::npos && nl < end)) return false;
    out = std::string(c.t.substr(at + 1, end - at - 1));
    if (out.find('\\') != std::string::npos || out.find('{') != std::string::npos) return false;
    c.at = end + 1;
    return true;
  }

  // The value of the nearest assignment `NAME = ...` above `before` (else below it).
  PathValue name_value(std::string_view name, size_t before, int depth) {
    size_t above = std::string_view::npos, below = std::string_view::npos;  // value offsets
    for (size_t at = text_.find(name); at != std::string_view::npos; at = text_.find(name, at + 1)) {
      size_t ls = text_.rfind('\n', at);
      ls = ls == std::string_view::npos ? 0 : ls + 1;
      bool indent_only = true;
      for (size_t k = ls; k < at && indent_only; ++k) indent_only = text_[k] == ' ' || text_[k] == '\t';
      if (!indent_only || (at + name.size() < text_.size() && ident_char(text_[at + name.size()]))) continue;
      Cursor c{text_, at + name.size()};
      if (!c.eat('=') || c.peek('=')) continue;
      if (at < before) {
        above = c.at;
      } else {
        below = c.at;
        break;
      }
    }
    size_t value = above != std::string_view::npos ? above : below;
    if (value == std::string_view::npos) return PathValue::unknown();
    Cursor c{text_, value};
    return expression(c, depth + 1);
  }

  PathValue call_args_first(Cursor& c, int depth, std::vector<PathValue>* all = nullptr) {
    PathValue first;
    bool any = false;
    ++c.depth;
    if (!c.peek(')'))
      for (;;) {
        PathValue v = expression(c, depth + 1);
        if (!any) first = v;
        any = true;
        if (all) all->push_back(v);
        if (!c.eat(',') || c.peek(')')) break;
      }
    --c.depth;
    if (!c.eat(')')) return PathValue::unknown();
    return any ? first : PathValue::unknown();
  }

  PathValue term(Cursor& c, int depth) {
    PathValue v;
    std::string lit;
    if (literal(c, lit)) {
      v = {fs::path(lit).is_absolute() ? PathValue::Kind::Absolute : PathValue::Kind::Relative, fs::path(lit)};
    } else if (c.eat('(')) {
      ++c.depth;
      v = expression(c, depth + 1);
      --c.depth;
      if (!c.eat(')')) return PathValue::unknown();
    } else {
      size_t name_at = c.at;
      std::string name = c.dotted();
      if (name.empty()) return PathValue::unknown();
      std::string_view last = name;
      std::string_view qual;
      if (auto dot = name.rfind('.'); dot != std::string::npos) {
        last = std::string_view(name).substr(dot + 1);
        qual = std::string_view(name).substr(0, dot);
      }
      bool os_path = qual.empty() || qual == "os.path" || qual == "osp" || qual == "path" || qual == "op";
      if (c.eat('(')) {
        std::vector<PathValue> args;
        PathValue first = call_args_first(c, depth, &args);
        if (os_path && last == "join") {
          if (args.empty()) return PathValue::unknown();
          v = args[0];
          for (size_t i = 1; i < args.size(); ++i) v = join(v, args[i]);
        } else if (os_path && last == "dirname") {
          v = parent(first);
        } else if ((os_path && (last == "abspath" || last == "realpath" || last == "normpath")) || name == "str" ||
                   name == "os.fspath" || last == "Path" || last == "PurePath") {
          v = first;
        } else if (name == "os.getcwd") {
          v = {PathValue::Kind::Relative, fs::path(".")};
        } else {
          return PathValue::unknown();
        }
      } else if (name == "__file__") {
        v = {PathValue::Kind::Absolute, file_};
      } else if (name.find('.') == std::string::npos) {
        v = name_value(name, name_at, depth);
      } else {
        return PathValue::unknown();
      }
    }
    // Trailers: pathlib's .parent, .parents[k], .resolve(), .absolute(), .joinpath(...).
    for (;;) {
      size_t save = c.at;
      if (!c.eat('.')) break;
      auto attr = c.ident();
      if (attr == "parent") {
        v = parent(v);
      } else if (attr == "parents" && c.eat('[')) {
        c.blanks();
        size_t s = c.at;
        while (c.at < c.t.size() && std::isdigit(static_cast<unsigned char>(c.t[c.at]))) ++c.at;
        if (s == c.at || c.at - s > 2 || !c.eat(']')) return PathValue::unknown();
        int k = std::stoi(std::string(c.t.substr(s, c.at - s)));
        for (int i = 0; i <= k; ++i) v = parent(v);
      } else if ((attr == "resolve" || attr == "absolute") && c.eat('(')) {
        if (!c.eat(')')) return PathValue::unknown();
      } else if (attr == "joinpath" && c.eat('(')) {
        std::vector<PathValue> args;
        call_args_first(c, depth, &args);
        for (const auto& a : args) v = join(v, a);
      } else {
        c.at = save;
        return PathValue::unknown();
      }
    }
    return v;
  }

  std::string_view text_;
  fs::path file_;
};

}  // namespace

std::vector<std::string> sys_path_dirs(const std::string& path, std::string_view text) {
  std::vector<std::string> out;
  if (text.find("sys.path") == std::string_view::npos) return out;
  std::error_code ec;
  fs::path file = fs::absolute(fs::path(path), ec).lexically_normal();
  PathEval eval(text, file);
  for (size_t at = text.find("sys.path."); at != std::string_view::npos && out.size() < kMaxPathDirs;
       at = text.find("sys.path.", at + 1)) {
    if (at > 0 && (ident_char(text[at - 1]) || text[at - 1] == '.')) continue;
    Cursor c{text, at + 9};
    auto method = c.ident();
    if ((method != "insert" && method != "append") || !c.eat('(')) continue;
    ++c.depth;
    if (method == "insert") {  // skip the index
      c.blanks();
      while (!c.done() && c.t[c.at] != ',' && c.t[c.at] != ')' && c.t[c.at] != '\n') ++c.at;
      if (!c.eat(',')) continue;
    }
    PathValue v = eval.expression(c, 0);
    if (v.kind == PathValue::Kind::Unknown) continue;
    fs::path dir;
    if (v.kind == PathValue::Kind::Absolute) {
      dir = v.path.lexically_normal();
      if (!fs::is_directory(dir, ec)) continue;
    } else {
      // Relative to the working directory the program is started from: the file's directory or
      // one above it (a repository's root), the first where the directory exists.
      fs::path base = file.parent_path();
      for (int up = 0; up < kMaxAncestors; ++up) {
        fs::path cand = (base / v.path).lexically_normal();
        if (fs::is_directory(cand, ec)) {
          dir = cand;
          break;
        }
        if (!base.has_parent_path() || base == base.parent_path()) break;
        base = base.parent_path();
      }
      if (dir.empty()) continue;
    }
    std::string s = dir.string();
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(std::move(s));
  }
  return out;
}

namespace {
// Is the word t[at, e) an attribute stored on an object other than `self` (`cfg.workers = 4`,
// `config.epochs += 1`; not `==`, `<=`, `>=`, `!=`)? A byte test around the word.
bool attribute_store(std::string_view t, size_t at, size_t e) {
  if (at < 2 || t[at - 1] != '.') return false;
  size_t b = at - 1;
  while (b > 0 && (std::isalnum(static_cast<unsigned char>(t[b - 1])) || t[b - 1] == '_')) --b;
  if (b == at - 1 || t.substr(b, at - 1 - b) == "self") return false;
  size_t p = e;
  while (p < t.size() && (t[p] == ' ' || t[p] == '\t')) ++p;
  if (p >= t.size()) return false;
  if (t[p] == '=') return p + 1 >= t.size() || t[p + 1] != '=';
  static constexpr std::string_view kOps = "+-*/%&|^@<>";
  if (kOps.find(t[p]) == std::string_view::npos) return false;
  size_t q = p;
  if ((t[p] == '*' || t[p] == '/' || t[p] == '<' || t[p] == '>') && q + 1 < t.size() && t[q + 1] == t[p]) ++q;
  else if (t[p] == '<' || t[p] == '>') return false;  // a comparison
  return q + 1 < t.size() && t[q + 1] == '=' && (q + 2 >= t.size() || t[q + 2] != '=');
}
}  // namespace

bool ProjectLayout::attribute_stored(int into, std::string_view name, const std::function<bool(int)>& by) const {
  if (!words_indexed_) return true;
  auto it = stores_.find(std::string(name));
  if (it == stores_.end()) return false;
  for (int m : it->second) {
    if (!by(m)) continue;
    if (static_cast<size_t>(m) >= imports_.size()) return true;  // imports not known
    const auto& imp = imports_[static_cast<size_t>(m)];
    if (m == into || std::find(imp.begin(), imp.end(), into) != imp.end()) return true;
  }
  return false;
}

// Calls `f(begin, end)` for each identifier-like word of `t` (a maximal run of identifier
// characters starting with an identifier start), in order. O(text).
template <typename F>
void for_each_word(std::string_view t, F&& f) {
  for (size_t at = 0; at < t.size();) {
    if (!ident_start(t[at]) || (at > 0 && ident_char(t[at - 1]))) {
      ++at;
      continue;
    }
    size_t e = at;
    while (e < t.size() && ident_char(t[e])) ++e;
    f(at, e);
    at = e;
  }
}

namespace {
// The names a module imports by name and writes nowhere else, where the words of the statement
// `from M import a, b` (also parenthesized over several lines, or continued with `\`) start: the
// offsets of each plain `a` (not `a as x`, whose alias is what the module uses). A byte scan of
// the lines' starts (indented ones too: an import in a function or a `try`). None when the module
// may read its namespace by computed names (reads_namespace_by_name, the test unused_imports
// makes too: `from models import ResNet` then `eval(args.arch)`). In a package's `__init__.py` (`package`), a statement
// none of whose names the module writes elsewhere re-exports them (`from vidtok.trainer import
// TokenizerTrainer`: the package's API): only a statement serving the module's own code (one of its
// names written again: MGN's loss/__init__.py builds TripletLoss) leaves its other names unused.
// O(text).
std::vector<size_t> from_import_names(std::string_view t, bool package) {
  std::vector<size_t> out;
  // A package's words and how often it writes each (only when needed).
  std::unordered_map<std::string_view, int> counts;
  if (package) for_each_word(t, [&](size_t at, size_t e) { ++counts[t.substr(at, e - at)]; });
  if (reads_namespace_by_name(t)) return out;
  for (size_t line = 0; line < t.size();) {
    size_t next = t.find('\n', line);
    next = next == std::string_view::npos ? t.size() : next + 1;
    size_t at = line;
    while (at < next && (t[at] == ' ' || t[at] == '\t')) ++at;
    line = next;
    if (t.compare(at, 5, "from ") != 0) continue;
    size_t imp = t.find(" import ", at);
    if (imp == std::string_view::npos || imp >= next) continue;
    size_t p = imp + 8;
    while (p < t.size() && t[p] == ' ') ++p;
    const bool paren = p < t.size() && t[p] == '(';
    if (paren) ++p;
    // The names up to the statement's end: `)`, or a newline not continued by `\`.
    std::vector<std::pair<size_t, size_t>> entry;  // the words of the current entry
    std::vector<std::pair<size_t, size_t>> names;    // the statement's plain names
    auto close_entry = [&] {
      if (entry.size() == 1) names.push_back(entry[0]);  // `a`, not `a as x`
      entry.clear();
    };
    for (; p < t.size(); ++p) {
      char c = t[p];
      if (paren && c == ')') break;
      if (!paren && c == '\n' && (p == 0 || t[p - 1] != '\\')) break;
      if (c == '#') {  // a comment to the end of the line
        while (p < t.size() && t[p] != '\n') ++p;
        if (!paren) break;
        continue;
      }
      if (c == ',') {
        close_entry();
        continue;
      }
      if (!ident_start(c) || (p > 0 && ident_char(t[p - 1]))) continue;
      size_t e = p;
      while (e < t.size() && ident_char(t[e])) ++e;
      entry.push_back({p, e});
      p = e - 1;
    }
    close_entry();
    bool own_use = !package;
    for (const auto& [b, e] : names) own_use = own_use || counts[t.substr(b, e - b)] > 1;
    if (own_use)
      for (const auto& n : names) out.push_back(n.first);
    if (p > line) {  // a statement over several lines: go on after it
      size_t after = t.find('\n', p);
      line = after == std::string_view::npos ? t.size() : after + 1;
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

void ProjectLayout::index_words(const std::vector<std::string_view>& texts) {
  words_.clear();
  stores_.clear();
  dotted_.clear();
  called_.clear();
  words_indexed_ = true;
  std::string word;
  for (size_t m = 0; m < texts.size(); ++m) {
    std::string_view t = texts[m];
    // A name the module imports by name and never writes again (MGN's `from loss.triplet import
    // TripletLoss, TripletSemihardLoss`, the second never built) is no mention: the module does not
    // use it. The module's other words of that spelling count. A package's `__init__.py` exports
    // what a statement imports for nothing else (from_import_names).
    const bool package = m < modules_.size() && modules_[m].is_package;
    const std::vector<size_t> imported = from_import_names(t, package);
    size_t next_imported = 0;
    for_each_word(t, [&](size_t at, size_t e) {
      while (next_imported < imported.size() && imported[next_imported] < at) ++next_imported;
      if (next_imported < imported.size() && imported[next_imported] == at) return;
      word.assign(t.substr(at, e - at));
      auto [it, fresh] = words_.try_emplace(word, static_cast<int>(m));
      if (!fresh && it->second != static_cast<int>(m)) it->second = -1;
      if (attribute_store(t, at, e)) {
        auto& ms = stores_[word];
        if (ms.empty() || ms.back() != static_cast<int>(m)) ms.push_back(static_cast<int>(m));
      }
      size_t b = at;
      while (b > 0 && (t[b - 1] == ' ' || t[b - 1] == '\t')) --b;
      const bool dotted = b > 0 && t[b - 1] == '.';
      const bool string = at > 0 && (t[at - 1] == '"' || t[at - 1] == '\'') && e < t.size() && t[e] == t[at - 1];
      if (dotted || string) {
        auto& ms = dotted_[word];
        if (ms.empty() || ms.back() != static_cast<int>(m)) ms.push_back(static_cast<int>(m));
      }
      // A call of the bare name (`train(**vars(args))`): not after a dot, `(` next, not the name
      // of a definition (`def train(`, `class Model(`).
      auto defined = [&] {
        size_t w = b;
        while (w > 0 && ident_char(t[w - 1])) --w;
        std::string_view before = t.substr(w, b - w);
        return b > w && b < at && (before == "def" || before == "class");
      };
      if (!dotted && !string && !defined()) {
        size_t c = e;
        while (c < t.size() && (t[c] == ' ' || t[c] == '\t')) ++c;
        if (c < t.size() && t[c] == '(') {
          auto& ms = called_[word];
          if (ms.empty() || ms.back() != static_cast<int>(m)) ms.push_back(static_cast<int>(m));
        }
      }
    });
  }
}

void ProjectLayout::set_imports(std::vector<std::vector<int>> imports) {
  imports_ = std::move(imports);
  // Union-find over the import edges, with path halving.
  std::vector<int> up(imports_.size());
  for (size_t m = 0; m < up.size(); ++m) up[m] = static_cast<int>(m);
  auto root = [&](int m) {
    while (up[static_cast<size_t>(m)] != m) m = up[static_cast<size_t>(m)] = up[static_cast<size_t>(up[static_cast<size_t>(m)])];
    return m;
  };
  for (size_t m = 0; m < imports_.size(); ++m)
    for (int i : imports_[m])
      if (i >= 0 && static_cast<size_t>(i) < up.size()) up[static_cast<size_t>(root(i))] = root(static_cast<int>(m));
  component_.assign(up.size(), -1);
  for (size_t m = 0; m < up.size(); ++m) component_[m] = root(static_cast<int>(m));
}

const std::vector<int>* ProjectLayout::dotted_by(std::string_view word) const {
  auto it = dotted_.find(std::string(word));
  return it == dotted_.end() ? nullptr : &it->second;
}

const std::vector<int>* ProjectLayout::called_by(std::string_view word) const {
  auto it = called_.find(std::string(word));
  return it == called_.end() ? nullptr : &it->second;
}

bool ProjectLayout::word_elsewhere(int from, std::string_view word) const {
  if (!words_indexed_) return true;
  auto it = words_.find(std::string(word));
  return it != words_.end() && it->second != from;
}

}  // namespace stoker::python
