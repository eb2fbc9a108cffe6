// The project report as one self-contained HTML page (no scripts, fonts, images or style
// sheets from elsewhere): the project's GPU busy now and after all fixes, per hot loop a bar of
// the step-time breakdown now and after its fixes, and the findings ranked by gain with their
// code, fix and assumptions; loops and findings link to each other.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/compute_speedup.h"
#include "core/impact.h"
#include "core/notebook.h"
#include "output/report.h"
#include "trace/join.h"

namespace stoker::output {
namespace {

std::string esc(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string num(double x, const char* format = "%.1f") {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, x);
  return buf;
}
std::string pct(double lo, double hi) {
  long a = std::lround(100 * lo), b = std::lround(100 * hi);
  return a == b ? std::to_string(a) + "%" : std::to_string(a) + ".." + std::to_string(b) + "%";
}
// "+3..12 pp" of GPU busy time, or "step -7..57%" for a compute speedup (core/compute_speedup.h).
std::string gain(const Impact& i) { return gain_short(i); }

const char* kStyle = R"(
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1d2330;background:#fff}
h1{font-size:1.6rem;margin:0 0 .3rem}h2{font-size:1.25rem;margin:2rem 0 .6rem;border-bottom:1px solid #d8dce6;padding-bottom:.2rem}
h3{font-size:1.05rem;margin:1.2rem 0 .4rem}
.headline{font-size:1.15rem;background:#eef3ff;border-left:5px solid #3461d1;padding:.7rem 1rem;margin:1rem 0}
.big{font-size:1.5rem;font-weight:700}
.bar{display:flex;height:1.6rem;border:1px solid #9aa3b5;margin:.25rem 0;background:#f4f5f8}
.bar span{display:block;height:100%}
.row{display:grid;grid-template-columns:5rem 1fr 11rem;align-items:center;gap:.6rem}
.gpu{background:#2f9e44}.t0{background:#e8590c}.t1{background:#f59f00}.t2{background:#d6336c}.t3{background:#7048e8}.t4{background:#1c7ed6}.t5{background:#868e96}
.legend span{display:inline-block;margin-right:1rem}.legend i{display:inline-block;width:.9rem;height:.9rem;vertical-align:-2px;margin-right:.3rem}
table{border-collapse:collapse;width:100%;table-layout:fixed}td{overflow-wrap:anywhere}
col.rank{width:2.5rem}col.gain{width:7.5rem}col.fix{width:20%}col.assume{width:26%}th,td{border-bottom:1px solid #e3e6ee;padding:.4rem .5rem;text-align:left;vertical-align:top}
th{background:#f4f5f8}td.gain{white-space:nowrap;font-weight:600}
code,pre{font:13px/1.4 ui-monospace,"DejaVu Sans Mono",monospace}pre{background:#f6f8fa;padding:.4rem .6rem;margin:.3rem 0;white-space:pre-wrap}
.code{font-weight:700;color:#c92a2a}.muted{color:#5c6373;font-size:.9rem}ul.assume{margin:.2rem 0;padding-left:1.1rem;font-size:.85rem;color:#4a5162}
a{color:#2b59c3}
.timeline{border:1px solid #9aa3b5;margin:.25rem 0;background:#f4f5f8;height:2.6rem}.timeline svg{display:block;width:100%;height:100%}
)";

// The measured timeline's colours per host kind (trace::HostKind order, then "no host op").
const char* kKindColour[trace::kHostKinds + 1] = {"#d6336c", "#c2255c", "#f59f00", "#fab005", "#7048e8",
                                                   "#e8590c", "#ae3ec9", "#adb5bd", "#dee2e6"};
const char* kind_name(int k) { return k < trace::kHostKinds ? trace::to_string(static_cast<trace::HostKind>(k)) : "none"; }

// The measured timeline of the representative step (trace::Profile::timeline) as an inline SVG
// strip: GPU busy on the top row, and on the bottom row what the host ran while the GPU idled.
// Pieces are drawn as they are, up to 4,000 per row; past that, pieces closer than a growing
// gap are drawn as one (the figures in the data attributes are the exact ones).
void write_timeline(std::ostream& out, const trace::Profile& p, const trace::LoopMeasured& l) {
  const trace::Timeline& t = p.timeline;
  if (t.dur_us <= 0) return;
  const double w = 1000;
  auto x = [&](double us) { return num(w * std::clamp(us / t.dur_us, 0.0, 1.0), "%.3f"); };
  out << "<div class=\"row\"><div>measured</div><div class=\"timeline\" data-timeline=\"measured\" data-step=\""
      << esc(t.step) << "\" data-step-ms=\"" << num(t.dur_us / 1000, "%.6f") << "\" data-busy-ms=\""
      << num(t.busy_us / 1000, "%.6f") << "\" data-gpu-events=\"" << (p.has_gpu ? "true" : "false")
      << "\"><svg viewBox=\"0 0 1000 40\" preserveAspectRatio=\"none\" role=\"img\" aria-label=\"measured step "
      << esc(t.step) << "\">";
  // GPU busy.
  std::vector<trace::Interval> busy;
  for (double tol = 0;; tol = tol > 0 ? 2 * tol : t.dur_us / 100000) {
    busy.clear();
    for (const auto& b : t.busy) {
      if (!busy.empty() && b.start - busy.back().end <= tol) busy.back().end = std::max(busy.back().end, b.end);
      else busy.push_back(b);
    }
    if (busy.size() <= 4000 || tol > t.dur_us) break;
  }
  for (const auto& b : busy)
    out << "<rect class=\"busy\" x=\"" << x(b.start) << "\" y=\"1\" width=\"" << x(b.end - b.start + 0.0)
        << "\" height=\"18\" fill=\"#2f9e44\"></rect>";
  // Host events while the GPU idles: adjacent pieces of one event (or of no host op) as one.
  std::vector<trace::TimelinePiece> idle;
  for (double tol = 0;; tol = tol > 0 ? 2 * tol : t.dur_us / 100000) {
    idle.clear();
    for (const auto& i : t.idle) {
      if (!idle.empty() && (idle.back().kind == i.kind && idle.back().name == i.name ? i.start - idle.back().end <= tol
                                                                                       : tol > 0 && i.end - i.start < tol))
        idle.back().end = std::max(idle.back().end, i.end);
      else idle.push_back(i);
    }
    if (idle.size() <= 4000 || tol > t.dur_us) break;
  }
  for (const auto& i : idle) {
    double ms = (i.end - i.start) / 1000;
    out << "<rect class=\"idle\" data-kind=\"" << kind_name(i.kind) << "\" x=\"" << x(i.start) << "\" y=\"21\" width=\""
        << x(i.end - i.start) << "\" height=\"18\" fill=\"" << kKindColour[std::clamp(i.kind, 0, trace::kHostKinds)]
        << "\"><title>" << esc(i.name.empty() ? std::string("no host op recorded") : i.name) << ": "
        << num(ms, "%.3f") << " ms</title></rect>";
  }
  out << "</svg></div><div>" << num(t.dur_us / 1000, "%.1f") << " ms/step measured, busy "
      << num(t.dur_us > 0 ? 100 * t.busy_us / t.dur_us : 0, "%.0f") << "%</div></div>\n";
  out << "<p class=\"muted\">Measured: the step of median duration (" << esc(t.step) << ", " << l.steps << " step"
      << (l.steps == 1 ? "" : "s") << " in <code>" << esc(p.path) << "</code>): GPU busy on top";
  if (!p.has_gpu) out << " (none: the trace has no GPU events)";
  out << ", and below what the host runs while the GPU idles. Mean step " << num(l.step_ms, "%.2f") << " ms";
  if (p.has_gpu) out << ", GPU busy " << num(100 * l.busy_fraction(), "%.0f") << "%";
  out << ".</p>\n<div class=\"legend\">";
  for (int k = 0; k <= trace::kHostKinds; ++k)
    out << "<span><i style=\"background:" << kKindColour[k] << "\"></i>" << kind_name(k) << "</span>";
  out << "</div>\n";
  // What the idle time was, and what no finding explains.
  out << "<ul class=\"assume measured-idle\">";
  for (const auto& ip : l.idle) {
    double f = l.step_ms > 0 ? ip.ms / l.step_ms : 0;
    if (ip.findings.empty() && f < 0.005) continue;
    out << "<li>" << (l.gpu ? "GPU idle " : "host ") << num(100 * f, f < 0.1 ? "%.1f" : "%.0f") << "% of the step ("
        << num(ip.ms, "%.2f") << " ms) " << (ip.kind == "none" ? std::string("with no host op recorded") : (l.gpu ? "while the host runs " : "in ") + esc(ip.name));
    if (!ip.findings.empty()) {
      out << ": ";
      for (size_t i = 0; i < ip.findings.size(); ++i) out << (i ? ", " : "") << esc(ip.findings[i]);
    } else {
      out << " <span class=\"muted\">(" << esc(ip.why) << ")</span>";
    }
    out << "</li>";
  }
  out << "</ul>\n";
}

const char* kTermClass[kStepTerms] = {"t0", "t1", "t2", "t3", "t4", "t5"};

struct LoopRef {
  const FileReport* file;
  const LoopStep* loop;
  std::string id;
};

void write_bar(std::ostream& out, const char* label, const StepBreakdown& b, double scale, double busy_lo,
               double busy_hi) {
  double total = b.step_ms();
  out << "<div class=\"row\"><div>" << label << "</div><div class=\"bar\" data-bar=\"" << label << "\" data-step-ms=\""
      << num(total, "%.3f") << "\">";
  auto seg = [&](const char* cls, const std::string& title, double ms) {
    if (ms <= 0 || scale <= 0) return;
    out << "<span class=\"" << cls << "\" style=\"width:" << num(100 * ms / scale, "%.3f") << "%\" title=\""
        << esc(title) << ": " << num(ms, "%.2f") << " ms\"></span>";
  };
  seg("gpu", "GPU work", b.gpu_ms);
  for (int t = 0; t < kStepTerms; ++t) seg(kTermClass[t], to_string(static_cast<StepTerm>(t)), b.host_ms[t]);
  out << "</div><div>" << num(total, "%.1f") << " ms/step, busy " << pct(busy_lo, busy_hi) << "</div></div>\n";
}

}  // namespace

void write_html(std::ostream& out, const Report& report, const RuleRegistry& rules) {
  // Loops and their ids; findings and their ids.
  std::vector<LoopRef> loops;
  std::map<const Diagnostic*, std::string> finding_id;
  std::map<const Diagnostic*, const LoopRef*> loop_of;
  size_t n = 0;
  for (const auto& f : report.files)
    for (const auto& d : f.result.diagnostics) finding_id[&d] = "finding-" + std::to_string(++n);
  for (const auto& f : report.files)
    for (const auto& l : f.result.loops) loops.push_back({&f, &l, "loop-" + std::to_string(loops.size() + 1)});
  for (const auto& lr : loops)
    for (const auto& m : lr.loop->members)
      if (m.diagnostic >= 0 && m.diagnostic < static_cast<int>(lr.file->result.diagnostics.size()))
        loop_of[&lr.file->result.diagnostics[m.diagnostic]] = &lr;

  std::vector<const LoopStep*> all_loops;
  for (const auto& lr : loops) all_loops.push_back(lr.loop);
  ProjectBusy p = combine_loops(all_loops);

  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<title>stoker report</title>\n<style>"
      << kStyle << "</style>\n</head>\n<body>\n<h1>stoker: where the GPU waits</h1>\n";
  out << "<p class=\"muted\">" << report.files_analyzed << " file" << (report.files_analyzed == 1 ? "" : "s")
      << " analyzed, " << n << " finding" << (n == 1 ? "" : "s") << ". Estimates from the static step model "
      << "(docs/impact-model.md): ranges cover the unresolved assumptions.</p>\n";
  out << "<section id=\"project\">\n";
  if (p.any()) {
    out << "<div class=\"headline\" id=\"project-busy\" data-busy-now=\"" << num(p.now, "%.4f") << "\" data-busy-after=\""
        << num(p.after, "%.4f") << "\">Estimated GPU busy <span class=\"big\">" << num(100 * p.now, "%.0f")
        << "%</span> now (" << pct(p.now_lo, p.now_hi) << "), <span class=\"big\">" << num(100 * p.after, "%.0f")
        << "%</span> after all fixes (" << pct(p.after_lo, p.after_hi) << ") on <code>" << esc(p.profile) << "</code>, "
        << p.loops << " hot loop" << (p.loops == 1 ? "" : "s") << ".</div>\n";
  } else {
    out << "<div class=\"headline\" id=\"project-busy\">No finding with a GPU-time estimate.</div>\n";
  }
  out << "</section>\n";
  if (report.measured) {
    // `--profile TRACE`: what the trace measured (trace/join.h), beside the estimate.
    out << "<section id=\"measured\">\n<h2>Measured (profiler trace)</h2>\n<pre>";
    for (const auto& line : trace::summary_lines(*report.measured)) out << esc(line) << "\n";
    out << "</pre>\n</section>\n";
  }

  // Hot loops.
  out << "<section id=\"loops\">\n<h2>Hot loops: step time now and after the fixes</h2>\n";
  out << "<div class=\"legend\"><span><i class=\"gpu\"></i>GPU work</span>";
  for (int t = 0; t < kStepTerms; ++t)
    out << "<span><i class=\"" << kTermClass[t] << "\"></i>" << to_string(static_cast<StepTerm>(t)) << "</span>";
  out << "</div>\n";
  for (const auto& lr : loops) {
    const LoopStep& l = *lr.loop;
    const SourceFile& file = *lr.file->source;
    out << "<div class=\"loop\" id=\"" << lr.id << "\">\n<h3>" << esc(loop_label(file, l)) << "</h3>\n";
    double scale = std::max(l.now.step_ms(), l.after.step_ms());
    write_bar(out, "now", l.now, scale, l.busy_now_lo, l.busy_now_hi);
    write_bar(out, "after", l.after, scale, l.busy_after_lo, l.busy_after_hi);
    if (report.measured)
      for (const auto& lm : report.measured->loops)
        if (lm.file == file.path && lm.loop < lr.file->result.loops.size() && &lr.file->result.loops[lm.loop] == &l)
          write_timeline(out, report.measured->profile, lm);
    out << "<p class=\"muted\">Bars at the midpoint of every assumption";
    if (!l.dominant.empty()) out << "; the range is mostly from " << esc(l.dominant);
    if (l.measured) out << "; composed with measured times";
    out << ".</p>\n<p>Findings: ";
    bool first = true;
    for (const auto& m : l.members) {
      if (m.diagnostic < 0) continue;
      const Diagnostic& d = lr.file->result.diagnostics[m.diagnostic];
      auto [start, end] = diagnostic_span(file, d);
      out << (first ? "" : ", ") << "<a href=\"#" << finding_id[&d] << "\">" << esc(d.code) << " line " << start.row
          << "</a>";
      first = false;
    }
    size_t unreported = std::count_if(l.members.begin(), l.members.end(), [](const StepMember& m) { return !m.reported; });
    if (unreported) out << " (and " << unreported << " not selected or suppressed, counted in “now” only)";
    out << "</p>\n</div>\n";
  }
  if (loops.empty()) out << "<p>No hot loop with findings.</p>\n";
  out << "</section>\n";

  // Findings ranked by gain; those without an estimate after them.
  std::vector<std::pair<const FileReport*, const Diagnostic*>> ranked;
  std::map<const Diagnostic*, size_t> index_in_file;
  for (const auto& f : report.files)
    for (size_t i = 0; i < f.result.diagnostics.size(); ++i) {
      ranked.push_back({&f, &f.result.diagnostics[i]});
      index_in_file[&f.result.diagnostics[i]] = i;
    }
  auto key = [](const Diagnostic* d) {
    return d->impact && d->impact->model != "none" ? d->impact->gain_low + d->impact->gain_high : -1.0;
  };
  std::stable_sort(ranked.begin(), ranked.end(), [&](const auto& a, const auto& b) { return key(a.second) > key(b.second); });
  out << "<section id=\"findings\">\n<h2>Findings by gain</h2>\n<table>\n<colgroup><col class=\"rank\"><col class=\"gain\"><col><col class=\"fix\"><col class=\"assume\"></colgroup>\n<thead><tr><th>#</th><th>gain</th><th>finding</th>"
         "<th>fix</th><th>assumptions</th></tr></thead>\n<tbody>\n";
  size_t rank = 0;
  for (const auto& [f, d] : ranked) {
    const SourceFile& file = *f->source;
    auto [start, end] = diagnostic_span(file, *d);
    const RuleInfo* info = rules.find(d->code);
    out << "<tr class=\"finding\" id=\"" << finding_id[d] << "\"><td>" << ++rank << "</td><td class=\"gain\">"
        << (d->impact && d->impact->model != "none" ? esc(gain(*d->impact)) : std::string("–")) << "</td><td>"
        << "<span class=\"code\">" << esc(d->code) << "</span> " << (info ? "<span class=\"muted\">" + esc(info->name) + "</span>" : "")
        << "<br><code>" << esc(d->file) << (start.cell ? ":cell " + std::to_string(start.cell) : std::string()) << ":"
        << start.row << ":" << start.column << "</code><br>" << esc(d->message);
    uint32_t row = file.lines.row_of(d->range.start);
    uint32_t ls = file.lines.line_start(row), le = file.lines.line_end(file.text, row);
    out << "<pre>" << esc(std::string_view(file.text).substr(ls, le - ls)) << "</pre>";
    if (auto it = loop_of.find(d); it != loop_of.end())
      out << "<a href=\"#" << it->second->id << "\">in " << esc(loop_label(file, *it->second->loop)) << "</a>";
    if (const trace::Measured* m = report.measured ? report.measured->find(d->file, index_in_file[d]) : nullptr)
      out << "<p class=\"measured\">" << esc(trace::measured_text(*m)) << "</p>";
    out << "</td><td>";
    if (d->fix) out << esc(d->fix->title) << " <span class=\"muted\">(" << to_string(d->fix->applicability) << ")</span>";
    out << "</td><td>";
    if (d->impact && !d->impact->assumptions.empty()) {
      out << "<ul class=\"assume\">";
      for (const auto& a : d->impact->assumptions) out << "<li>" << esc(a) << "</li>";
      out << "</ul>";
    }
    out << "</td></tr>\n";
  }
  out << "</tbody>\n</table>\n";
  if (ranked.empty()) out << "<p>No findings.</p>\n";
  out << "</section>\n";
  for (const auto& e : report.errors)
    out << "<p class=\"muted\">error: " << esc(e.file) << ": " << esc(e.message) << "</p>\n";
  out << "</body>\n</html>\n";
}

}  // namespace stoker::output
