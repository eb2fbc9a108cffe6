#include "core/suppression.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace stoker {
namespace {

struct Comment {
  uint32_t start = 0;  // offset of `#` or `//`
  uint32_t end = 0;    // end of line (before \r\n)
  uint32_t text_start = 0;  // after the marker
  bool own_line = false;
  bool in_header = false;  // before any code
};

struct Lexed {
  std::vector<Comment> comments;
  std::vector<bool> clean_line_end;
};

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

uint32_t end_of_line(std::string_view t, uint32_t i) {
  size_t nl = t.find('\n', i);
  uint32_t e = nl == std::string_view::npos ? static_cast<uint32_t>(t.size()) : static_cast<uint32_t>(nl);
  while (e > i && t[e - 1] == '\r') --e;
  return e;
}

// Finds comments without a full parse: strings (triple-quoted, escaped) and continuations are
// skipped. Lines whose end lies inside a string get clean_line_end = false.
Lexed lex_python(std::string_view t, uint32_t rows) {
  Lexed out;
  out.clean_line_end.assign(rows, true);
  uint32_t row = 1, i = 0, n = static_cast<uint32_t>(t.size());
  bool line_has_code = false, seen_code = false;
  auto newline = [&](bool clean) {
    if (row - 1 < out.clean_line_end.size()) out.clean_line_end[row - 1] = clean;
    ++row;
    line_has_code = false;
  };
  while (i < n) {
    char c = t[i];
    if (c == '\n') {
      newline(true);
      ++i;
    } else if (c == '#') {
      uint32_t e = end_of_line(t, i);
      out.comments.push_back({i, e, i + 1, !line_has_code, !seen_code});
      i = e;
    } else if (c == '\\' && (i + 1 < n && (t[i + 1] == '\n' || (t[i + 1] == '\r' && i + 2 < n && t[i + 2] == '\n')))) {
      i += t[i + 1] == '\n' ? 2 : 3;
      newline(false);
      line_has_code = true;
    } else if (c == '"' || c == '\'') {
      line_has_code = seen_code = true;
      bool triple = i + 2 < n && t[i + 1] == c && t[i + 2] == c;
      i += triple ? 3 : 1;
      while (i < n) {
        if (t[i] == '\\' && i + 1 < n) {
          if (t[i + 1] == '\n') newline(false);
          i += 2;
          continue;
        }
        if (t[i] == '\n') {
          if (!triple) break;  // unterminated: the tokenizer ends the string here
          newline(false);
          ++i;
          continue;
        }
        if (t[i] == c && (!triple || (i + 2 < n && t[i + 1] == c && t[i + 2] == c))) {
          i += triple ? 3 : 1;
          break;
        }
        ++i;
      }
    } else {
      if (!std::isspace(static_cast<unsigned char>(c))) line_has_code = seen_code = true;
      ++i;
    }
  }
  return out;
}

Lexed lex_cxx(std::string_view t, uint32_t rows) {
  Lexed out;
  out.clean_line_end.assign(rows, true);
  uint32_t row = 1, i = 0, n = static_cast<uint32_t>(t.size());
  bool line_has_code = false, seen_code = false, in_number = false;
  auto newline = [&](bool clean) {
    if (row - 1 < out.clean_line_end.size()) out.clean_line_end[row - 1] = clean;
    ++row;
    line_has_code = false;
  };
  while (i < n) {
    char c = t[i];
    if (c == '\n') {
      newline(true);
      ++i;
      in_number = false;
    } else if (c == '/' && i + 1 < n && t[i + 1] == '/') {
      uint32_t e = end_of_line(t, i);
      out.comments.push_back({i, e, i + 2, !line_has_code, !seen_code});
      if (e > i && t[e - 1] == '\\') out.clean_line_end[row - 1] = false;
      i = e;
    } else if (c == '/' && i + 1 < n && t[i + 1] == '*') {
      size_t close = t.find("*/", i + 2);
      uint32_t e = close == std::string_view::npos ? n : static_cast<uint32_t>(close + 2);
      for (uint32_t k = i; k < e; ++k)
        if (t[k] == '\n') newline(false);
      i = e;
    } else if (c == '\\' && i + 1 < n && (t[i + 1] == '\n' || t[i + 1] == '\r')) {
      i += t[i + 1] == '\n' ? 2 : 1;
      if (t[i - 1] == '\n') newline(false);
      line_has_code = true;
    } else if (c == '"' && i > 0 && t[i - 1] == 'R' && (i < 2 || !ident_char(t[i - 2]) || t[i - 2] == '8' ||
                                                          t[i - 2] == 'u' || t[i - 2] == 'U' || t[i - 2] == 'L')) {
      line_has_code = seen_code = true;
      size_t paren = t.find('(', i + 1);
      if (paren == std::string_view::npos) break;
      std::string close = ")" + std::string(t.substr(i + 1, paren - i - 1)) + "\"";
      size_t end = t.find(close, paren + 1);
      uint32_t e = end == std::string_view::npos ? n : static_cast<uint32_t>(end + close.size());
      for (uint32_t k = i; k < e; ++k)
        if (t[k] == '\n') newline(false);
      i = e;
    } else if ((c == '"' || c == '\'') && !(c == '\'' && in_number)) {
      line_has_code = seen_code = true;
      ++i;
      while (i < n && t[i] != c && t[i] != '\n') {
        if (t[i] == '\\' && i + 1 < n) {
          if (t[i + 1] == '\n') newline(false);
          i += 2;
          continue;
        }
        ++i;
      }
      if (i < n && t[i] == c) ++i;
    } else {
      if (!std::isspace(static_cast<unsigned char>(c))) line_has_code = seen_code = true;
      if (ident_char(c)) {
        if (!(i > 0 && (ident_char(t[i - 1]) || t[i - 1] == '\''))) in_number = std::isdigit(static_cast<unsigned char>(c));
      } else if (c != '\'') {
        in_number = false;
      }
      ++i;
    }
  }
  return out;
}

void skip_spaces(std::string_view t, uint32_t& i, uint32_t end) {
  while (i < end && (t[i] == ' ' || t[i] == '\t')) ++i;
}

// Splits a code list on commas and whitespace, remembering each token's position.
void split_list(std::string_view t, TextRange list, Suppression& s) {
  uint32_t i = list.start;
  while (i < list.end) {
    while (i < list.end && (t[i] == ',' || std::isspace(static_cast<unsigned char>(t[i])))) ++i;
    uint32_t b = i;
    while (i < list.end && t[i] != ',' && !std::isspace(static_cast<unsigned char>(t[i]))) ++i;
    if (i > b) s.tokens.emplace_back(t.substr(b, i - b));
  }
}

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

// Reason: ` -- text` after the directive. Extends the directive over it.
void read_reason(std::string_view t, Suppression& s, uint32_t end) {
  uint32_t i = s.directive.end;
  skip_spaces(t, i, end);
  if (i + 1 < end && t[i] == '-' && t[i + 1] == '-') {
    uint32_t r = i + 2;
    uint32_t stop = end;
    // The reason runs to the end of the comment or to the next comment marker.
    size_t hash = t.substr(r, end - r).find(" #");
    if (hash != std::string_view::npos) stop = r + static_cast<uint32_t>(hash);
    s.reason = trim(t.substr(r, stop - r));
    s.directive.end = stop;
    while (s.directive.end > r && (t[s.directive.end - 1] == ' ' || t[s.directive.end - 1] == '\t')) --s.directive.end;
  }
}

void parse_comment(std::string_view t, const Comment& c, uint32_t row, bool python, const RuleRegistry& rules,
                   const std::string& path, SuppressionScan& out) {
  std::string_view body = t.substr(c.text_start, c.end - c.text_start);
  auto add = [&](Suppression s) {
    s.row = row;
    s.own_line = c.own_line;
    s.comment = {c.start, c.end};
    out.suppressions.push_back(std::move(s));
  };
  // stoker: ignore[...] / ignore-file[...]
  for (size_t at = body.find("stoker:"); at != std::string_view::npos; at = body.find("stoker:", at + 7)) {
    uint32_t i = c.text_start + static_cast<uint32_t>(at) + 7;
    skip_spaces(t, i, c.end);
    Suppression s;
    s.directive.start = c.text_start + static_cast<uint32_t>(at);
    if (t.substr(i, 11) == "ignore-file") {
      s.kind = Suppression::Kind::IgnoreFile;
      i += 11;
    } else if (t.substr(i, 6) == "ignore" && (i + 6 >= c.end || !ident_char(t[i + 6]))) {
      s.kind = Suppression::Kind::Ignore;
      i += 6;
    } else {
      continue;
    }
    if (i < c.end && t[i] == '[') {
      size_t close = t.substr(i, c.end - i).find(']');
      if (close == std::string_view::npos) {
        out.problems.push_back({path, "suppression comment without a closing `]`; ignored", TextRange{c.start, c.end}});
        continue;
      }
      s.list = {i + 1, i + static_cast<uint32_t>(close)};
      split_list(t, s.list, s);
      i = s.list.end + 1;
      for (const auto& tok : s.tokens) {
        // A code-shaped token suppresses matching findings even when the registry does not know
        // it (a rule whose document is missing still reports); it is also worth a notice.
        bool shaped = !tok.empty() && std::isupper(static_cast<unsigned char>(tok[0])) &&
                      std::all_of(tok.begin(), tok.end(), [](char ch) {
                        return std::isupper(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch));
                      });
        s.selectors.push_back(shaped && tok != "ALL" ? std::optional<std::string>(tok) : std::nullopt);
        if (!rules.is_valid_selector(tok) || tok == "ALL")
          out.problems.push_back({path, "unknown rule code `" + tok + "` in suppression comment (see `stoker rule --all`)",
                                  TextRange{s.list.start, s.list.end}});
      }
      if (s.tokens.empty()) s.blanket = true;
    } else {
      s.blanket = true;
    }
    s.directive.end = i;
    read_reason(t, s, c.end);
    if (s.kind == Suppression::Kind::IgnoreFile && !c.in_header) {
      out.problems.push_back({path, "`stoker: ignore-file` must be in the comments at the top of the file; ignored",
                              TextRange{c.start, c.end}});
      continue;
    }
    add(std::move(s));
  }
  if (python) {
    // # noqa: CODES (only the stoker codes in the list count)
    for (size_t at = 0; at + 4 <= body.size(); ++at) {
      if (!(std::tolower(static_cast<unsigned char>(body[at])) == 'n' && body.size() - at >= 4)) continue;
      std::string word(body.substr(at, 4));
      std::transform(word.begin(), word.end(), word.begin(), [](unsigned char ch) { return std::tolower(ch); });
      if (word != "noqa" || (at > 0 && ident_char(body[at - 1]))) continue;
      uint32_t i = c.text_start + static_cast<uint32_t>(at) + 4;
      if (i >= c.end || t[i] != ':') continue;  // blanket noqa: another tool's
      ++i;
      Suppression s;
      s.kind = Suppression::Kind::Noqa;
      s.directive.start = c.text_start + static_cast<uint32_t>(at);
      skip_spaces(t, i, c.end);
      uint32_t b = i;
      // The list: codes separated by commas and spaces, up to anything that is not a code.
      uint32_t last = i;
      while (i < c.end) {
        uint32_t k = i;
        while (k < c.end && (t[k] == ',' || t[k] == ' ' || t[k] == '\t')) ++k;
        uint32_t ts = k;
        while (k < c.end && std::isupper(static_cast<unsigned char>(t[k]))) ++k;
        uint32_t letters = k;
        while (k < c.end && std::isdigit(static_cast<unsigned char>(t[k]))) ++k;
        if (letters == ts || k == letters || (k < c.end && ident_char(t[k]))) break;
        last = k;
        i = k;
      }
      s.list = {b, last};
      split_list(t, s.list, s);
      for (const auto& tok : s.tokens)
        s.selectors.push_back(rules.is_valid_selector(tok) && tok != "ALL" ? std::optional<std::string>(tok)
                                                                           : std::nullopt);
      s.directive.end = last;
      bool any = std::any_of(s.selectors.begin(), s.selectors.end(), [](const auto& o) { return o.has_value(); });
      if (any) add(std::move(s));
      at = last - c.text_start;
    }
  } else {
    // NOLINT(stoker-CODE, other-check) / NOLINTNEXTLINE(...)
    for (size_t at = body.find("NOLINT"); at != std::string_view::npos; at = body.find("NOLINT", at + 6)) {
      uint32_t i = c.text_start + static_cast<uint32_t>(at) + 6;
      Suppression s;
      s.directive.start = i - 6;
      s.kind = Suppression::Kind::Nolint;
      if (t.substr(i, 8) == "NEXTLINE") {
        s.kind = Suppression::Kind::NolintNextLine;
        i += 8;
      } else if (t.substr(i, 5) == "BEGIN") {
        s.kind = Suppression::Kind::NolintBegin;
        i += 5;
      } else if (t.substr(i, 3) == "END") {
        s.kind = Suppression::Kind::NolintEnd;
        i += 3;
      }
      bool range_marker = s.kind == Suppression::Kind::NolintBegin || s.kind == Suppression::Kind::NolintEnd;
      if (range_marker && (i >= c.end || t[i] != '(')) {
        // Bare NOLINTBEGIN / NOLINTEND: every check, as clang-tidy (so every stoker code too).
        if (i < c.end && ident_char(t[i])) continue;  // NOLINTBEGINX: not a directive
        s.blanket = true;
        s.list = {i, i};
        s.directive.end = i;
        add(std::move(s));
        continue;
      }
      if (i >= c.end || t[i] != '(') continue;  // bare NOLINT: clang-tidy's, not ours
      size_t close = t.substr(i, c.end - i).find(')');
      if (close == std::string_view::npos) continue;
      s.list = {i + 1, i + static_cast<uint32_t>(close)};
      split_list(t, s.list, s);
      bool any = false;
      for (const auto& tok : s.tokens) {
        if (tok.rfind("stoker-", 0) == 0) {
          std::string code = tok.substr(7);
          if (code == "*") {
            s.blanket = true;
            s.selectors.emplace_back(std::nullopt);
            any = true;
          } else if (rules.is_valid_selector(code) && code != "ALL") {
            s.selectors.emplace_back(code);
            any = true;
          } else {
            s.selectors.emplace_back(std::nullopt);
            out.problems.push_back({path, "unknown rule code `" + code + "` in NOLINT comment", TextRange{s.list.start, s.list.end}});
          }
        } else {
          s.selectors.emplace_back(std::nullopt);
        }
      }
      s.directive.end = s.list.end + 1;
      // Range markers are kept even without a stoker code: they pair BEGIN with END.
      if (any || range_marker) add(std::move(s));
    }
  }
}

