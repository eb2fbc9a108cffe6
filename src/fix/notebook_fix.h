// Fixing a Jupyter notebook: the fix loop of fixer.h, run on the cells. Each fix's edits are
// mapped to the one cell they lie in (a fix that spans cells or touches IPython syntax is not
// applied), merged per cell, and the notebook program re-analyzed; the result is written back
// into the cells' `source` strings with the file's JSON layout unchanged (core/notebook.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/notebook.h"
#include "core/settings.h"
#include "fix/fixer.h"

namespace stoker::fix {

struct NotebookFixResult {
  std::string bytes;                    // the new file bytes (the original when `error` is set)
  std::shared_ptr<SourceFile> source;   // the fixed notebook, parsed again from `bytes`
  AnalysisResult analysis;              // analysis of `source`
  std::vector<AppliedFix> applied;
  std::string error;                    // why nothing is written
  std::vector<std::string> warnings;    // fixes left out (spanning cells, touching magics, malformed)
};

// `source` must be a notebook (SourceFile::notebook set).
NotebookFixResult fix_notebook(const SourceFile& source, AnalysisResult initial, const Settings& settings,
                               const FixLoopOptions& options);

// `--add-ignore` for a notebook: the comments go into the cells; written atomically.
bool write_notebook_ignore_comments(const SourceFile& source, const std::vector<Diagnostic>& diagnostics,
                                    size_t& added, size_t& skipped, std::string& error);

}  // namespace stoker::fix
