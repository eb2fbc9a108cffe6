// What an analysis run produced, in the form every emitter reads.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/analyzer.h"
#include "core/rules.h"

namespace stoker {

namespace trace {
struct MeasuredReport;  // trace/join.h
}

struct FileReport {
  std::shared_ptr<const SourceFile> source;  // kept only for files with something to show
  AnalysisResult result;
};

struct Report {
  std::vector<FileReport> files;   // files with diagnostics or notices, in path order
  std::vector<Notice> errors;      // inputs that could not be analyzed at all
  std::vector<Notice> warnings;    // e.g. a directory without Python or C++ files
  size_t files_analyzed = 0;
  size_t fixed = 0;                // number of fixes applied (when fixing)
  std::vector<std::string> analyzed_files;  // every file handed to analysis (JUnit: one case each)
  // `--profile TRACE`: what the trace measured, joined to these findings (trace/join.h).
  std::shared_ptr<const trace::MeasuredReport> measured;
};

struct TextOptions {
  bool color = false;
  bool show_source = true;   // false: concise, one line per finding
  bool statistics = false;
  bool unsafe_fixes = false;  // --unsafe-fixes: unsafe fixes count as applicable ([*])
  bool summary = true;        // false (--quiet): findings only, no summary lines
};

// A diagnostic's 1-based start and end positions.
// In a notebook these are within the cell (Position::cell says which), as ruff reports them.
std::pair<Position, Position> diagnostic_span(const SourceFile& file, const Diagnostic& d);
// Positions in the file's own bytes: the same as diagnostic_span except in a notebook, where
// they are in its JSON text (for consumers that show the raw file: SARIF, GitHub, GitLab).
std::pair<Position, Position> file_span(const SourceFile& file, TextRange range);

namespace output {
// "hot loop train.py:75" (or "train.py (outside a hot loop)") and its busy line.
std::string loop_label(const SourceFile& file, const LoopStep& l);
std::string loop_line(const SourceFile& file, const LoopStep& l);
// The findings with an estimate, ranked by gain (midpoint), at most `limit`.
struct RankedFinding {
  const FileReport* file;
  const Diagnostic* diagnostic;
};
std::vector<RankedFinding> top_findings(const Report& report, size_t limit);
void write_text(std::ostream& out, const Report& report, const RuleRegistry& rules, const TextOptions& opts);
void write_json(std::ostream& out, const Report& report, const RuleRegistry& rules);
// SARIF 2.1.0 (one run; rule documents in tool.driver.rules; URIs relative to %SRCROOT%, the
// working directory).
void write_sarif(std::ostream& out, const Report& report, const RuleRegistry& rules);
// GitHub Actions workflow commands (`::warning file=...::message`).
void write_github(std::ostream& out, const Report& report, const RuleRegistry& rules);
// GitLab Code Quality JSON with fingerprints that survive unrelated edits.
void write_gitlab(std::ostream& out, const Report& report, const RuleRegistry& rules);
// JUnit XML: one test case per analyzed file.
void write_junit(std::ostream& out, const Report& report, const RuleRegistry& rules);
// One self-contained HTML page: per hot loop the step-time breakdown now and after the fixes,
// the findings ranked by gain with their code, fix and assumptions (output/html.cpp).
void write_html(std::ostream& out, const Report& report, const RuleRegistry& rules);
}  // namespace output

}  // namespace stoker