// A prefix of the code or of a code redirected to it (`# noqa: GU007` covers DD001).
bool selector_matches(std::string_view selector, std::string_view code) { return selector_covers(selector, code); }

// Is any code matching `selector` enabled? (An entry for a disabled rule is not "unused".)
bool selector_enabled(std::string_view selector, const Settings& settings, const RuleRegistry& rules) {
  for (const auto& r : rules.all())
    if (selector_matches(selector, r.code) && settings.rules.enabled(r.code)) return true;
  return false;
}

Diagnostic unused_diagnostic(const SourceFile& file, std::string_view t, const Suppression& s,
                             const std::vector<size_t>& unused_tokens, bool blanket_unused) {
  Diagnostic d;
  d.code = kUnusedSuppressionCode;
  d.file = file.path;
  d.range = s.directive;
  d.severity = Severity::Warning;
  std::string listed;
  for (size_t k : unused_tokens) listed += (listed.empty() ? "`" : ", `") + s.tokens[k] + "`";
  d.message = blanket_unused ? "Unused blanket suppression: it suppresses no finding"
                             : "Unused suppression for " + listed + ": no such finding here";
  // Which entries stay?
  std::vector<std::string> keep;
  for (size_t k = 0; k < s.tokens.size(); ++k)
    if (std::find(unused_tokens.begin(), unused_tokens.end(), k) == unused_tokens.end()) keep.push_back(s.tokens[k]);
  Fix fix;
  fix.applicability = Applicability::Safe;
  if (!blanket_unused && !keep.empty() && !s.blanket) {
    std::string joined;
    for (const auto& k : keep) joined += (joined.empty() ? "" : ", ") + k;
    fix.title = "Remove the unused code" + std::string(unused_tokens.size() > 1 ? "s" : "");
    fix.edits.push_back({s.list, joined});
  } else {
    fix.title = "Remove the unused suppression comment";
    // The comment holds only this directive: remove the comment (the line, when alone on it).
    uint32_t marker_end = s.comment.start + (t[s.comment.start] == '#' ? 1 : 2);
    std::string rest = trim(t.substr(marker_end, s.directive.start - marker_end)) +
                       trim(t.substr(s.directive.end, s.comment.end - s.directive.end));
    if (rest.empty()) {
      if (s.own_line) {
        uint32_t ls = file.lines.line_start(s.row);
        uint32_t next = s.row < file.lines.line_count() ? file.lines.line_start(s.row + 1)
                                                        : static_cast<uint32_t>(t.size());
        fix.edits.push_back({{ls, next}, ""});
      } else {
        uint32_t b = s.comment.start;
        while (b > 0 && (t[b - 1] == ' ' || t[b - 1] == '\t')) --b;
        fix.edits.push_back({{b, s.comment.end}, ""});
      }
    } else {
      fix.edits.push_back({s.directive, ""});
    }
  }
  d.fix = std::move(fix);
  return d;
}

