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

}  // namespace stoker::python
