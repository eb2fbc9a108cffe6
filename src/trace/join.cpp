// Joins a trace's measurement to a report's findings (join.h).
#include "trace/join.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>

#include "core/impact.h"
#include "core/notebook.h"
#include "core/settings.h"
#include "output/report.h"

namespace stoker::trace {

const Measured* MeasuredReport::find(const std::string& file, size_t index) const {
  auto it = findings.find({file, index});
  return it == findings.end() ? nullptr : &it->second;
}

std::vector<HostKind> kinds_for_model(const std::string& model) {
  if (model == "serial-loader" || model == "respawn") return {HostKind::Loader};
  if (model == "pageable-copy") return {HostKind::PageableCopy};
  if (model == "blocking-copy") return {HostKind::BlockingCopy, HostKind::PageableCopy};
  if (model == "sync-bubble") return {HostKind::Readback, HostKind::Sync};
  if (model == "alloc-in-loop") return {HostKind::Alloc};
  return {};
}

namespace {

namespace fs = std::filesystem;

std::vector<std::string> components(const std::string& path) {
  std::vector<std::string> out;
  for (const auto& c : fs::path(path).lexically_normal()) {
    std::string s = c.string();
    if (!s.empty() && s != "/" && s != ".") out.push_back(s);
  }
  return out;
}

size_t common_tail(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[a.size() - 1 - n] == b[b.size() - 1 - n]) ++n;
  return n;
}

// One finding as the join sees it.
struct Finding {
  std::string file;
  size_t index = 0;
  size_t file_slot = 0;         // index into the report's files
  std::vector<HostKind> kinds;
  std::vector<std::pair<uint32_t, uint32_t>> rows;  // its own rows and its related rows in the file
  int def_row = 0;              // the enclosing `def` (0: module level)
};

// The line of the `def` enclosing `row` (1-based), 0 at module level: the nearest line above
// (or at) `row` that starts with `def`/`async def` and is indented less than `row`.
int enclosing_def(const std::vector<std::string_view>& lines, int row) {
  if (row < 1 || row > static_cast<int>(lines.size())) return 0;
  auto indent = [](std::string_view l) {
    size_t i = 0;
    while (i < l.size() && (l[i] == ' ' || l[i] == '\t')) ++i;
    return i;
  };
  auto is_def = [&](std::string_view l) {
    std::string_view s = l.substr(indent(l));
    return s.rfind("def ", 0) == 0 || s.rfind("async def ", 0) == 0;
  };
  std::string_view here = lines[row - 1];
  if (is_def(here)) return row;
  size_t limit = indent(here);
  for (int r = row - 1; r >= 1; --r) {
    std::string_view l = lines[r - 1];
    size_t first = indent(l);
    if (first == l.size() || l[first] == '#') continue;  // blank or comment
    if (first < limit) {
      if (is_def(l)) return r;
      limit = first;
      if (limit == 0) return 0;
    }
  }
  return 0;
}

// The name a `def` line defines ("" for anything else).
std::string def_name(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  line.remove_prefix(i);
  if (line.rfind("async ", 0) == 0) line.remove_prefix(6);
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  if (line.rfind("def ", 0) != 0) return "";
  line.remove_prefix(4);
  while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  size_t end = 0;
  while (end < line.size() && line[end] != '(' && line[end] != ' ' && line[end] != ':') ++end;
  return std::string(line.substr(0, end));
}

// A file name IPython gives a notebook cell: `<ipython-input-N-hash>` (IPython before 7.x),
// or ipykernel's temporary file `/tmp/ipykernel_PID/HASH.py`.
bool is_cell_file(std::string_view file) {
  if (file.rfind("<ipython-input-", 0) == 0) return true;
  size_t at = file.find("ipykernel_");
  if (at == std::string_view::npos || (at > 0 && file[at - 1] != '/' && file[at - 1] != '\\')) return false;
  std::string_view rest = file.substr(at + 10);
  size_t slash = rest.find_first_of("/\\");
  return slash != std::string_view::npos && rest.size() > 3 && rest.substr(rest.size() - 3) == ".py";
}

std::vector<std::string_view> split_lines(const std::string& text) {
  std::vector<std::string_view> out;
  size_t from = 0;
  while (from <= text.size()) {
    size_t to = text.find('\n', from);
    if (to == std::string::npos) to = text.size();
    std::string_view l(text.data() + from, to - from);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    out.push_back(l);
    from = to + 1;
  }
  return out;
}

std::string percent(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, f >= 0.1 || f == 0 ? "%.0f%%" : "%.1f%%", 100 * f);
  return buf;
}