// Pairs NOLINTBEGIN with NOLINTEND as clang-tidy does: an END closes the most recent open BEGIN
// with the same check list. Returns, per suppression, the row of the END that closes it (0: not
// a BEGIN, or unmatched). Unmatched markers are notices worded as clang-tidy's errors; an
// unmatched BEGIN suppresses nothing.
std::vector<uint32_t> pair_nolint_ranges(const SourceFile& file, const std::vector<Suppression>& sups,
                                         std::vector<Notice>& notices) {
  std::vector<uint32_t> end(sups.size(), 0);
  std::vector<size_t> open;
  for (size_t i = 0; i < sups.size(); ++i) {
    const Suppression& s = sups[i];
    if (s.kind == Suppression::Kind::NolintBegin) {
      open.push_back(i);
    } else if (s.kind == Suppression::Kind::NolintEnd) {
      auto it = std::find_if(open.rbegin(), open.rend(), [&](size_t b) { return sups[b].tokens == s.tokens; });
      if (it == open.rend()) {
        notices.push_back({file.path, "unmatched 'NOLINTEND' comment without a previous 'NOLINTBEGIN' comment",
                           s.directive});
        continue;
      }
      end[*it] = s.row;
      open.erase(std::next(it).base());
    }
  }
  for (size_t b : open)
    notices.push_back({file.path, "unmatched 'NOLINTBEGIN' comment without a subsequent 'NOLINTEND' comment",
                       sups[b].directive});
  return end;
}

}  // namespace

