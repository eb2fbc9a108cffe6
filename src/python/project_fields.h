// Parts of a callee's answer (ExternalFacts::callee's `fields`) kept apart from kReturnsCuda and
// kClass (python/project_facts.h), which most readers ask for without reading these: a change of
// one re-analyzes only the modules that read it (docs/architecture.md, "Project mode").
#pragma once

namespace stoker::python::fact {
constexpr unsigned kReturnsTensor = 262144;  // FunctionFacts::returns_tensor
constexpr unsigned kHotSelfCalls = 524288;   // FunctionFacts::hot_self_calls (a "Class" entry)
// An incoming_param field: ArgFacts::ns and ns_values (read only by `args.<dest>` of a parameter).
constexpr unsigned kNamespaceArg = 2048;
// An incoming_param field: ArgFacts::dict and dict_values (read only by `d["key"]` of a parameter).
constexpr unsigned kDictArg = 8192;
}  // namespace stoker::python::fact
