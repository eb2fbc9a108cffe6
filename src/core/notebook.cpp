#include "core/notebook.h"
#include "core/utf8.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "core/suppression.h"

namespace stoker {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t'; }

uint32_t line_end(std::string_view t, uint32_t i) {
  size_t nl = t.find('\n', i);
  return nl == std::string_view::npos ? static_cast<uint32_t>(t.size()) : static_cast<uint32_t>(nl);
}

// The end of a magic that starts at `i`: the end of its line, and of each line a trailing
// backslash continues.
uint32_t magic_end(std::string_view t, uint32_t i) {
  uint32_t e = line_end(t, i);
  while (true) {
    uint32_t b = e;
    while (b > i && t[b - 1] == '\r') --b;
    if (b == i || t[b - 1] != '\\' || e >= t.size()) return e;
    e = line_end(t, e + 1);
  }
}

// Python cell magics (the cell below them is Python), as ruff lists them.
constexpr std::string_view kPythonCellMagics[] = {"capture", "debug", "prun", "pypy", "python", "python3", "time", "timeit"};

// IPython commands that run without `%` (automagic) and that a cell of shell-like lines starts
// with, as ruff recognizes them.
constexpr std::string_view kAutomagics[] = {
    "alias",  "autoawait", "autocall", "automagic", "bookmark", "cd",      "code",    "colors",  "conda",
    "config", "dhist",     "dirs",     "doctest_mode", "edit",  "env",     "gui",     "history", "killbgscripts",
    "load",   "load_ext",  "loadpy",   "logoff",    "logon",    "logstart", "logstate", "logstop", "lsmagic",
    "macro",  "magic",     "mamba",    "matplotlib", "micromamba", "notebook", "page",  "pastebin", "pdb",
    "pdef",   "pdoc",      "pfile",    "pinfo",     "pinfo2",   "pip",     "popd",    "pprint",  "precision",
    "psearch", "psource",  "pushd",    "pwd",       "pycat",    "pylab",   "quickref", "recall", "rehashx",
    "reload_ext", "rerun", "reset",    "reset_selective", "run", "save",   "sc",      "set_env", "sx",
    "system", "tb",        "unalias",  "unload_ext", "who",     "who_ls",  "whos",    "xdel",    "xmode"};

// ---- JSON strings -------------------------------------------------------------------------------


int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A scanner over JSON text that nlohmann has already accepted: it only locates things.
struct RawJson {
  std::string_view t;
  size_t i = 0;
  bool ok = true;