SuppressionScan scan_suppressions(const SourceFile& file, const RuleRegistry& rules) {
  SuppressionScan out;
  std::string_view t = file.text;
  bool python = file.language == Language::Python;
  if (!python && file.language != Language::Cxx) return out;
  // Fast path: no directive anywhere.
  bool maybe = t.find("stoker:") != std::string_view::npos ||
               (python ? (t.find("noqa") != std::string_view::npos || t.find("NOQA") != std::string_view::npos)
                       : t.find("NOLINT") != std::string_view::npos);
  Lexed lexed = python ? lex_python(t, file.lines.line_count()) : lex_cxx(t, file.lines.line_count());
  out.clean_line_end = std::move(lexed.clean_line_end);
  if (!maybe) return out;
  for (const auto& c : lexed.comments)
    parse_comment(t, c, file.lines.row_of(c.start), python, rules, file.path, out);
  return out;
}

void apply_suppressions(const SourceFile& file, const Settings& settings, AnalysisResult& result,
                        const RuleRegistry& rules) {
  // Most files carry no directive at all: skip the lexer for them.
  std::string_view t = file.text;
  if (t.find("stoker:") == std::string_view::npos && t.find("noqa") == std::string_view::npos &&
      t.find("NOQA") == std::string_view::npos && t.find("NOLINT") == std::string_view::npos)
    return;
  SuppressionScan scan = scan_suppressions(file, rules);
  result.notices.insert(result.notices.end(), scan.problems.begin(), scan.problems.end());
  if (scan.suppressions.empty()) return;
  // used[i][k]: token k of suppression i suppressed something; blanket_used[i] likewise.
  std::vector<std::vector<bool>> used(scan.suppressions.size());
  std::vector<bool> blanket_used(scan.suppressions.size(), false);
  for (size_t i = 0; i < scan.suppressions.size(); ++i) used[i].assign(scan.suppressions[i].tokens.size(), false);
  std::vector<uint32_t> range_end = pair_nolint_ranges(file, scan.suppressions, result.notices);

  std::erase_if(result.diagnostics, [&](const Diagnostic& d) {
    uint32_t r0 = file.lines.row_of(d.range.start);
    uint32_t r1 = file.lines.row_of(d.range.end > d.range.start ? d.range.end - 1 : d.range.start);
    bool suppressed = false;
    for (size_t i = 0; i < scan.suppressions.size(); ++i) {
      const Suppression& s = scan.suppressions[i];
      bool covers = false;
      switch (s.kind) {
        case Suppression::Kind::IgnoreFile: covers = true; break;
        case Suppression::Kind::NolintNextLine: covers = s.row + 1 == r0; break;
        case Suppression::Kind::Nolint: covers = s.row >= r0 && s.row <= r1; break;
        case Suppression::Kind::NolintBegin: covers = range_end[i] && s.row <= r0 && r0 <= range_end[i]; break;
        case Suppression::Kind::NolintEnd: break;
        case Suppression::Kind::Ignore:
        case Suppression::Kind::Noqa: covers = (s.row >= r0 && s.row <= r1) || (s.own_line && s.row + 1 == r0); break;
      }
      if (!covers) continue;
      if (s.blanket) {
        blanket_used[i] = true;
        suppressed = true;
      }
      for (size_t k = 0; k < s.tokens.size(); ++k)
        if (s.selectors[k] && selector_matches(*s.selectors[k], d.code)) {
          used[i][k] = true;
          suppressed = true;
        }
    }
    return suppressed;
  });

  if (!settings.report_unused_ignores || !settings.rules.enabled(kUnusedSuppressionCode)) return;
  for (size_t i = 0; i < scan.suppressions.size(); ++i) {
    const Suppression& s = scan.suppressions[i];
    if (s.kind == Suppression::Kind::NolintEnd) continue;
    if (s.kind == Suppression::Kind::NolintBegin) {
      // Bare ranges belong to clang-tidy as much as to stoker: never "unused". Unmatched ones
      // were reported above.
      if (s.blanket || !range_end[i]) continue;
    }
    if (s.blanket) {
      if (!blanket_used[i]) result.diagnostics.push_back(unused_diagnostic(file, file.text, s, {}, true));
      continue;
    }
    std::vector<size_t> unused;
    for (size_t k = 0; k < s.tokens.size(); ++k)
      if (s.selectors[k] && !used[i][k] && selector_enabled(*s.selectors[k], settings, rules)) unused.push_back(k);
    if (unused.empty()) continue;
    // Entries that are not ours (another tool's noqa codes, other NOLINT checks) always stay.
    Diagnostic d = unused_diagnostic(file, file.text, s, unused, false);
    if (s.kind == Suppression::Kind::NolintBegin) {
      // Its NOLINTEND must change with it: say so, edit nothing.
      d.fix = Fix{"Remove the unused code from this NOLINTBEGIN and its NOLINTEND", Applicability::DisplayOnly, {}};
    }
    result.diagnostics.push_back(std::move(d));
  }
  sort_diagnostics(result.diagnostics);
}