std::string ms(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v >= 10 ? "%.1f ms" : v >= 0.1 ? "%.2f ms" : "%.3f ms", v);
  return buf;
}

}  // namespace

MeasuredReport join(Profile profile, const Report& report, const RuleRegistry& rules) {
  MeasuredReport out;
  out.profile = std::move(profile);
  const Profile& p = out.profile;
  const double n = p.steps.empty() ? 1 : static_cast<double>(p.steps.size());
  const double step_ms = p.mean_step_ms();

  // The report's files, as path components (absolute), and their lines.
  std::vector<std::vector<std::string>> file_parts;
  std::vector<std::vector<std::string_view>> file_lines;
  for (const auto& f : report.files) {
    std::error_code ec;
    fs::path abs = fs::absolute(f.source->path, ec);
    file_parts.push_back(components(ec ? f.source->path : abs.string()));
    file_lines.push_back(split_lines(f.source->text));
  }
  // The report file a trace frame's file is (the longest common tail of path components; a tie
  // between files is no match).
  std::map<std::string, int> frame_file;
  auto file_of = [&](const std::string& frame_path) -> int {
    auto it = frame_file.find(frame_path);
    if (it != frame_file.end()) return it->second;
    auto parts = components(frame_path);
    int best = -1;
    size_t best_len = 0;
    bool tie = false;
    for (size_t i = 0; i < file_parts.size(); ++i) {
      if (report.files[i].source->notebook) continue;
      size_t len = common_tail(parts, file_parts[i]);
      if (len > best_len) best = static_cast<int>(i), best_len = len, tie = false;
      else if (len == best_len && len > 0) tie = true;
    }
    int r = tie || best_len == 0 ? -1 : best;
    frame_file.emplace(frame_path, r);
    return r;
  };

  std::vector<Finding> findings;
  for (size_t fi = 0; fi < report.files.size(); ++fi) {
    const auto& f = report.files[fi];
    // A notebook's rows are rows of its program (the code cells in order); the trace names its
    // cells by IPython's own file names, mapped below (cell_frame).
    for (size_t di = 0; di < f.result.diagnostics.size(); ++di) {
      const Diagnostic& d = f.result.diagnostics[di];
      const RuleInfo* info = rules.find(d.code);
      std::string model = d.impact ? d.impact->model : info ? info->impact_model : "";
      auto kinds = kinds_for_model(model);
      if (kinds.empty()) continue;
      Finding g;
      g.file = d.file;
      g.index = di;
      g.file_slot = fi;
      g.kinds = kinds;
      auto row = [&](uint32_t offset) { return f.source->lines.row_of(offset); };
      g.rows.push_back({row(d.range.start), row(d.range.end > d.range.start ? d.range.end - 1 : d.range.start)});
      for (const auto& r : d.related)
        if (r.file == d.file) g.rows.push_back({row(r.range.start), row(r.range.start)});
      g.def_row = enclosing_def(file_lines[fi], static_cast<int>(g.rows.front().first));
      findings.push_back(std::move(g));
    }
  }

  // Frames of notebook cells: IPython compiles each cell under a name of its own
  // (`<ipython-input-N-hash>`, or `/tmp/ipykernel_PID/HASH.py`), with rows within the cell. The
  // innermost such frame inside a `def` (its function named, its row within the cell) is mapped
  // to the one cell of a checked notebook where that row is in a `def` of that name: findings on
  // that line, else in that function. A frame at module level names no cell: the findings of
  // the kind in the notebook (only one notebook checked), by pattern.
  std::vector<size_t> notebook_slots;
  for (size_t fi = 0; fi < report.files.size(); ++fi)
    if (report.files[fi].source->notebook) notebook_slots.push_back(fi);
  auto cell_frame = [&](const std::vector<Frame>& frames, HostKind kind)
      -> std::optional<std::pair<std::vector<size_t>, std::string>> {
    if (notebook_slots.empty()) return std::nullopt;
    auto fits = [&](const Finding& g) { return std::find(g.kinds.begin(), g.kinds.end(), kind) != g.kinds.end(); };
    bool any = false;
    for (const Frame& fr : frames) {
      if (!is_cell_file(fr.file)) continue;
      any = true;
      if (fr.function.empty() || fr.function == "<module>" || fr.line < 1) continue;
      int hits = 0, hit_slot = -1, hit_row = 0, hit_def = 0;
      for (size_t slot : notebook_slots) {
        const SourceFile& src = *report.files[slot].source;
        for (const auto& cell : src.notebook->cells) {
          if (!cell.python) continue;
          int rows = 1 + static_cast<int>(std::count(cell.text.begin(), cell.text.end(), '\n'));
          if (fr.line > rows) continue;
          int prow = static_cast<int>(src.lines.row_of(cell.start)) + fr.line - 1;
          int def = enclosing_def(file_lines[slot], prow);
          if (def > 0 && def_name(file_lines[slot][def - 1]) == fr.function)
            ++hits, hit_slot = static_cast<int>(slot), hit_row = prow, hit_def = def;
        }
      }
      if (hits == 0) continue;                                  // not a function of the notebooks checked
      if (hits > 1) return std::pair<std::vector<size_t>, std::string>{};  // several cells fit: no join
      std::vector<size_t> on_line, in_def;
      for (size_t i = 0; i < findings.size(); ++i) {
        const Finding& g = findings[i];
        if (static_cast<int>(g.file_slot) != hit_slot || !fits(g)) continue;
        if (std::any_of(g.rows.begin(), g.rows.end(), [&](auto r) {
              return hit_row >= static_cast<int>(r.first) && hit_row <= static_cast<int>(r.second);
            }))
          on_line.push_back(i);
        if (g.def_row == hit_def) in_def.push_back(i);
      }
      if (!on_line.empty()) return std::pair{on_line, std::string("source line")};
      return std::pair{in_def, std::string("function")};
    }
    if (!any) return std::nullopt;
    if (notebook_slots.size() != 1) return std::pair<std::vector<size_t>, std::string>{};
    std::vector<size_t> all;
    for (size_t i = 0; i < findings.size(); ++i)
      if (findings[i].file_slot == notebook_slots[0] && fits(findings[i])) all.push_back(i);
    return std::pair{all, std::string("pattern")};
  };

  struct Acc {
    double host_us = 0, idle_us = 0;
    std::set<std::string> events;
    std::string match, function;
    size_t shared = 0;
  };
  std::map<size_t, Acc> acc;  // finding index in `findings`
  auto compatible = [](const Finding& g, HostKind k) {
    return std::find(g.kinds.begin(), g.kinds.end(), k) != g.kinds.end();
  };
  const double min_us = 0.005 * p.total_us();  // below half a percent of the steps: not listed
  for (const Cause& c : p.causes) {
    std::vector<size_t> joined;
    std::string match, why, function;
    if (p.has_stacks) {
      if (c.stack >= 0) {
        const auto& frames = p.stacks[c.stack];
        for (size_t i = 0; i < findings.size(); ++i) {
          const Finding& g = findings[i];
          if (!compatible(g, c.kind)) continue;
          for (const Frame& fr : frames)
            if (file_of(fr.file) == static_cast<int>(g.file_slot) &&
                std::any_of(g.rows.begin(), g.rows.end(), [&](auto r) {
                  return fr.line >= static_cast<int>(r.first) && fr.line <= static_cast<int>(r.second);
                })) {
              joined.push_back(i);
              break;
            }
        }
        if (!joined.empty()) match = "source line";
        else {
          // The innermost frame in a checked file: findings in the same function.
          const Frame* inner = nullptr;
          int slot = -1;
          for (const Frame& fr : frames)
            if ((slot = file_of(fr.file)) >= 0) {
              inner = &fr;
              break;
            }
          if (inner) {
            int def = enclosing_def(file_lines[slot], inner->line);
            for (size_t i = 0; i < findings.size(); ++i)
              if (compatible(findings[i], c.kind) && static_cast<int>(findings[i].file_slot) == slot &&
                  findings[i].def_row == def)
                joined.push_back(i);
            if (!joined.empty()) match = "function", function = inner->function;
            else if (c.kind == HostKind::Optimizer) why = "no rule describes it";
            else why = "no finding of this kind in " + inner->function;
          } else if (auto cell = cell_frame(frames, c.kind)) {
            // A notebook cell (IPython names it `<ipython-input-N-...>` or a temporary file).
            joined = cell->first;
            match = cell->second;
            if (match == "function")
              for (const Frame& fr : frames)
                if (is_cell_file(fr.file)) {
                  function = fr.function;
                  break;
                }
            if (joined.empty()) why = "its Python stack is in notebook cells with no finding of this kind";
          } else {
            why = "its Python stack has no frame in the files checked";
          }
        }
      } else {
        why = "no Python stack recorded for it";
      }
    } else {
      std::set<size_t> files;
      std::vector<size_t> candidates;
      for (size_t i = 0; i < findings.size(); ++i)
        if (compatible(findings[i], c.kind)) candidates.push_back(i), files.insert(findings[i].file_slot);
      if (files.size() == 1) {
        joined = candidates;
        match = "pattern";
      } else {
        why = files.empty() ? (c.kind == HostKind::Optimizer ? "no rule describes it" : "no finding of this kind")
                            : "findings of this kind in " + std::to_string(files.size()) +
                                  " files; record with with_stack=True to join by line";
      }
    }
    // The cause and the findings it went to, for the step model (apply_to_estimates).
    JoinedCause jc{c.kind, c.name, c.idle_us / n / 1000, c.host_us / n / 1000, {}, match == "pattern"};
    for (size_t i : joined) jc.findings.push_back({findings[i].file, findings[i].index});
    out.causes.push_back(std::move(jc));
    if (joined.empty()) {
      double weight = p.has_gpu ? c.idle_us : c.host_us;
      if (weight >= min_us && weight > 0)
        out.unexplained.push_back({to_string(c.kind), c.name, c.idle_us / n / 1000, c.host_us / n / 1000, step_ms, why});
      continue;
    }
    for (size_t i : joined) {
      Acc& a = acc[i];
      a.host_us += c.host_us;
      a.idle_us += c.idle_us;
      a.events.insert(c.name);
      // The weakest match of the events joined is what the finding says.
      if (a.match.empty() || match == "pattern" || (match == "function" && a.match == "source line")) {
        a.match = match;
        a.function = function;
      }
      a.shared = std::max(a.shared, joined.size() - 1);
    }
  }
  if (p.has_gpu) {
    for (const Cause& c : p.others)
      if (c.idle_us >= min_us)
        out.unexplained.push_back({"other", c.name, c.idle_us / n / 1000, c.host_us / n / 1000, step_ms,
                                   "no rule describes it"});
    if (p.unattributed_idle_us >= min_us)
      out.unexplained.push_back(
          {"none", "", p.unattributed_idle_us / n / 1000, 0, step_ms, "no host op recorded then"});
  }
  std::stable_sort(out.unexplained.begin(), out.unexplained.end(), [&](const Unexplained& a, const Unexplained& b) {
    return (p.has_gpu ? a.idle_ms > b.idle_ms : a.host_ms > b.host_ms);
  });
  for (auto& [i, a] : acc) {
    Measured m;
    m.host_ms = a.host_us / n / 1000;
    m.idle_ms = p.has_gpu ? a.idle_us / n / 1000 : 0;
    m.step_ms = step_ms;
    m.gpu = p.has_gpu;
    m.match = a.match;
    m.function = a.function;
    m.events.assign(a.events.begin(), a.events.end());
    m.shared = a.shared;
    m.notebook = report.files[findings[i].file_slot].source->notebook != nullptr;
    out.findings[{findings[i].file, findings[i].index}] = std::move(m);
  }
  return out;
}