  void ws() {
    while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) ++i;
  }
  bool eat(char c) {
    ws();
    if (i < t.size() && t[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  bool read_hex4(size_t at, uint32_t& v) {
    if (at + 4 > t.size()) return false;
    v = 0;
    for (size_t k = 0; k < 4; ++k) {
      int h = hex_value(t[at + k]);
      if (h < 0) return false;
      v = v * 16 + static_cast<uint32_t>(h);
    }
    return true;
  }
  // Reads a string at i (after whitespace). `lines`: split the decoded text after each "\n",
  // with the raw span (inside the quotes) of each line.
  bool string(std::string& out, size_t& begin, size_t& end, std::vector<NotebookPiece>* lines = nullptr) {
    ws();
    if (i >= t.size() || t[i] != '"') return ok = false;
    begin = i++;
    size_t piece_start = i;
    std::string piece;
    while (i < t.size() && t[i] != '"') {
      size_t before = out.size();
      if (t[i] == '\\') {
        if (i + 1 >= t.size()) return ok = false;
        char e = t[i + 1];
        i += 2;
        switch (e) {
          case 'n': out.push_back('\n'); break;
          case 't': out.push_back('\t'); break;
          case 'r': out.push_back('\r'); break;
          case 'b': out.push_back('\b'); break;
          case 'f': out.push_back('\f'); break;
          case '/': out.push_back('/'); break;
          case '\\': out.push_back('\\'); break;
          case '"': out.push_back('"'); break;
          case 'u': {
            uint32_t cp;
            if (!read_hex4(i, cp)) return ok = false;
            i += 4;
            uint32_t lo;
            if (cp >= 0xD800 && cp < 0xDC00 && i + 1 < t.size() && t[i] == '\\' && t[i + 1] == 'u' &&
                read_hex4(i + 2, lo) && lo >= 0xDC00 && lo < 0xE000) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
              i += 6;
            }
            append_utf8(out, cp);
            break;
          }
          default: return ok = false;
        }
      } else {
        out.push_back(t[i++]);
      }
      if (lines) {
        piece.append(out, before, std::string::npos);
        if (!piece.empty() && piece.back() == '\n') {
          lines->push_back({std::move(piece), static_cast<uint32_t>(piece_start), static_cast<uint32_t>(i)});
          piece.clear();
          piece_start = i;
        }
      }
    }
    if (i >= t.size()) return ok = false;
    if (lines && !piece.empty())
      lines->push_back({std::move(piece), static_cast<uint32_t>(piece_start), static_cast<uint32_t>(i)});
    end = ++i;
    return true;
  }
  bool skip_value(int depth = 0) {
    ws();
    if (i >= t.size() || depth > 512) return ok = false;  // no notebook nests deeper
    char c = t[i];
    if (c == '"') {
      std::string s;
      size_t b, e;
      return string(s, b, e);
    }
    if (c == '{' || c == '[') {
      char close = c == '{' ? '}' : ']';
      ++i;
      if (eat(close)) return true;
      do {
        if (c == '{') {
          std::string k;
          size_t b, e;
          if (!string(k, b, e) || !eat(':')) return ok = false;
        }
        if (!skip_value(depth + 1)) return false;
      } while (eat(','));
      return eat(close) || (ok = false);
    }
    while (i < t.size() && t[i] != ',' && t[i] != '}' && t[i] != ']' && !std::isspace(static_cast<unsigned char>(t[i]))) ++i;
    return true;
  }
};

struct RawCell {
  bool has_source = false;
  bool is_array = false;
  TextRange span;
  std::vector<NotebookPiece> pieces;
};

// Locates every cell's `source` value in the bytes.
bool locate_sources(std::string_view t, std::vector<RawCell>& cells) {
  RawJson j{t};
  if (t.substr(0, 3) == "\xEF\xBB\xBF") j.i = 3;
  if (!j.eat('{')) return false;
  if (j.eat('}')) return true;
  do {
    std::string key;
    size_t b, e;
    if (!j.string(key, b, e) || !j.eat(':')) return false;
    if (key != "cells") {
      if (!j.skip_value()) return false;
      continue;
    }
    cells.clear();
    if (!j.eat('[')) return false;
    if (j.eat(']')) continue;
    do {
      RawCell cell;
      if (!j.eat('{')) return false;
      if (!j.eat('}')) {
        do {
          std::string ck;
          if (!j.string(ck, b, e) || !j.eat(':')) return false;
          if (ck != "source") {
            if (!j.skip_value()) return false;
            continue;
          }
          cell = RawCell{};
          cell.has_source = true;
          j.ws();
          size_t start = j.i;
          if (j.i < t.size() && t[j.i] == '[') {
            cell.is_array = true;
            ++j.i;
            if (!j.eat(']')) {
              do {
                std::string s;
                size_t sb, se;
                if (!j.string(s, sb, se)) return false;
                cell.pieces.push_back({std::move(s), static_cast<uint32_t>(sb), static_cast<uint32_t>(se)});
              } while (j.eat(','));
              if (!j.eat(']')) return false;
            }
          } else {
            std::string s;
            size_t sb, se;
            if (!j.string(s, sb, se, &cell.pieces)) return false;
          }
          cell.span = {static_cast<uint32_t>(start), static_cast<uint32_t>(j.i)};
        } while (j.eat(','));
        if (!j.eat('}')) return false;
      }
      cells.push_back(std::move(cell));
    } while (j.eat(','));
    if (!j.eat(']')) return false;
  } while (j.eat(','));
  return j.eat('}') && j.ok;
}

std::vector<std::string> split_lines(std::string_view s) {
  std::vector<std::string> out;
  size_t b = 0;
  while (b < s.size()) {
    size_t nl = s.find('\n', b);
    size_t e = nl == std::string_view::npos ? s.size() : nl + 1;
    out.emplace_back(s.substr(b, e - b));
    b = e;
  }
  return out;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

bool is_notebook_path(std::string_view path) {
  return path.size() >= 6 && path.substr(path.size() - 6) == ".ipynb";
}

std::string json_escape(std::string_view s, bool ascii) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() + 2);
  auto u = [&](uint32_t v) {
    out += "\\u";
    for (int sh = 12; sh >= 0; sh -= 4) out.push_back(hex[(v >> sh) & 15]);
  };
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      case '\b': out += "\\b"; continue;
      case '\f': out += "\\f"; continue;
      default: break;
    }
    if (c < 0x20) {
      u(c);
    } else if (c >= 0x80 && ascii) {
      size_t len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : 4;
      uint32_t cp = len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
      for (size_t k = 1; k < len && i + k < s.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
      i += len - 1;
      if (cp >= 0x10000) {
        cp -= 0x10000;
        u(0xD800 + (cp >> 10));
        u(0xDC00 + (cp & 0x3FF));
      } else {
        u(cp);
      }
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

bool is_foreign_cell(std::string_view text) {
  for (uint32_t i = 0; i < text.size();) {
    uint32_t e = line_end(text, i);
    std::string_view line = text.substr(i, e - i);
    i = e + 1;
    size_t b = line.find_first_not_of(" \t\r");
    if (b == std::string_view::npos) continue;
    line = line.substr(b);
    if (line.substr(0, 2) == "%%") {
      std::string_view rest = line.substr(2);
      size_t n = 0;
      while (n < rest.size() && !std::isspace(static_cast<unsigned char>(rest[n]))) ++n;
      std::string_view name = rest.substr(0, n);
      return std::find(std::begin(kPythonCellMagics), std::end(kPythonCellMagics), name) == std::end(kPythonCellMagics);
    }
    size_t n = 0;
    while (n < line.size() && (std::isalnum(static_cast<unsigned char>(line[n])) || line[n] == '_')) ++n;
    std::string_view word = line.substr(0, n);
    if (n == 0 || std::find(std::begin(kAutomagics), std::end(kAutomagics), word) == std::end(kAutomagics)) return false;
    // `pip install x`, `cd ..`, `ls`: an automagic command line. `run = 3`, `env.step()`: Python.
    std::string_view after = line.substr(n);
    size_t a = after.find_first_not_of(" \t\r");
    if (a == std::string_view::npos) return n == line.size() || after.find_first_not_of("\r") == std::string_view::npos;
    if (a == 0) return false;  // `pip(`, `cd.x`
    char c = after[a];
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '/' || c == '~' ||
           c == '$' || c == '"' || c == '\'' || c == '_';
  }
  return false;
}

std::vector<TextRange> ipython_escapes(std::string_view t) {
  std::vector<TextRange> out;
  const uint32_t n = static_cast<uint32_t>(t.size());
  int depth = 0;
  char quote = 0;       // inside a string: its quote character
  bool triple = false;
  bool continued = false;  // the previous physical line ended with a backslash
  uint32_t i = 0;
  while (i < n) {
    // A physical line starts at i.
    uint32_t eol = line_end(t, i);
    uint32_t j = i;
    bool logical_start = depth == 0 && quote == 0 && !continued;
    continued = false;
    if (logical_start) {
      while (j < eol && is_space(t[j])) ++j;
      if (j < eol && (t[j] == '%' || t[j] == '!' || t[j] == '?')) {
        uint32_t e = magic_end(t, j);
        out.push_back({j, e});
        i = e < n ? e + 1 : n;
        continue;
      }
    }
    uint32_t code_start = j;
    bool help = false;
    uint32_t k = j;
    while (k < eol) {
      char c = t[k];
      if (quote) {
        if (c == '\\') {
          k += 2;
          continue;
        }
        if (c == quote && (!triple || (k + 2 < n && t[k + 1] == quote && t[k + 2] == quote))) {
          k += triple ? 3 : 1;
          quote = 0;
          continue;
        }
        ++k;
        continue;
      }
      if (c == '#') break;
      if (c == '"' || c == '\'') {
        quote = c;
        triple = k + 2 < n && t[k + 1] == c && t[k + 2] == c;
        k += triple ? 3 : 1;
        continue;
      }
      if (c == '(' || c == '[' || c == '{') ++depth;
      else if (c == ')' || c == ']' || c == '}') depth = std::max(0, depth - 1);
      else if (c == '?' && depth == 0) help = true;
      else if (c == '=' && depth == 0 && logical_start) {
        char prev = k > 0 ? t[k - 1] : ' ';
        bool plain = std::string_view("=!<>+-*/%&|^@:").find(prev) == std::string_view::npos &&
                     (k + 1 >= n || t[k + 1] != '=');
        if (plain) {
          uint32_t m = k + 1;
          while (m < eol && is_space(t[m])) ++m;
          if (m < eol && (t[m] == '%' || (t[m] == '!' && (m + 1 >= n || t[m + 1] != '=')))) {
            // `x = !ls`, `x = %sx ls`: the value is an IPython command.
            uint32_t e = magic_end(t, m);
            out.push_back({m, e});
            eol = e;
            k = e;
            break;
          }
        }
      }
      ++k;
    }
    if (help && logical_start) out.push_back({code_start, magic_end(t, code_start)});
    if (quote && !triple) quote = 0;  // an unterminated string ends with its line
    uint32_t b = eol;
    while (b > i && t[b - 1] == '\r') --b;
    if (!quote && b > i && t[b - 1] == '\\') continued = true;
    i = eol < n ? eol + 1 : n;
  }
  return out;
}

std::string build_notebook_program(std::vector<NotebookCell>& cells) {
  std::string program;
  for (auto& c : cells) {
    if (!c.python) {
      c.start = static_cast<uint32_t>(program.size());
      c.blanked.clear();
      c.added_newline = false;
      continue;
    }
    c.start = static_cast<uint32_t>(program.size());
    c.blanked = ipython_escapes(c.text);
    std::string text = c.text;
    for (const auto& r : c.blanked) {
      for (uint32_t k = r.start; k < r.end; ++k)
        if (text[k] != '\n' && text[k] != '\r') text[k] = ' ';
      text[r.start] = '0';
    }
    program += text;
    c.added_newline = !c.text.empty() && c.text.back() != '\n';
    if (c.added_newline) program.push_back('\n');
  }
  return program;
}

const NotebookCell* Notebook::cell_at(uint32_t offset) const {
  const NotebookCell* found = nullptr;
  for (const auto& c : cells) {
    if (!c.python) continue;
    if (c.start > offset) break;
    found = &c;
  }
  return found;
}

Position Notebook::position(uint32_t offset) const {
  const NotebookCell* c = cell_at(offset);
  if (!c) return {1, 1, 0};
  uint32_t local = std::min<uint32_t>(offset - c->start, static_cast<uint32_t>(c->text.size()));
  Position p{1, 1, c->number};
  for (uint32_t k = 0; k < local; ++k) {
    auto ch = static_cast<unsigned char>(c->text[k]);
    if (ch == '\n') {
      ++p.row;
      p.column = 1;
    } else if ((ch & 0xC0) != 0x80) {
      ++p.column;
    }
  }
  return p;
}

Position Notebook::file_position(uint32_t offset) const {
  const NotebookCell* c = cell_at(offset);
  if (!c || !writable_error.empty()) return {0, 0, 0};
  uint32_t local = std::min<uint32_t>(offset - c->start, static_cast<uint32_t>(c->text.size()));
  // The piece holding `local`, and how many decoded bytes into it.
  uint32_t raw_at = c->raw_source.start, skip = 0, seen = 0;
  bool found = false;
  for (const auto& p : c->pieces) {
    uint32_t len = static_cast<uint32_t>(p.text.size());
    if (local < seen + len || (&p == &c->pieces.back())) {
      raw_at = p.raw_begin + (c->source_is_array ? 1 : 0);
      skip = std::min(local - seen, len);
      found = true;
      break;
    }
    seen += len;
  }
  if (found) {
    // Walk the raw string: escapes decode to fewer bytes than they take.
    while (skip > 0 && raw_at < raw.size() && raw[raw_at] != '"') {
      if (raw[raw_at] == '\\' && raw_at + 1 < raw.size()) {
        if (raw[raw_at + 1] != 'u') {
          raw_at += 2;
          --skip;
          continue;
        }
        uint32_t cp = 0;
        for (uint32_t k = 0; k < 4 && raw_at + 2 + k < raw.size(); ++k) cp = cp * 16 + std::max(0, hex_value(raw[raw_at + 2 + k]));
        uint32_t width = 6, bytes = cp < 0x80 ? 1 : cp < 0x800 ? 2 : 3;
        if (cp >= 0xD800 && cp < 0xDC00) width = 12, bytes = 4;
        raw_at += width;
        skip -= std::min(skip, bytes);
        continue;
      }
      ++raw_at;
      --skip;
    }
  }
  Position p{1, 1, 0};
  size_t line_start = raw.rfind('\n', raw_at == 0 ? 0 : raw_at - 1);
  p.row = 1 + static_cast<uint32_t>(std::count(raw.begin(), raw.begin() + raw_at, '\n'));
  size_t from = line_start == std::string::npos ? 0 : line_start + 1;
  if (raw_at == 0) from = 0;
  for (size_t k = from; k < raw_at; ++k)
    if ((static_cast<unsigned char>(raw[k]) & 0xC0) != 0x80) ++p.column;
  return p;
}

std::vector<std::string> Notebook::texts() const {
  std::vector<std::string> out;
  for (const auto& c : cells) out.push_back(c.text);
  return out;
}

Notebook Notebook::with_texts(const std::vector<std::string>& texts) const {
  Notebook nb = *this;
  for (size_t i = 0; i < nb.cells.size() && i < texts.size(); ++i) nb.cells[i].text = texts[i];
  nb.program = build_notebook_program(nb.cells);
  return nb;
}

std::string Notebook::render(const std::vector<std::string>& texts) const {
  struct Replacement {
    TextRange range;
    std::string text;
  };
  std::vector<Replacement> reps;
  for (size_t ci = 0; ci < cells.size() && ci < texts.size(); ++ci) {
    const NotebookCell& c = cells[ci];
    if (texts[ci] == c.text) continue;
    std::vector<std::string> lines = split_lines(texts[ci]);
    const auto& p = c.pieces;
    size_t n = p.size(), m = lines.size(), k = 0, s = 0;
    while (k < n && k < m && p[k].text == lines[k]) ++k;
    while (s < n - k && s < m - k && p[n - 1 - s].text == lines[m - 1 - s]) ++s;
    if (!c.source_is_array) {
      // One string: the lines are contiguous raw spans inside the quotes.
      std::string mid;
      for (size_t x = k; x < m - s; ++x) mid += json_escape(lines[x], ascii_escapes);
      uint32_t from = k < n ? p[k].raw_begin : (n ? p[n - 1].raw_end : c.raw_source.start + 1);
      uint32_t to = n - s > k ? p[n - s - 1].raw_end : from;
      reps.push_back({{from, to}, mid});
      continue;
    }
    // An array of strings: new elements take the separator the array already uses.
    std::string sep;
    if (n >= 2) {
      sep = raw.substr(p[0].raw_end, p[1].raw_begin - p[0].raw_end);
    } else if (n == 1) {
      std::string ws = raw.substr(c.raw_source.start + 1, p[0].raw_begin - c.raw_source.start - 1);
      sep = "," + (ws.empty() ? std::string(" ") : ws);
    } else {
      sep = ", ";
    }
    std::string mid;
    for (size_t x = k; x < m - s; ++x) {
      if (x > k) mid += sep;
      mid += "\"" + json_escape(lines[x], ascii_escapes) + "\"";
    }
    bool old_mid = n - s > k, new_mid = m - s > k;
    if (n == 0) {
      reps.push_back({{c.raw_source.start + 1, c.raw_source.end - 1}, mid});
    } else if (old_mid && new_mid) {
      reps.push_back({{p[k].raw_begin, p[n - s - 1].raw_end}, mid});
    } else if (new_mid) {  // insertion only
      if (k > 0) reps.push_back({{p[k - 1].raw_end, p[k - 1].raw_end}, sep + mid});
      else reps.push_back({{p[0].raw_begin, p[0].raw_begin}, mid + sep});
    } else if (old_mid) {  // deletion only
      if (s > 0) reps.push_back({{p[k].raw_begin, p[n - s].raw_begin}, ""});
      else if (k > 0) reps.push_back({{p[k - 1].raw_end, p[n - 1].raw_end}, ""});
      else reps.push_back({{c.raw_source.start + 1, c.raw_source.end - 1}, ""});
    }
  }
  std::sort(reps.begin(), reps.end(), [](const Replacement& a, const Replacement& b) { return a.range.start > b.range.start; });
  std::string out = raw;
  for (const auto& r : reps) out.replace(r.range.start, r.range.end - r.range.start, r.text);
  return out;
}

std::shared_ptr<const Notebook> parse_notebook(const std::string& path, std::string raw, std::string& error) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(raw);
  } catch (const nlohmann::json::exception& e) {
    // The message says where (line and column).
    std::string what = e.what();
    size_t at = what.find("parse error");
    error = "invalid notebook JSON: " + (at == std::string::npos ? what : what.substr(at)) + "; skipped";
    return nullptr;
  }
  if (!j.is_object()) {
    error = "not a Jupyter notebook: the top level is not a JSON object";
    return nullptr;
  }
  if (j.contains("worksheets") && !j.contains("cells")) {
    error = "nbformat 3 notebooks are not supported (convert with `jupyter nbconvert --to notebook` first)";
    return nullptr;
  }
  auto cells_it = j.find("cells");
  if (cells_it == j.end() || !cells_it->is_array()) {
    error = "not a Jupyter notebook: no `cells` array";
    return nullptr;
  }
  auto nb = std::make_shared<Notebook>();
  nb->path = path;
  std::string language = "python";
  if (auto m = j.find("metadata"); m != j.end() && m->is_object()) {
    if (auto li = m->find("language_info"); li != m->end() && li->is_object() && li->contains("name") &&
                                            (*li)["name"].is_string())
      language = lower((*li)["name"].get<std::string>());
    else if (auto ks = m->find("kernelspec"); ks != m->end() && ks->is_object() && ks->contains("language") &&
                                              (*ks)["language"].is_string())
      language = lower((*ks)["language"].get<std::string>());
  }
  const bool python = language == "python" || language.rfind("python", 0) == 0;

  std::vector<RawCell> raw_cells;
  bool located = locate_sources(raw, raw_cells) && raw_cells.size() == cells_it->size();
  uint32_t number = 0;
  size_t index = 0;
  for (const auto& cell : *cells_it) {
    ++number;
    size_t ri = index++;
    if (!cell.is_object()) {
      error = "not a Jupyter notebook: cell " + std::to_string(number) + " is not an object";
      return nullptr;
    }
    auto type = cell.find("cell_type");
    if (type == cell.end() || !type->is_string() || *type != "code") continue;
    auto src = cell.find("source");
    std::string text;
    if (src == cell.end()) {
      // nbformat requires `source`; treat a missing one as empty.
    } else if (src->is_string()) {
      text = src->get<std::string>();
    } else if (src->is_array()) {
      for (const auto& line : *src) {
        if (!line.is_string()) {
          error = "not a Jupyter notebook: cell " + std::to_string(number) + " has a `source` entry that is not a string";
          return nullptr;
        }
        text += line.get<std::string>();
      }
    } else {
      error = "not a Jupyter notebook: cell " + std::to_string(number) + " has a `source` that is neither a string nor a list";
      return nullptr;
    }
    NotebookCell c;
    c.number = number;
    c.python = python && !is_foreign_cell(text);
    if (located && raw_cells[ri].has_source) {
      const RawCell& rc = raw_cells[ri];
      std::string decoded;
      for (const auto& p : rc.pieces) decoded += p.text;
      if (decoded != text) {
        located = false;
      } else {
        c.source_is_array = rc.is_array;
        c.raw_source = rc.span;
        c.pieces = rc.pieces;
      }
    } else if (located) {
      located = false;
    }
    c.text = std::move(text);
    nb->cells.push_back(std::move(c));
  }
  if (!located) nb->writable_error = "the cells' sources could not be located in the file's bytes; not rewritten";
  bool has_non_ascii = std::any_of(raw.begin(), raw.end(), [](char ch) { return static_cast<unsigned char>(ch) >= 0x80; });
  nb->ascii_escapes = !has_non_ascii && raw.find("\\u") != std::string::npos;
  nb->program = build_notebook_program(nb->cells);
  nb->raw = std::move(raw);
  return nb;
}

std::shared_ptr<SourceFile> notebook_source(std::shared_ptr<const Notebook> nb) {
  auto s = std::make_shared<SourceFile>();
  s->path = nb->path;
  s->text = nb->program;  // no BOM handling: offsets must stay those of the cells
  s->language = Language::Python;
  s->lines = LineIndex(s->text);
  s->notebook = std::move(nb);
  return s;
}

std::shared_ptr<SourceFile> make_source_file(const std::string& path, std::string bytes, std::string& error) {
  if (!is_notebook_path(path)) return std::make_shared<SourceFile>(path, std::move(bytes));
  auto nb = parse_notebook(path, std::move(bytes), error);
  if (!nb) return nullptr;
  return notebook_source(std::move(nb));
}

Position source_position(const SourceFile& file, uint32_t offset) {
  if (file.notebook) return file.notebook->position(offset);
  return file.lines.position(file.text, offset);
}

bool split_notebook_edits(const Notebook& nb, const std::vector<Edit>& edits,
                          std::vector<std::vector<Edit>>& cell_edits, std::string* why) {
  cell_edits.assign(nb.cells.size(), {});
  for (const auto& e : edits) {
    size_t found = nb.cells.size();
    for (size_t i = 0; i < nb.cells.size(); ++i) {
      const auto& c = nb.cells[i];
      if (!c.python || c.start > e.range.start) continue;
      found = i;  // the last python cell starting at or before the edit
    }
    if (found == nb.cells.size()) {
      if (why) *why = "an edit lies outside every code cell";
      return false;
    }
    const NotebookCell& c = nb.cells[found];
    uint32_t end = c.start + static_cast<uint32_t>(c.text.size()) + (c.added_newline ? 1 : 0);
    if (e.range.end > end || e.range.end < e.range.start) {
      if (why) *why = "an edit spans more than one cell";
      return false;
    }
    Edit local{{e.range.start - c.start, e.range.end - c.start}, e.replacement};
    for (const auto& b : c.blanked) {
      bool overlaps = local.range.start < b.end && b.start < local.range.end;
      bool inside = b.start < local.range.start && local.range.start < b.end;
      if (overlaps || inside) {
        if (why) *why = "an edit touches IPython syntax (a magic or shell command) in cell " + std::to_string(c.number);
        return false;
      }
    }
    cell_edits[found].push_back(std::move(local));
  }
  return true;
}

std::vector<std::string> apply_cell_edits(const Notebook& nb, const std::vector<std::vector<Edit>>& cell_edits) {
  std::vector<std::string> out = nb.texts();
  for (size_t i = 0; i < nb.cells.size() && i < cell_edits.size(); ++i) {
    if (cell_edits[i].empty()) continue;
    const NotebookCell& c = nb.cells[i];
    std::string local = c.text;
    if (c.added_newline) local.push_back('\n');
    local = apply_edits(local, cell_edits[i]);
    if (c.added_newline && !local.empty() && local.back() == '\n') local.pop_back();
    out[i] = std::move(local);
  }
  return out;
}

}  // namespace stoker