std::vector<Edit> add_ignore_edits(const SourceFile& file, const std::vector<Diagnostic>& diagnostics,
                                   size_t* skipped, const RuleRegistry& rules) {
  std::vector<Edit> edits;
  if (skipped) *skipped = 0;
  SuppressionScan scan = scan_suppressions(file, rules);
  std::map<uint32_t, std::set<std::string>> by_row;
  for (const auto& d : diagnostics) {
    if (d.code == kUnusedSuppressionCode) continue;
    uint32_t r0 = file.lines.row_of(d.range.start);
    uint32_t r1 = file.lines.row_of(d.range.end > d.range.start ? d.range.end - 1 : d.range.start);
    uint32_t target = 0;
    for (uint32_t r = r0; r <= r1 && !target; ++r)
      if (r - 1 < scan.clean_line_end.size() && scan.clean_line_end[r - 1]) target = r;
    if (!target) {
      if (skipped) ++*skipped;
      continue;
    }
    by_row[target].insert(d.code);
  }
  const char* marker = file.language == Language::Python ? "#" : "//";
  for (const auto& [row, codes] : by_row) {
    const Suppression* existing = nullptr;
    for (const auto& s : scan.suppressions)
      if (s.row == row && s.kind == Suppression::Kind::Ignore && !s.blanket && s.list.end > s.list.start) existing = &s;
    std::string list;
    for (const auto& c : codes) {
      if (existing && std::find(existing->tokens.begin(), existing->tokens.end(), c) != existing->tokens.end()) continue;
      list += (list.empty() ? "" : ", ") + c;
    }
    if (list.empty()) continue;
    if (existing) {
      edits.push_back({{existing->list.end, existing->list.end}, ", " + list});
    } else {
      uint32_t end = file.lines.line_end(file.text, row);
      edits.push_back({{end, end}, std::string("  ") + marker + " stoker: ignore[" + list + "]"});
    }
  }
  return edits;
}