const LoopMeasured* MeasuredReport::loop_of(const std::string& file, size_t index, const Report& report) const {
  for (const auto& f : report.files) {
    if (index >= f.result.diagnostics.size() || f.result.diagnostics[index].file != file) continue;
    for (const auto& l : loops) {
      if (l.file != f.source->path || l.loop >= f.result.loops.size()) continue;
      for (const auto& m : f.result.loops[l.loop].members)
        if (m.diagnostic >= 0 && static_cast<size_t>(m.diagnostic) == index) return &l;
    }
  }
  return nullptr;
}

namespace {

bool is_wait(HostKind k) { return k != HostKind::Optimizer && k != HostKind::Other; }

// The report file (index) whose diagnostic `index` is the finding (file, index).
int file_slot(const Report& report, const std::string& file, size_t index) {
  for (size_t i = 0; i < report.files.size(); ++i) {
    const auto& diags = report.files[i].result.diagnostics;
    if (index < diags.size() && diags[index].file == file) return static_cast<int>(i);
  }
  return -1;
}

// The loop (index into result.loops) a reported diagnostic is a member of, -1 for none.
int loop_slot(const AnalysisResult& result, size_t index) {
  for (size_t l = 0; l < result.loops.size(); ++l)
    for (const auto& m : result.loops[l].members)
      if (m.diagnostic >= 0 && static_cast<size_t>(m.diagnostic) == index) return static_cast<int>(l);
  return -1;
}

}  // namespace

