// Small helpers shared by the Python checks.
#pragma once

#include <optional>

#include "python/loader_params.h"
#include "python/rules/rules.h"

namespace stoker::python::rules {

// `obj.method(...)`: the method name, or empty when the callee is not an attribute.
inline std::string_view method_name(const Context& ctx, Node call) {
  Node fn = unparen(field(call, "function"));
  return is(fn, "attribute") ? ctx.text(field(fn, "attribute")) : std::string_view{};
}
inline Node receiver(Node call) { return unparen(field(unparen(field(call, "function")), "object")); }

// Is the boolean argument missing (with all kwargs known) or resolved False?
// Returns: 1 missing, 2 explicitly false, 0 true/unknown.
int bool_argument_state(const Context& ctx, Node call, int position, std::string_view keyword);

// A loader of positions (`DataLoader(range(n), batch_size, shuffle=True)`, ogb's link
// predictors): default collation of Python ints, so each batch is a small CPU index tensor made
// in microseconds. Workers would not make it faster (DL001) and pinning would pin indices only
// (DL002). Not when a `collate_fn` (named or positional) builds the batch from the positions, nor
// when a `*args`/`**kwargs` the model cannot read may pass one. O(arguments).
bool index_range_loader(const SemanticModel& m, Node call);

// Does a Dataset's __getitem__/__iter__ or a collate_fn in this file do CUDA work?
bool dataset_does_cuda_work(const Context& ctx);

// The edit that sets a keyword argument to `value`: replaces an existing keyword's value, or
// inserts `keyword=value`.
Edit set_keyword(const Context& ctx, Node call, std::string_view keyword, std::string_view value);

// Is the argument written as a literal at the call (`0`, `False`, `None`)? An edit replacing
// anything else (`args.workers`, a constant, a parameter) overrides the user's configuration,
// so such fixes are unsafe.
inline bool is_literal_argument(Node value) {
  value = unparen(value);
  return is(value, "integer") || is(value, "true") || is(value, "false") || is(value, "none");
}

// The edit that turns on `persistent_workers=True` next to where `num_workers` is written
// (`workers`: the num_workers value node, or null when it is missing). persistent_workers
// without workers is a runtime error, so when num_workers comes from a dict literal (perhaps
// one used only on the GPU path: `{...} if use_cuda else {}`), the key goes into that dict.
// Returns nullopt when no such edit is safe to place (num_workers set through `d[k] = v`...).
std::optional<Edit> persistent_workers_edit(const Context& ctx, Node call, Node workers);

// Does the expression (through names) evaluate to the machine's CPU count, `os.cpu_count()` or
// `multiprocessing.cpu_count()` (at least 1 wherever the program runs)?
bool is_cpu_count(const SemanticModel& m, Node expr);

// Is an `import os` (or `os` binding) visible at the offset?
bool name_is_bound(const Context& ctx, std::string_view name, uint32_t offset);
// An edit inserting `import <module>` on its own line before the first statement that is
// not a docstring or a `from __future__` import.
Edit add_import(const Context& ctx, std::string_view module);

}  // namespace stoker::python::rules