std::string apply_edits(std::string_view text, std::vector<Edit> edits) {
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.range.start < b.range.start; });
  std::string out;
  uint32_t at = 0;
  for (const auto& e : edits) {
    if (e.range.start < at) continue;  // overlapping: keep the first
    out.append(text.substr(at, e.range.start - at));
    out.append(e.replacement);
    at = e.range.end;
  }
  out.append(text.substr(at));
  return out;
}

bool write_ignore_comments(const SourceFile& file, const std::vector<Diagnostic>& diagnostics, size_t& added,
                           size_t& skipped, std::string& error) {
  namespace fs = std::filesystem;
  std::vector<Edit> edits = add_ignore_edits(file, diagnostics, &skipped);
  added = edits.size();
  if (edits.empty()) return true;
  std::string text = (file.has_bom ? std::string("\xEF\xBB\xBF") : std::string()) + apply_edits(file.text, edits);
  fs::path target(file.path);
  fs::path tmp = target;
  tmp += ".stoker-tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      error = std::string("cannot write next to the file: ") + std::strerror(errno);
      return false;
    }
    out << text;
    if (!out.flush()) {
      error = "cannot write the file";
      return false;
    }
  }
  std::error_code ec;
  fs::permissions(tmp, fs::status(target, ec).permissions(), ec);
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    error = "cannot replace the file: " + ec.message();
    return false;
  }
  return true;
}

}  // namespace stoker
