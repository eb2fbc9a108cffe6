// The fingerprints of the parts of the project's answers a module's query reads (ModuleEnv's
// query log: equal strings, equal answers), and the order of call sites named in messages.
// Used by python/project.cpp only.
#pragma once

#include <string>
#include <string_view>

#include "python/project_facts.h"

namespace stoker::python {

// Call sites "file.py:12" in order: by file name, then line.
bool earlier_site(const std::string& a, const std::string& b);
std::string fp_arg(const ArgFacts* a, unsigned fields);
std::string fp_incoming(const IncomingCalls* in, unsigned fields);
std::string fp_function(const FunctionFacts* f, unsigned fields);
// ExternalFacts::class_attr's answer: "-" no class, "n" no such attribute, else its kind:device.
std::string fp_class_attr(const FunctionFacts* f, std::string_view attr);

}  // namespace stoker::python
