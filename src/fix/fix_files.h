// Fixing the files of an analysis run: the CLI's --fix, --unsafe-fixes and --diff.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "core/settings.h"
#include "fix/fixer.h"
#include "output/report.h"

namespace stoker::fix {

struct FixRunOptions {
  bool unsafe = false;  // also apply unsafe fixes
  bool write = true;    // false: --diff, compute but never write
  int max_rounds = 16;
};

struct FileFixOutcome {
  std::string path;
  std::string before, after;          // whole file bytes (BOM included)
  std::vector<AppliedFix> applied;
  std::string error;                  // why nothing was written
};

struct FixRunSummary {
  std::vector<FileFixOutcome> files;  // files with applicable fixes, in report order
  size_t applied() const;
  size_t changed_files() const;
};

// Runs the fix loop on every file of `report` that has an applicable fix. When writing, each
// changed file is replaced atomically and its FileReport is updated to the analysis of the fixed
// text (so what is printed afterwards is what remains); refusals become notices of the file,
// write failures errors of the report. `report.fixed` counts the fixes applied.
FixRunSummary fix_report(Report& report, const std::function<Settings(const std::string& path)>& settings_for,
                         const FixRunOptions& options);

// --diff: the unified diffs of all changed files.
void write_diffs(std::ostream& out, const FixRunSummary& summary);
// --show-fixes: per file, how many fixes of each rule were applied.
void write_applied_fixes(std::ostream& out, const FixRunSummary& summary, bool would);

}  // namespace stoker::fix
