// Helpers for tests that run the real analyzer on real source text.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/analyzer.h"

namespace stoker::test {

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline AnalysisResult analyze_text(const std::string& path, const std::string& text, Settings settings = {}) {
  SourceFile f(path, text);
  return analyze(f, settings);
}

// (row, code) pairs from `# expect: CODE[, CODE]` (or `// expect:`) comments.
inline std::multiset<std::pair<uint32_t, std::string>> expectations(const std::string& text) {
  std::multiset<std::pair<uint32_t, std::string>> out;
  std::istringstream in(text);
  std::string line;
  uint32_t row = 0;
  static const std::regex marker(R"((#|//)\s*expect:\s*([A-Z]{2}[0-9]{3}(\s*,\s*[A-Z]{2}[0-9]{3})*))");
  static const std::regex code(R"([A-Z]{2}[0-9]{3})");
  while (std::getline(in, line)) {
    ++row;
    std::smatch m;
    if (!std::regex_search(line, m, marker)) continue;
    std::string codes = m[2];
    for (std::sregex_iterator it(codes.begin(), codes.end(), code), end; it != end; ++it) out.insert({row, it->str()});
  }
  return out;
}

inline std::multiset<std::pair<uint32_t, std::string>> found(const SourceFile& f, const AnalysisResult& r) {
  std::multiset<std::pair<uint32_t, std::string>> out;
  for (const auto& d : r.diagnostics) out.insert({f.lines.row_of(d.range.start), d.code});
  return out;
}

inline std::string describe(const std::multiset<std::pair<uint32_t, std::string>>& s) {
  std::string out;
  for (const auto& [row, code] : s) out += "  line " + std::to_string(row) + ": " + code + "\n";
  return out.empty() ? "  (none)\n" : out;
}

// Applies every non-overlapping edit of the diagnostics' fixes (display-only excluded when
// `include_display` is false). Returns the new text; `applied` counts the fixes used.
inline std::string apply_fixes(const std::string& text, const std::vector<Diagnostic>& diags, size_t& applied,
                               bool unsafe = true) {
  std::vector<const Fix*> fixes;
  for (const auto& d : diags)
    if (d.fix && !d.fix->edits.empty() && d.fix->applicability != Applicability::DisplayOnly &&
        (unsafe || d.fix->applicability == Applicability::Safe))
      fixes.push_back(&*d.fix);
  std::vector<Edit> chosen;
  applied = 0;
  for (const Fix* fx : fixes) {
    bool overlaps = false;
    for (const auto& e : fx->edits)
      for (const auto& c : chosen)
        if (e.range.start < c.range.end && c.range.start < e.range.end) overlaps = true;
        else if (e.range.start == c.range.start && e.range.end == e.range.start && c.range.end == c.range.start)
          overlaps = true;
    if (overlaps) continue;
    chosen.insert(chosen.end(), fx->edits.begin(), fx->edits.end());
    ++applied;
  }
  std::sort(chosen.begin(), chosen.end(), [](const Edit& a, const Edit& b) { return a.range.start > b.range.start; });
  std::string out = text;
  for (const auto& e : chosen) out.replace(e.range.start, e.range.end - e.range.start, e.replacement);
  return out;
}

}  // namespace stoker::test
