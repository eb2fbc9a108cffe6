#include "fix/diff.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace stoker::fix {
namespace {

std::vector<std::string_view> split_lines(std::string_view s) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < s.size()) {
    size_t nl = s.find('\n', start);
    size_t end = nl == std::string_view::npos ? s.size() : nl + 1;
    lines.push_back(s.substr(start, end - start));
    start = end;
  }
  return lines;
}

enum class Op : char { Keep = ' ', Del = '-', Add = '+' };
struct Line {
  Op op;
  std::string_view text;
  size_t a, b;  // 0-based line numbers in before/after at this point
};

// Line-level edit script. Common prefix and suffix are trimmed first; the middle is aligned by
// a longest-common-subsequence table when it is small enough, and replaced wholesale otherwise
// (still a correct diff, only less minimal).
std::vector<Line> edit_script(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre && a[a.size() - 1 - suf] == b[b.size() - 1 - suf]) ++suf;
  const size_t n = a.size() - pre - suf, m = b.size() - pre - suf;
  std::vector<Line> out;
  for (size_t i = 0; i < pre; ++i) out.push_back({Op::Keep, a[i], i, i});
  if (n * m <= 16'000'000) {
    std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
    auto at = [&](size_t i, size_t j) -> uint32_t& { return lcs[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        at(i, j) = a[pre + i] == b[pre + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[pre + i] == b[pre + j]) {
        out.push_back({Op::Keep, a[pre + i], pre + i, pre + j});
        ++i, ++j;
      } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
        out.push_back({Op::Del, a[pre + i], pre + i, pre + j});  // deletions first, as diff(1) prints them
        ++i;
      } else {
        out.push_back({Op::Add, b[pre + j], pre + i, pre + j});
        ++j;
      }
    }
  } else {
    for (size_t i = 0; i < n; ++i) out.push_back({Op::Del, a[pre + i], pre + i, pre});
    for (size_t j = 0; j < m; ++j) out.push_back({Op::Add, b[pre + j], pre + n, pre + j});
  }
  for (size_t k = 0; k < suf; ++k) out.push_back({Op::Keep, a[pre + n + k], pre + n + k, pre + m + k});
  return out;
}

std::string range(size_t start, size_t count) {
  // Unified diff: 1-based start; an empty range names the line before it.
  std::string s = std::to_string(count == 0 ? start : start + 1);
  if (count != 1) s += "," + std::to_string(count);
  return s;
}

}  // namespace

std::string unified_diff(std::string_view before, std::string_view after, std::string_view path, int context) {
  if (before == after) return {};
  auto a = split_lines(before), b = split_lines(after);
  auto script = edit_script(a, b);
  std::string out;
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);  // a/tmp/x.py, not a//tmp/x.py
  out.append("--- a/").append(path).append("\n+++ b/").append(path).append("\n");
  const size_t ctx = static_cast<size_t>(std::max(context, 0));
  size_t k = 0;
  while (k < script.size()) {
    if (script[k].op == Op::Keep) { ++k; continue; }
    // A hunk: from `ctx` lines before this change to `ctx` lines after the last change that is
    // within 2*ctx kept lines of the previous one.
    size_t first = k >= ctx ? k - ctx : 0;
    while (first < k && script[first].op != Op::Keep) ++first;
    size_t last = k;  // last changed index in the hunk
    for (size_t j = k + 1; j < script.size(); ++j) {
      if (script[j].op == Op::Keep) {
        if (j - last > 2 * ctx) break;
      } else {
        last = j;
      }
    }
    size_t end = std::min(script.size(), last + 1 + ctx);
    size_t a_start = script[first].a, b_start = script[first].b, a_count = 0, b_count = 0;
    for (size_t j = first; j < end; ++j) {
      if (script[j].op != Op::Add) ++a_count;
      if (script[j].op != Op::Del) ++b_count;
    }
    out.append("@@ -").append(range(a_start, a_count)).append(" +").append(range(b_start, b_count)).append(" @@\n");
    for (size_t j = first; j < end; ++j) {
      out.push_back(static_cast<char>(script[j].op));
      out.append(script[j].text);
      if (script[j].text.empty() || script[j].text.back() != '\n') out.append("\n\\ No newline at end of file\n");
    }
    k = end;
  }
  return out;
}

}  // namespace stoker::fix
