// A container whose every item a loop before the read replaced by a host value (Open-Unmix's
// evaluate.py: `for key in estimates: estimates[key] = estimates[key][0].cpu().numpy()`): read
// after that loop, it holds host values, whatever the CUDA values it was built from.
#pragma once

#include "python/syntax.h"

namespace stoker::python {

class SemanticModel;

// `use`, a name, reads such a container: a statement before it in an enclosing block of its
// function (so it ran whenever the read runs; inside any loop that holds the read) is a `for k
// in name:` (`name.keys()`, `name.items()`, k the loop's first name) whose body stores `name[k] =
// v` unconditionally, v read back to the host (`.numpy()`,
// `.tolist()`, `.item()`, `.cpu()` outermost but for attributes such as `.T` and `.detach()`),
// and no binding of the name, nor store into its items, nor method call on it, comes between
// that loop and the read. O(the statements of the enclosing blocks before the read).
bool items_read_back(const SemanticModel& m, Node use);

}  // namespace stoker::python