void apply_to_estimates(MeasuredReport& m, Report& report,
                        const std::function<Settings(const std::string&)>& settings_for) {
  const Profile& p = m.profile;
  m.loops.clear();
  m.loop_note.clear();
  if (p.steps.empty() || p.mean_step_ms() <= 0) {
    m.loop_note = "no steps measured";
    return;
  }
  // Joined time per (file, loop), and the loops that events joined by pattern went to.
  std::map<std::pair<int, int>, double> weight;
  std::set<std::pair<int, int>> by_pattern;
  for (const auto& c : m.causes)
    for (const auto& [file, index] : c.findings) {
      int fs = file_slot(report, file, index);
      if (fs < 0) continue;
      int ls = loop_slot(report.files[fs].result, index);
      if (ls < 0) continue;
      weight[{fs, ls}] += p.has_gpu ? c.idle_ms : c.host_ms;
      if (c.by_pattern) by_pattern.insert({fs, ls});
    }
  if (weight.empty()) {
    m.loop_note = "no finding of a hot loop joined to the trace: the estimates keep their assumptions";
    return;
  }
  if (by_pattern.size() > 1 || (!by_pattern.empty() && weight.size() > 1)) {
    m.loop_note = "not applied to an estimate: joined by pattern to findings in " + std::to_string(weight.size()) +
                  " hot loops (" + (p.has_stacks ? "the stacks name no line of them" : "record with with_stack=True") +
                  " to tell them apart)";
    return;
  }
  auto best = weight.begin();
  for (auto it = weight.begin(); it != weight.end(); ++it)
    if (it->second > best->second) best = it;
  const int fs = best->first.first, ls = best->first.second;
  FileReport& f = report.files[fs];
  AnalysisResult& result = f.result;
  LoopStep& loop = result.loops[ls];

  const double n = static_cast<double>(p.steps.size());
  MeasuredStep ms;
  ms.step_ms = p.mean_step_ms();
  double waits = 0;  // host time in waits, per step (a trace without GPU events)
  for (const auto& c : p.causes)
    if (is_wait(c.kind)) waits += c.host_us / n / 1000;
  ms.gpu_ms = p.has_gpu ? p.busy_us() / n / 1000 : std::max(*ms.step_ms - waits, 0.001 * *ms.step_ms);
  // The wait of each joined cause goes to the loop's members it was joined to.
  double loader_host = 0;
  bool loader_joined = false;
  for (const auto& c : m.causes) {
    MeasuredStep::Wait w;
    w.ms = p.has_gpu ? c.idle_ms : c.host_ms;
    w.what = c.name;
    for (const auto& [file, index] : c.findings) {
      if (file_slot(report, file, index) != fs) continue;
      for (size_t k = 0; k < loop.members.size(); ++k)
        if (loop.members[k].diagnostic >= 0 && static_cast<size_t>(loop.members[k].diagnostic) == index)
          w.members.push_back(k);
    }
    if (w.members.empty()) continue;
    if (c.kind == HostKind::Loader) loader_host += c.host_ms, loader_joined = true;
    ms.waits.push_back(std::move(w));
  }
  // T_load: the loader's own time per batch when it runs on the main process (no workers).
  for (const auto& mem : loop.members) {
    if (mem.model != "serial-loader" || !loader_joined) continue;
    bool main_process = true;
    for (const auto& [k, v] : mem.facts)
      if ((k == "num_workers" || k == "workers") && v != "0") main_process = false;
    if (main_process) ms.load_ms = loader_host;
  }
  ms.source = fs::path(p.path).filename().string() + ", " + std::to_string(p.steps.size()) + " step" +
              (p.steps.size() == 1 ? "" : "s");
  ms.gpu_events = p.has_gpu;
  size_t loop_index = static_cast<size_t>(ls);
  apply_measurement(result, loop_index, ms, settings_for(f.source->path));

  LoopMeasured lm;
  lm.file = f.source->path;
  lm.loop = loop_index;
  lm.label = output::loop_label(*f.source, loop);
  lm.steps = p.steps.size();
  lm.step_ms = *ms.step_ms;
  lm.gpu_ms = *ms.gpu_ms;
  lm.gpu = p.has_gpu;
  lm.busy_now_lo = loop.busy_now_lo, lm.busy_now_hi = loop.busy_now_hi;
  lm.busy_after_lo = loop.busy_after_lo, lm.busy_after_hi = loop.busy_after_hi;
  // The idle time of the step, by what the host ran then, with the findings that explain it.
  std::map<std::pair<std::string, std::string>, size_t> part_of;
  auto part = [&](const std::string& kind, const std::string& name) -> IdlePart& {
    auto [it, fresh] = part_of.try_emplace({kind, name}, lm.idle.size());
    if (fresh) lm.idle.push_back({kind, name, 0, {}, ""});
    return lm.idle[it->second];
  };
  for (const auto& c : m.causes) {
    if (!p.has_gpu && !is_wait(c.kind)) continue;  // without GPU events, the optimizer's time is work
    double v = p.has_gpu ? c.idle_ms : c.host_ms;
    if (v <= 0) continue;
    IdlePart& ip = part(to_string(c.kind), c.name);
    ip.ms += v;
    for (const auto& [file, index] : c.findings) {
      int slot = file_slot(report, file, index);
      if (slot < 0) continue;
      const auto& fr = report.files[slot];
      const Diagnostic& d = fr.result.diagnostics[index];
      Position at = diagnostic_span(*fr.source, d).first;
      std::string tag = d.code + (at.cell ? " cell " + std::to_string(at.cell) : std::string()) + " line " +
                        std::to_string(at.row);
      if (fr.source->path != f.source->path) tag += " of " + file;
      if (std::find(ip.findings.begin(), ip.findings.end(), tag) == ip.findings.end()) ip.findings.push_back(tag);
    }
  }
  if (p.has_gpu) {
    for (const auto& c : p.others)
      if (c.idle_us > 0) part("other", c.name).ms += c.idle_us / n / 1000;
    if (p.unattributed_idle_us > 0) part("none", "").ms += p.unattributed_idle_us / n / 1000;
  }
  for (auto& ip : lm.idle) {
    if (!ip.findings.empty()) continue;
    ip.why = ip.kind == "none" ? "no host op recorded then" : ip.kind == "other" || ip.kind == "optimizer" ? "no rule describes it" : "no finding joined";
    for (const auto& u : m.unexplained)
      if (u.kind == ip.kind && u.name == ip.name) ip.why = u.why;
  }
  std::stable_sort(lm.idle.begin(), lm.idle.end(), [](const IdlePart& a, const IdlePart& b) { return a.ms > b.ms; });
  m.loops.push_back(std::move(lm));
}

