// The Python front end's entry point: parse, build the semantic model, run the checks.
#pragma once

#include "core/analyzer.h"

namespace stoker::python {

AnalysisResult check(const SourceFile& file, const Settings& settings, const ProjectHooks& project = {});

}  // namespace stoker::python
