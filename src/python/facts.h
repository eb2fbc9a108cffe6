// Facts for the impact model (core/impact.h): after the checks ran, every finding gets what the
// semantic model resolves about the step it is in: its hot loop ("loop", "loop_line"), the
// loader that feeds that loop ("loader") and that loader's batch size, worker count and steps
// per epoch (from a resolvable dataset length), and the bytes a copy moves (from resolvable
// shapes and dtypes). A fact a check attached itself is kept. docs/impact-model.md lists the keys.
#pragma once

#include <vector>

#include "core/diagnostic.h"
#include "core/source.h"
#include "python/semantic_model.h"

namespace stoker::python {

void attach_facts(const SourceFile& file, const SemanticModel& model, std::vector<Diagnostic>& diags);

}  // namespace stoker::python