nlohmann::json loop_json(const LoopMeasured& l) {
  nlohmann::json idle = nlohmann::json::array();
  for (const auto& ip : l.idle)
    idle.push_back({{"kind", ip.kind},
                    {"name", ip.name},
                    {"ms_per_step", ip.ms},
                    {"fraction", l.step_ms > 0 ? ip.ms / l.step_ms : 0},
                    {"findings", ip.findings},
                    {"why", ip.findings.empty() ? nlohmann::json(ip.why) : nlohmann::json(nullptr)}});
  return {{"loop", l.label},
          {"steps", l.steps},
          {"step_ms", l.step_ms},
          {"gpu_busy_ms", l.gpu_ms},
          {"gpu_events", l.gpu},
          {"busy_fraction", l.busy_fraction()},
          {"idle_fraction", l.idle_fraction()},
          {"idle", idle},
          {"estimate", {{"busy_now", {l.busy_now_lo, l.busy_now_hi}}, {"busy_after", {l.busy_after_lo, l.busy_after_hi}}}}};
}

std::string measured_text(const Measured& m) {
  std::string s = "measured: " + ms(m.host_ms) + " per step (" + percent(m.host_fraction()) + " of the step)";
  if (m.gpu) {
    s += m.idle_ms >= 0.5 * m.host_ms ? ", GPU idle during it" : ", GPU mostly busy during it";
    s += " (idle " + ms(m.idle_ms) + ", " + percent(m.idle_fraction()) + " of the step)";
  } else {
    s += " on the host; the trace has no GPU events";
  }
  if (m.match == "pattern" && m.notebook)
    s += "; joined by pattern within the notebook (its cells' frames name no function of it) to ";
  else if (m.match == "pattern") s += "; joined by pattern (the trace has no Python stacks) to ";
  else if (m.match == "function") s += "; joined by Python stack (in " + m.function + ") to ";
  else s += "; joined by source line to ";
  for (size_t i = 0; i < m.events.size() && i < 3; ++i) s += (i ? ", " : "") + m.events[i];
  if (m.events.size() > 3) s += ", ...";
  if (m.shared) s += " (shared with " + std::to_string(m.shared) + " other finding" + (m.shared == 1 ? ")" : "s)");
  return s;
}

