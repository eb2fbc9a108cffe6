// Human-readable output, like a good compiler: location, code, message, the source line with a
// caret span, the fix title, the impact estimate; a summary at the end.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "core/compute_speedup.h"
#include "core/impact.h"
#include "core/notebook.h"
#include "output/report.h"
#include "trace/join.h"

namespace stoker::output {
namespace {

struct Style {
  bool on;
  std::string operator()(const char* code, std::string_view s) const {
    if (!on) return std::string(s);
    return std::string("\x1b[") + code + "m" + std::string(s) + "\x1b[0m";
  }
};

const char* severity_color(Severity s) {
  switch (s) {
    case Severity::Error: return "1;31";
    case Severity::Warning: return "1;33";
    case Severity::Info: return "1;36";
  }
  return "1";
}

// Expands tabs so carets line up with what a terminal shows.
std::string expand_tabs(std::string_view line) {
  std::string out;
  for (char c : line) {
    if (c == '\t') out.append(4 - out.size() % 4, ' ');
    else out.push_back(c);
  }
  return out;
}

size_t display_width(std::string_view s) {
  size_t w = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++w;
  return w;
}

void write_frame(std::ostream& out, const SourceFile& file, const Diagnostic& d, const Style& st) {
  uint32_t row = file.lines.row_of(d.range.start);
  uint32_t ls = file.lines.line_start(row), le = file.lines.line_end(file.text, row);
  std::string_view line = std::string_view(file.text).substr(ls, le - ls);
  std::string gutter = std::to_string(file.notebook ? source_position(file, d.range.start).row : row);
  std::string pad(gutter.size(), ' ');
  uint32_t cstart = d.range.start - ls;
  uint32_t cend = std::min<uint32_t>(std::max(d.range.end, d.range.start + 1), le) - ls;
  if (cend <= cstart) cend = cstart + 1;
  std::string before = expand_tabs(line.substr(0, cstart));
  std::string marked = expand_tabs(line.substr(0, std::min<size_t>(cend, line.size())));
  size_t caret_from = display_width(before);
  size_t caret_len = std::max<size_t>(1, display_width(marked) - caret_from);
  out << pad << " " << st("1;34", "|") << "\n";
  out << st("1;34", gutter) << " " << st("1;34", "|") << " " << expand_tabs(line) << "\n";
  out << pad << " " << st("1;34", "|") << " " << std::string(caret_from, ' ')
      << st(severity_color(d.severity), std::string(caret_len, '^')) << "\n";
}

std::string percent_range(double lo, double hi) {
  char buf[48];
  long a = std::lround(100 * lo), b = std::lround(100 * hi);
  if (a == b) std::snprintf(buf, sizeof buf, "%ld%%", a);
  else std::snprintf(buf, sizeof buf, "%ld..%ld%%", a, b);
  return buf;
}

}  // namespace

std::string loop_label(const SourceFile& file, const LoopStep& l) {
  if (l.loop_offset < 0 || static_cast<size_t>(l.loop_offset) > file.text.size()) return file.path + " (outside a hot loop)";
  auto p = source_position(file, static_cast<uint32_t>(l.loop_offset));
  std::string where = file.path;
  if (p.cell) where += ":cell " + std::to_string(p.cell);
  return "hot loop " + where + ":" + std::to_string(p.row);
}

std::string loop_line(const SourceFile& file, const LoopStep& l) {
  std::string s = loop_label(file, l) + ": est. GPU busy " + percent_range(l.busy_now_lo, l.busy_now_hi) + " now, " +
                  percent_range(l.busy_after_lo, l.busy_after_hi) + " after its fixes";
  if (l.measured) s += " (measured step)";
  if (!l.dominant.empty()) s += "; range mostly from " + l.dominant;
  return s;
}

namespace {
void write_project_summary(std::ostream& out, const Report& report, const Style& st) {
  std::vector<const LoopStep*> loops;
  for (const auto& f : report.files)
    for (const auto& l : f.result.loops) loops.push_back(&l);
  ProjectBusy p = combine_loops(loops);
  if (!p.any()) return;
  char buf[200];
  std::snprintf(buf, sizeof buf, "est. GPU busy %.0f%% now (%s), %.0f%% after all fixes (%s) on %s, %zu hot loop%s",
                100 * p.now, percent_range(p.now_lo, p.now_hi).c_str(), 100 * p.after,
                percent_range(p.after_lo, p.after_hi).c_str(), p.profile.c_str(), p.loops, p.loops == 1 ? "" : "s");
  out << st("1", "Project") << ": " << st("1;35", buf) << "\n";
  auto top = top_findings(report, 5);
  if (top.empty()) return;
  out << "Top findings by gain:\n";
  for (const auto& t : top) {
    const Diagnostic& d = *t.diagnostic;
    auto [start, end] = diagnostic_span(*t.file->source, d);
    out << "  " << gain_short(*d.impact) << "  " << st("1", d.code) << " " << d.file << (start.cell ? ":cell " + std::to_string(start.cell) : std::string())
        << ":" << start.row << ":" << start.column;
    if (d.fix) out << "  " << d.fix->title;
    out << "\n";
  }
}
}  // namespace

std::vector<RankedFinding> top_findings(const Report& report, size_t limit) {
  std::vector<RankedFinding> all;
  for (const auto& f : report.files)
    for (const auto& d : f.result.diagnostics)
      if (d.impact && d.impact->model != "none" && d.impact->gain_high >= 0.5) all.push_back({&f, &d});
  std::stable_sort(all.begin(), all.end(), [](const RankedFinding& a, const RankedFinding& b) {
    double ga = a.diagnostic->impact->gain_low + a.diagnostic->impact->gain_high;
    double gb = b.diagnostic->impact->gain_low + b.diagnostic->impact->gain_high;
    return ga > gb;
  });
  if (all.size() > limit) all.resize(limit);
  return all;
}

void write_text(std::ostream& out, const Report& report, const RuleRegistry& rules, const TextOptions& opts) {
  Style st{opts.color};
  size_t total = 0, fixable = 0, hidden_unsafe = 0;
  std::map<std::string, std::pair<size_t, size_t>> per_rule;  // code -> (count, fixable)
  for (const auto& e : report.errors) out << st("1", e.file) << ": " << st("1;31", "error") << ": " << e.message << "\n";
  for (const auto& w : report.warnings) out << st("1", w.file) << ": " << st("1;33", "warning") << ": " << w.message << "\n";
  for (const auto& f : report.files) {
    const SourceFile& file = *f.source;
    for (const auto& n : f.result.notices) {
      out << st("1", n.file);
      if (n.range) {
        auto p = source_position(file, n.range->start);
        if (p.cell) out << ":cell " << p.cell;
        out << ":" << p.row << ":" << p.column;
      }
      out << ": " << st("1;35", "notice") << ": " << n.message << "\n";
    }
    for (size_t index = 0; index < f.result.diagnostics.size(); ++index) {
      const Diagnostic& d = f.result.diagnostics[index];
      ++total;
      // As ruff: [*] and the fixable count mean what `--fix` applies; unsafe fixes count only
      // with --unsafe-fixes, and are otherwise said separately ("hidden").
      bool has_edit = d.fix && d.fix->applicability != Applicability::DisplayOnly && !d.fix->edits.empty();
      bool can_fix = has_edit && (d.fix->applicability == Applicability::Safe || opts.unsafe_fixes);
      if (can_fix) ++fixable;
      else if (has_edit) ++hidden_unsafe;
      auto& pr = per_rule[d.code];
      ++pr.first;
      if (can_fix) ++pr.second;
      auto [start, end] = diagnostic_span(file, d);
      out << st("1", d.file) << (start.cell ? ":cell " + std::to_string(start.cell) : std::string()) << ":"
          << start.row << ":" << start.column << ": "
          << st(severity_color(d.severity), d.code) << " " << d.message;
      if (!opts.show_source) {
        if (can_fix) out << " " << st("1;32", "[*]");
        out << "\n";
        continue;
      }
      out << "\n";
      write_frame(out, file, d, st);
      for (const auto& r : d.related) {
        std::string where = r.file;
        if (r.file == d.file) {
          auto p = source_position(file, r.range.start);
          if (p.cell) where.append(":cell ").append(std::to_string(p.cell));
          where.append(":").append(std::to_string(p.row)).append(":").append(std::to_string(p.column));
        }
        out << "  = " << st("1", "note") << ": " << r.message << " (" << where << ")\n";
      }
      if (d.fix) {
        out << "  = " << st("1;32", "fix") << " (" << to_string(d.fix->applicability) << "): " << d.fix->title << "\n";
      }
      if (d.impact && d.impact->model != "none") {
        char buf[160];
        // Below one point, whole numbers would read "+0..0": say "under 1 pp" instead. A
        // compute speedup shortens the step instead of filling idle time (core/compute_speedup.h).
        bool measured = std::any_of(d.impact->assumptions.begin(), d.impact->assumptions.end(),
                                    [](const std::string& a) { return a.rfind("measured: step", 0) == 0; });
        if (gain_is_step_time(*d.impact))
          std::snprintf(buf, sizeof buf, "est. %s on %s", gain_long(*d.impact).c_str(), d.impact->profile.c_str());
        else if (d.impact->gain_high < 0.5)
          std::snprintf(buf, sizeof buf, "est. under 1 pp GPU busy on %s (with the %s step time)",
                        d.impact->profile.c_str(), measured ? "measured" : "assumed");
        else
          std::snprintf(buf, sizeof buf, "est. +%.0f..%.0f pp GPU busy on %s", d.impact->gain_low, d.impact->gain_high,
                        d.impact->profile.c_str());
        out << "  = " << st("1;35", "impact") << ": " << buf << "\n";
      }
      if (const trace::Measured* m = report.measured ? report.measured->find(d.file, index) : nullptr)
        out << "  = " << st("1;35", "measured") << ": " << trace::measured_text(*m).substr(10) << "\n";
      out << "\n";
    }
    if (ProjectBusy busy = file_busy(f.result); busy.any()) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "est. GPU busy %.0f%% now, %.0f%% after all fixes (%s)", 100 * busy.now,
                    100 * busy.after, busy.profile.c_str());
      out << st("1", file.path) << ": " << st("1;35", buf) << "\n";
      if (opts.show_source)
        for (const auto& l : f.result.loops) out << "  " << loop_line(file, l) << "\n";
      if (opts.show_source) out << "\n";
    }
  }
  if (opts.statistics && !per_rule.empty()) {
    for (const auto& [code, counts] : per_rule) {
      const RuleInfo* info = rules.find(code);
      char buf[64];
      std::snprintf(buf, sizeof buf, "%5zu\t%-6s\t%s", counts.first, code.c_str(), counts.second ? "[*]" : "   ");
      out << buf << "\t" << (info ? info->name : std::string());
      out << "\n";
    }
    // Busy now and after per loop and for the project (never sums of gains).
    for (const auto& f : report.files)
      for (const auto& l : f.result.loops) out << "\t" << loop_line(*f.source, l) << "\n";
  }
  if (!opts.summary) return;
  if (report.measured)
    for (const auto& line : trace::summary_lines(*report.measured)) out << line << "\n";
  write_project_summary(out, report, st);
  const size_t failed = report.errors.size();
  auto plural = [](size_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); };
  std::string files = plural(report.files_analyzed, "file", "files");
  if (report.fixed) {  // after --fix, as ruff: "Found 5 findings (3 fixed, 2 remaining)."
    out << "Found " << plural(total + report.fixed, "finding", "findings") << " (" << report.fixed << " fixed, "
        << total << " remaining) in " << files << ".";
    if (failed) out << " " << plural(failed, "input", "inputs") << " could not be analyzed (errors above).";
    out << "\n";
  } else if (total == 0 && failed == 0) {
    out << st("1;32", "All checks passed!") << " (" << files << " analyzed)\n";
  } else if (total == 0) {
    out << "No findings in " << files << " analyzed, but " << plural(failed, "input", "inputs")
        << " could not be analyzed (errors above).\n";
  } else {
    out << "Found " << plural(total, "finding", "findings") << " in " << files << ".";
    if (failed) out << " " << plural(failed, "input", "inputs") << " could not be analyzed (errors above).";
    out << "\n";
  }
  // ruff's wording: the count of what --fix applies, then the unsafe fixes it leaves.
  std::string hidden = plural(hidden_unsafe, "hidden fix", "hidden fixes") + " can be enabled with the `--unsafe-fixes` option";
  if (fixable && hidden_unsafe)
    out << st("1;32", "[*]") << " " << fixable << " fixable with the `--fix` option (" << hidden << ").\n";
  else if (fixable)
    out << st("1;32", "[*]") << " " << fixable << " fixable with the `--fix` option.\n";
  else if (hidden_unsafe)
    out << "No fixes available (" << hidden << ").\n";
}

}  // namespace stoker::output
