// Parts of a callee's answer (ExternalFacts::callee's `fields`) kept apart from kReturnsCuda and
// kClass (python/project_facts.h), which most readers ask for without reading these: a change of
// one re-analyzes only the modules that read it (docs/architecture.md, "Project mode").
#pragma once

namespace stoker::python::fact {
constexpr unsigned kReturnsTensor = 262144;  // FunctionFacts::returns_tensor
constexpr unsigned kHotSelfCalls = 524288;   // FunctionFacts::hot_self_calls (a "Class" entry)
// A return that is a host tensor (or a container of them) by its types: ret_kind and ret_device
// (and is_class) only where ret_device is the CPU's, nothing otherwise. For the readers that act
// only on such a return (TypeInference::host_forward, is_batch_impl's tensor built on the host):
// a return moving from an unresolved device to any device (the type wave of callers-first rounds)
// re-analyzes none of them.
constexpr unsigned kHostReturn = 1048576;
// FunctionFacts::returns_follow's parameters, apart from kReturnDep (dep_*): read only by
// keyed_store_cuda where the dependence is not known; the device tracker's kReturnDep readers
// read dep_* only.
constexpr unsigned kReturnsFollow = 2097152;
// An incoming_param field: ArgFacts::ns and ns_values (read only by `args.<dest>` of a parameter).
constexpr unsigned kNamespaceArg = 2048;
// An incoming_param field: ArgFacts::dict and dict_values (read only by `d["key"]` of a parameter).
constexpr unsigned kDictArg = 8192;
}  // namespace stoker::python::fact