nlohmann::json measured_json(const Measured& m) {
  return {{"host_ms_per_step", m.host_ms},
          {"host_fraction", m.host_fraction()},
          {"gpu_idle_ms_per_step", m.gpu ? nlohmann::json(m.idle_ms) : nlohmann::json(nullptr)},
          {"gpu_idle_fraction", m.gpu ? nlohmann::json(m.idle_fraction()) : nlohmann::json(nullptr)},
          {"step_ms", m.step_ms},
          {"match", m.match},
          {"function", m.function.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.function)},
          {"events", m.events},
          {"shared_with", m.shared}};
}

nlohmann::json summary_json(const MeasuredReport& m) {
  const Profile& p = m.profile;
  nlohmann::json unexplained = nlohmann::json::array();
  for (const auto& u : m.unexplained)
    unexplained.push_back({{"kind", u.kind},
                           {"name", u.name},
                           {"gpu_idle_ms_per_step", p.has_gpu ? nlohmann::json(u.idle_ms) : nlohmann::json(nullptr)},
                           {"host_ms_per_step", u.host_ms},
                           {"why", u.why}});
  nlohmann::json loops = nlohmann::json::array();
  for (const auto& l : m.loops) loops.push_back(loop_json(l));
  return {{"trace", p.path},
          {"steps", p.steps.size()},
          {"step_source", p.step_source},
          {"mean_step_ms", p.mean_step_ms()},
          {"gpu_busy_fraction", p.has_gpu ? nlohmann::json(p.busy_fraction()) : nlohmann::json(nullptr)},
          {"python_stacks", p.has_stacks},
          {"findings_joined", m.findings.size()},
          {"unexplained", unexplained},
          {"loops", loops},
          {"loop_note", m.loop_note.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.loop_note)}};
}

