// Helpers shared by the distributed-training checks (DD001-DD006).
#pragma once

#include "python/rules/common.h"

namespace stoker::python::rules {

// `DistributedDataParallel(...)` under any import path.
bool is_ddp_constructor(const SemanticModel& m, Node call);
// The DDP construction an expression may evaluate to (`model` after `model = DDP(model)`,
// `self.model`), or a null node.
Node ddp_construction(const SemanticModel& m, Node expr);
// Does the program use torch.distributed (a `torch.distributed.*` call or a DDP model)?
bool uses_distributed(const SemanticModel& m);
// The nearest `with` statement around `n` (inside `limit`, which may be null) one of whose
// items skips DDP's gradient synchronization: `model.no_sync()` (also through a conditional
// or a variable holding it), Accelerate's `accumulate`/`no_sync`, Fabric's `no_backward_sync`.
Node enclosing_no_sync(const Context& ctx, Node n, Node limit);
// The statement that holds `n` as a direct child of a block.
Node enclosing_statement(Node n);
// torch.distributed collectives that return their result in a tensor argument.
bool is_collective(std::string_view qualified);

}  // namespace stoker::python::rules
