// Helpers shared by the distributed-training checks (DD001-DD006).
#pragma once

#include <vector>

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
// Does any node of the tree under `root` (itself included) satisfy `pred`? Iterative: conditions
// and arguments may nest 100,000 levels deep.
template <class P>
bool any_node(Node root, P&& pred) {
  if (is_null(root)) return false;
  std::vector<Node> stack{root};
  while (!stack.empty()) {
    Node n = stack.back();
    stack.pop_back();
    if (pred(n)) return true;
    for (auto c : named_children(n)) stack.push_back(c);
  }
  return false;
}
// torch.distributed collectives that return their result in a tensor argument.
bool is_collective(std::string_view qualified);

}  // namespace stoker::python::rules
