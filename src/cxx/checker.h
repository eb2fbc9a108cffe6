// The C++/CUDA front end's entry point (Clang LibTooling): choose flags, parse, build the
// translation-unit model, run the checks. This header stays free of clang headers so that the
// rest of stoker compiles without them.
#pragma once

#include "core/analyzer.h"

namespace stoker::cxx {

AnalysisResult check(const SourceFile& file, const Settings& settings);

}  // namespace stoker::cxx