std::vector<std::string> summary_lines(const MeasuredReport& m) {
  const Profile& p = m.profile;
  std::vector<std::string> lines;
  if (p.steps.empty()) {
    lines.push_back("profile " + p.path + ": no steps found, nothing measured");
    return lines;
  }
  std::string head = "profile " + p.path + ": " + std::to_string(p.steps.size()) + " step" +
                     (p.steps.size() == 1 ? "" : "s") + " (" + p.step_source + "), " + ms(p.mean_step_ms()) + " per step";
  if (p.has_gpu) head += ", GPU busy " + percent(p.busy_fraction()) + ", idle " + percent(1 - p.busy_fraction());
  else head += ", no GPU events (host times only)";
  lines.push_back(head);
  size_t joined = m.findings.size();
  lines.push_back("  " + std::to_string(joined) + " finding" + (joined == 1 ? "" : "s") + " joined to measured host events" +
                  (p.has_stacks ? " (by Python stack)" : " (by pattern: the trace has no Python stacks)"));
  for (const auto& l : m.loops) {
    std::string line = "  " + l.label + ", measured: step " + ms(l.step_ms) + ", ";
    if (l.gpu) line += "GPU busy " + ms(l.gpu_ms) + " (" + percent(l.busy_fraction()) + "), idle " + percent(l.idle_fraction());
    else line += "host waits " + percent(l.idle_fraction()) + " of it (no GPU events: the rest counts as GPU work)";
    auto range = [](double lo, double hi) {
      std::string a = percent(lo), b = percent(hi);
      return a == b ? a : a.substr(0, a.size() - 1) + ".." + b;
    };
    line += "; est. GPU busy " + range(l.busy_now_lo, l.busy_now_hi) + " now, " + range(l.busy_after_lo, l.busy_after_hi) +
            " after its fixes";
    lines.push_back(line);
    for (const auto& ip : l.idle) {
      double f = l.step_ms > 0 ? ip.ms / l.step_ms : 0;
      if (ip.findings.empty() && f < 0.005) continue;
      std::string what = l.gpu ? "GPU idle " + percent(f) + " of the step" : percent(f) + " of the step on the host";
      if (ip.kind == "none") {
        lines.push_back("    " + what + " with no host op recorded (launch gaps, Python overhead)");
        continue;
      }
      std::string s = "    " + what + (l.gpu ? " while the host runs " : " in ") + ip.name;
      if (!ip.findings.empty()) {
        s += " (";
        for (size_t i = 0; i < ip.findings.size(); ++i) s += (i ? ", " : "") + ip.findings[i];
        s += ")";
      } else {
        s += " (" + ip.why + ")";
      }
      lines.push_back(s);
    }
  }
  if (!m.loop_note.empty() && !m.findings.empty()) lines.push_back("  " + m.loop_note);
  if (!m.loops.empty()) return lines;  // the loop's lines list what no finding explains
  size_t listed = 0;
  for (const auto& u : m.unexplained) {
    if (++listed > 8) {
      lines.push_back("  ... " + std::to_string(m.unexplained.size() - 8) + " smaller (all of them: `--output-format sarif`, run properties)");
      break;
    }
    double f = u.step_ms > 0 ? (p.has_gpu ? u.idle_ms : u.host_ms) / u.step_ms : 0;
    if (!p.has_gpu) {
      lines.push_back("  " + percent(f) + " of the step on the host in " + u.name + " (" + u.why + ")");
      continue;
    }
    std::string what = "GPU idle " + percent(f) + " of the step";
    if (u.kind == "none") lines.push_back("  " + what + " with no host op recorded (launch gaps, Python overhead)");
    else lines.push_back("  " + what + " while the host runs " + u.name + " (" + u.why + ")");
  }
  return lines;
}

}  // namespace stoker::trace
