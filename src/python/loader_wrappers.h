// Loader wrappers: functions of a module that build a DataLoader from the options their callers
// pass through `**kwargs` (`def get_dataloader(ds, **kwargs): return DataLoader(ds, ...,
// **kwargs)`). Their call sites are where the loader's options are decided (rec30).
#pragma once

#include "python/semantic_model.h"

namespace stoker::python {

// The loader construction a call builds through a wrapper of this module: the call's single
// callee is a function (not a generator) every return of which is one loader construction
// written in that function (directly, or through a name bound only to it), whose arguments
// forward the function's own `**` parameter. Null for any other call (a loader construction
// itself, a wrapper of another module, a wrapper that names its options, `**` forwarded from
// elsewhere). O(callee's returns + the construction's arguments).
Node wrapped_loader_construction(const SemanticModel& m, Node call);

// The options the loader built at a wrapper call site gets: the construction's own keywords
// (its `**` splat left out) followed by the call site's keywords that bind no named parameter
// of the wrapper (those reach the splat). `complete` false where a `**` at the site is not
// read, or a `*args` at the construction takes positional arguments of the site.
SemanticModel::Kwargs wrapper_site_options(const SemanticModel& m, Node site, Node construction);

// Loader wrappers of another module that take the workers as a named parameter (StyleTTS2's
// `def build_dataloader(..., num_workers=1, ...)`: `return DataLoader(..., num_workers=num_workers)`,
// called from train_first.py with `num_workers=2` and `num_workers=0`; set AM). The call sites
// decide the workers, so DL001 and DL003 judge the loader there.
// FunctionFacts::workers_param of module-level function f: the index of its parameter
// `num_workers` when every return is one loader construction of f (whole, directly or through a
// name bound only to it) passing `num_workers=num_workers` and `batch_size=batch_size` of
// parameters that have defaults (a generic wrapper its callers configure; set AD's
// `create_train_loader(train_dataset, batch_size, num_workers=0)` is none and is judged at its
// construction), with no `persistent_workers`, `*` or `**` argument; -1 otherwise.
// O(returns + the construction's arguments).
int loader_workers_param(const SemanticModel& m, int f);
// A call of such a wrapper of another module: the argument the call passes for the workers (a
// call that leaves them to the default: null, the default is not known here). Null otherwise.
Node wrapper_site_workers(const SemanticModel& m, Node call);
// The loader `construction` is such a wrapper's, and the wrapper's call sites decide its workers:
// every call site of the wrapper is in another module and passes them (judged there). O(calls).
bool workers_decided_at_sites(const SemanticModel& m, Node construction);

// IncomingCalls::result_per_epoch: besides kWholeResult, the whole result is iterated per epoch
// by a hot loop of the caller's own module (results_iterated_per_epoch), not only through a
// function of another module it is handed to: the factory's module then uses CUDA when the
// caller's does (ProjectAnalysis; set AM RAFT, not set J BiSeNet's hand-on).
constexpr unsigned kWholeLocalEpoch = 1u << 30;

}  // namespace stoker::python
