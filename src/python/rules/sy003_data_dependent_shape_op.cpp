// SY003: operations whose output shape depends on tensor values (they wait for the GPU).
#include <algorithm>
#include <set>

#include "python/frameworks.h"
#include "python/rules/common.h"
#include "python/types.h"
#include "python/types_detail.h"

namespace stoker::python::rules {
namespace {

// A Python number: a literal, `float("inf")`, `math.inf`, `-x` of those.
bool is_python_scalar(const SemanticModel& m, Node n) {
  n = unparen(n);
  if (is(n, "unary_operator")) n = unparen(field(n, "argument"));
  auto k = kind(n);
  if (k == "integer" || k == "float" || k == "true" || k == "false" || k == "none") return true;
  if (k == "call") {
    std::string q = m.callee_name(n);
    return (q == "builtins.float" || q == "builtins.int") && m.constant(m.argument(n, 0, "")).has_value();
  }
  if (k == "attribute") {
    std::string q = m.qualified_name(n);
    if (q == "math.inf" || q == "math.pi" || q == "math.e" || q == "numpy.inf") return true;
  }
  // A name or attribute whose abstract type is a Python scalar (`ignore_index=255`).
  if ((k == "identifier" || k == "attribute") && m.types().type_of(n).kind == AbstractType::Kind::HostScalar) return true;
  // A setting read off an object that is no tensor, module or loader and holds nothing on CUDA
  // (a tokenizer's `pad_token_id`, a config's fill value): a Python value. Not `self.x` (a
  // buffer or parameter of a module whose class is not resolved).
  if (k == "attribute") {
    Node obj = unparen(field(n, "object"));
    if (!is(obj, "identifier") || m.text(obj) == "self" || m.is_cuda(obj) || m.is_cuda(n)) return false;
    auto holds_values = [](AbstractType::Kind t) {
      using K = AbstractType::Kind;
      return t == K::Tensor || t == K::Module || t == K::Loader || t == K::ModuleMember || t == K::HostContainer;
    };
    return !holds_values(m.types().type_of(obj).kind) && !holds_values(m.types().type_of(n).kind);
  }
  return false;
}

// Every value the name `e` may hold is an expression (not itself) that satisfies `pred`; false
// when the name has no known value.
template <typename Pred>
bool every_value(const SemanticModel& m, Node e, Pred pred) {
  auto vs = m.values(e);
  if (vs.empty()) return false;
  for (const auto& v : vs)
    if (v.kind != Value::Kind::Expr || same(unparen(v.expr), e) || !pred(v.expr)) return false;
  return true;
}

// An index that is a host sequence of positions, which torch copies to the device before
// gathering: a list (a literal, a comprehension, `list(...)`, `sorted(...)`), a numpy array of
// indices (`np.arange`, `np.argsort`, `np.random.permutation`...) or a slice of one, through
// names every binding of which is one. A tuple is not (it indexes several dimensions).
bool host_index_tensor(const SemanticModel& m, Node e, int depth = 0);

bool host_index_sequence(const SemanticModel& m, Node e, int depth = 0) {
  e = unparen(e);
  if (depth > 6 || is_null(e)) return false;
  auto k = kind(e);
  if (k == "list" || k == "list_comprehension") return true;
  if (k == "call") {
    static const std::set<std::string, std::less<>> sequences = {
        "builtins.list", "builtins.sorted", "numpy.arange", "numpy.array", "numpy.asarray", "numpy.argsort",
        "numpy.random.permutation", "numpy.concatenate", "numpy.flatnonzero"};
    // `torch.randperm(n).tolist()` (HALOs' PPO micro-batch shuffle), `np.argsort(x).tolist()`: a
    // host index tensor or array made a Python list of positions.
    Node fn = unparen(field(e, "function"));
    if (is(fn, "attribute") && m.text(field(fn, "attribute")) == "tolist" && named_count(field(e, "arguments")) == 0) {
      Node r = unparen(field(fn, "object"));
      return host_index_tensor(m, r, depth + 1) || host_index_sequence(m, r, depth + 1);
    }
    // `np.random.choice(n_edges, size=k, replace=False)` (KGIN's edge sampling): positions drawn
    // as an array where a size is given (without one, a single scalar position).
    if (m.callee_name(e) == "numpy.random.choice") {
      Node size = m.argument(e, 1, "size");
      return !is_null(size) && !is(unparen(is(size, "keyword_argument") ? field(size, "value") : size), "none");
    }
    return sequences.count(m.callee_name(e)) > 0;
  }
  if (k == "subscript") {
    Node sub = unparen(field(e, "subscript"));
    return is(sub, "slice") && named_count(e) == 2 && host_index_sequence(m, field(e, "value"), depth + 1);
  }
  if (k != "identifier") return false;
  return every_value(m, e, [&](Node v) { return host_index_sequence(m, v, depth + 1); });
}

// A parameter every call site of which (here or in other modules: ArgFacts' joined type) hands a
// host container of host values: a list of positions among several indices (`u_g_embeddings[users,
// :]` of NGCF's forward, `users` a list its training loop samples). Only among several indices,
// where a tuple is one sequence of positions too.
bool host_container_param(const SemanticModel& m, Node e) {
  e = unparen(e);
  if (!is(e, "identifier")) return false;
  auto bs = m.lookup(m.text(e), start(e));
  if (bs.size() != 1 || bs[0]->kind != Binding::Kind::Param) return false;
  AbstractType t = m.types().type_of(e);
  return t.kind == AbstractType::Kind::HostContainer && !t.tensors &&
         (t.device == TypeDevice::Cpu || t.device == TypeDevice::Unresolved);
}

// An index tensor built on the host: a torch factory of positions given no device
// (`torch.arange(n)`, `torch.randperm(n)`), or an element of a
// sequence `torch.chunk` / `torch.split` (or the methods) cut from one: `for s in
// torch.chunk(torch.arange(len(x)), n): y[s]`. Through names every binding of which is one
// (a loop target over such a sequence included). torch copies it to the device before gathering.

// A sequence whose elements are host index tensors.
bool host_index_pieces(const SemanticModel& m, Node e, int depth) {
  e = unparen(e);
  if (depth > 6 || is_null(e)) return false;
  if (is(e, "call")) {
    const std::string& q = m.callee_name(e);
    if (q == "torch.chunk" || q == "torch.split" || q == "torch.tensor_split")
      return host_index_tensor(m, m.argument(e, 0, "input"), depth + 1);
    Node fn = unparen(field(e, "function"));
    if (q.empty() && is(fn, "attribute")) {
      std::string_view meth = m.text(field(fn, "attribute"));
      if (meth == "chunk" || meth == "split" || meth == "tensor_split")
        return host_index_tensor(m, field(fn, "object"), depth + 1);
    }
    return false;
  }
  if (!is(e, "identifier")) return false;
  return every_value(m, e, [&](Node v) { return host_index_pieces(m, v, depth + 1); });
}

bool host_index_tensor(const SemanticModel& m, Node e, int depth) {
  e = unparen(e);
  if (depth > 6 || is_null(e)) return false;
  if (is(e, "call")) {
    const std::string& q = m.callee_name(e);
    if (q == "torch.arange" || q == "torch.randperm")
      return is_null(m.argument(e, -1, "device")) && !m.default_device_moved();
    return false;
  }
  if (!is(e, "identifier")) return false;
  auto bindings = m.lookup(m.text(e), start(e));
  if (bindings.empty() || bindings.size() > SemanticModel::kMaxCandidates) return false;
  for (const Binding* b : bindings) {
    if (b->unpack_index >= 0 || !is(b->target, "identifier")) return false;
    if (b->kind == Binding::Kind::LoopTarget) {
      if (!host_index_pieces(m, b->value, depth + 1)) return false;
    } else if (b->kind != Binding::Kind::Assign || !host_index_tensor(m, b->value, depth + 1)) {
      return false;
    }
  }
  return true;
}

// What the part of a loop's target that binds `b`'s name draws from: for `J` in
// `for t, (_, J) in zip(targets, indices)`, `indices`; for `src` in
// `for i, (src, _) in enumerate(indices)`, `indices`; else the whole iterable.
Node drawn_from(const SemanticModel& m, const Binding& b) {
  Node it = unparen(b.value);
  Node t = b.target, child{};
  for (Node p = parent(t); !is_null(p) && !is(p, "for_statement") && !is(p, "for_in_clause"); p = parent(p)) {
    child = t;
    t = p;
  }
  if (is_null(child) || !is(it, "call")) return it;
  int pos = 0, found = -1;
  for (Node c : named_children(t)) {
    if (same(c, child)) found = pos;
    ++pos;
  }
  const std::string& q = m.callee_name(it);
  if (q == "builtins.zip" && found >= 0) return unparen(m.argument(it, found, ""));
  if (q == "builtins.enumerate" && found == 1) return unparen(m.argument(it, 0, "iterable"));
  return it;
}

// A tensor the abstract types place on the host (`self.mask = torch.ones((n, n), dtype=bool)`
// read in a forward, the CPU index tensors a matcher returns): torch copies it to the device
// before gathering (a boolean one after finding its true positions).
bool cpu_tensor_index(const SemanticModel& m, Node e) {
  e = unparen(e);
  if (is_null(e) || m.default_device_moved()) return false;
  AbstractType t = m.types().type_of(e);
  // A tuple or list of CPU index tensors (`idx = (batch_idx, src_idx)`, advanced indexing by
  // several) is copied to the device as one is.
  if (!type_detail::tensor_like(t) || t.device != TypeDevice::Cpu) return false;
  if (t.kind == AbstractType::Kind::HostContainer) return true;
  // An element of iterating a tensor (`for i in torch.randint(n, (b,))`: a 0-dim integer tensor
  // indexes as a Python int does, read on the host) or a reduction to one value is no index
  // tensor; a loader's batch of positions is.
  if (is(e, "call")) {
    Node fn = unparen(field(e, "function"));
    static const std::set<std::string, std::less<>> reductions = {"sum", "max", "min", "argmax", "argmin",
                                                                  "mean", "prod", "item", "squeeze"};
    if (is(fn, "attribute") && reductions.count(m.text(field(fn, "attribute")))) return false;
  }
  // So is an element read at one integer position (`a = best_n[ti]` of a 1-D CPU tensor: torch
  // reads a 0-dim integer index with `.item()`, on the host), written there or bound to a name.
  // A name every binding of which is a torch factory given a shape of two or more dimensions
  // (`ind = torch.zeros([2, bs, n], dtype=torch.long)`, `torch.empty(2, n)`): a row of it is a
  // tensor of positions, not a 0-dim item (yolov8-pytorch's `pd_scores[ind[0], :, ind[1]]`).
  auto multi_dim = [&](Node t) {
    t = unparen(t);
    if (!is(t, "identifier")) return false;
    auto bindings = m.lookup(m.text(t), start(t));
    if (bindings.empty() || bindings.size() > SemanticModel::kMaxCandidates) return false;
    static const std::set<std::string, std::less<>> factories = {"torch.zeros", "torch.ones", "torch.empty",
                                                                 "torch.full"};
    for (const Binding* b : bindings) {
      if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0) return false;
      Node c = unparen(b->value);
      if (!is(c, "call") || !factories.count(m.callee_name(c))) return false;
      Node shape = unparen(m.argument(c, 0, "size"));
      if (is(shape, "list") || is(shape, "tuple")) {
        if (named_count(shape) < 2) return false;
        for (Node d : named_children(shape))
          if (is(d, "list_splat") || is(d, "comment")) return false;
      } else {
        // `torch.zeros(2, n)`: sizes as positional arguments (torch.full's second is its value).
        size_t sizes = 0;
        for (Node a : named_children(field(c, "arguments"))) {
          if (is(a, "keyword_argument") || is(a, "comment")) continue;
          if (is(a, "list_splat") || is(a, "dictionary_splat")) return false;
          ++sizes;
        }
        if (m.callee_name(c) == "torch.full" || sizes < 2) return false;
      }
    }
    return true;
  };
  auto element_at_position = [&](Node v) {
    v = unparen(v);
    if (!is(v, "subscript") || named_count(v) != 2) return false;
    Node index = unparen(field(v, "subscript"));
    AbstractType it = m.types().type_of(index);
    // A tensor itself: the item of a list of index tensors (`indices[bi]`, XMem's per-sample
    // `torch.cat` of random frame indices, set AE) is a whole index tensor.
    return !is(index, "slice") && it.kind == AbstractType::Kind::HostScalar &&
           m.types().type_of(field(v, "value")).kind == AbstractType::Kind::Tensor && !multi_dim(field(v, "value"));
  };
  if (element_at_position(e)) return false;
  if (is(e, "identifier")) {
    auto bindings = m.lookup(m.text(e), start(e));
    if (!bindings.empty() && std::all_of(bindings.begin(), bindings.end(), [&](const Binding* b) {
          return b->kind == Binding::Kind::Assign && b->unpack_index < 0 && element_at_position(b->value);
        }))
      return false;
  }
  if (is(e, "identifier"))
    for (const Binding* b : m.lookup(m.text(e), start(e)))
      if (b->kind == Binding::Kind::LoopTarget && !m.types().is_host_loader_iteration(b->value) &&
          !m.types().is_loader_iteration(b->value) && !m.is_loader_expr(b->value)) {
        // An element of a container of index tensors (a matcher's pairs) is a whole tensor.
        AbstractType from = m.types().type_of(drawn_from(m, *b));
        if (from.kind != AbstractType::Kind::HostContainer || !from.tensors) return false;
      }
  return true;
}

// A mask that is an array whatever its device: a comparison (`<`, `>`, `==`...) one side of
// which is a tensor by its type or an array by the operation that computes it (`.reshape(-1)`,
// `.view(...)`, a subscript with a slice or several indices: no Python scalar or list has them),
// and `~`, `&`, `|` of such masks. Indexing a CUDA tensor with a host mask turns it into positions
// and copies them to the device; with a CUDA one, the count of its true elements is read back:
// a sync either way (decision-transformer's `action_preds[attention_mask.reshape(-1) > 0]`,
// whose mask comes from a batch function handed to the trainer).
bool array_operand(const SemanticModel& m, Node e) {
  e = unparen(e);
  if (m.types().type_of(e).kind == AbstractType::Kind::Tensor) return true;
  if (is(e, "call")) {
    Node fn = unparen(field(e, "function"));
    if (!is(fn, "attribute") || !m.callee_name(e).empty()) return false;
    static const std::set<std::string, std::less<>> array_methods = {"reshape", "view", "flatten", "squeeze",
                                                                     "unsqueeze", "view_as", "reshape_as"};
    return array_methods.count(m.text(field(fn, "attribute"))) > 0;
  }
  if (is(e, "subscript")) {
    Node sub = unparen(field(e, "subscript"));
    return named_count(e) > 2 || is(sub, "slice") || is(sub, "ellipsis");
  }
  return false;
}

bool array_mask(const SemanticModel& m, Node e, int depth = 0) {
  e = unparen(e);
  if (depth > 4 || is_null(e)) return false;
  if (is(e, "comparison_operator")) {
    if (named_count(e) != 2) return false;
    std::string_view o = m.text(ts_node_child(e, 1));
    if (o != "<" && o != ">" && o != "<=" && o != ">=" && o != "==" && o != "!=") return false;
    return array_operand(m, named_child(e, 0)) || array_operand(m, named_child(e, 1));
  }
  if (is(e, "unary_operator") && m.text(ts_node_child(e, 0)) == "~") return array_mask(m, field(e, "argument"), depth + 1);
  if (is(e, "binary_operator")) {
    std::string_view o = m.text(field(e, "operator"));
    if (o != "&" && o != "|") return false;
    return array_mask(m, field(e, "left"), depth + 1) && array_mask(m, field(e, "right"), depth + 1);
  }
  return false;
}

// A node split mask of a PyTorch Geometric graph: `data.train_mask`, `data.val_mask`,
// `data.valid_mask`, `data.test_mask` (the boolean tensors PyG's datasets and OGB's converted
// splits store on a graph), in a module that imports torch_geometric; also the value a loop over
// a graph's call binds, `for _, mask in data('test_mask')` (Data.__call__ yields (key, value)
// pairs of the attributes it names, here masks only). Indexing a CUDA tensor with one syncs as
// any mask does (set V GCNII PyG/cora/cora.py, set P ogb's cluster_gcn.py). O(1) after the
// module's imports are read once.
bool graph_split_mask(const SemanticModel& m, Node e) {
  e = unparen(e);
  auto split_mask = [](std::string_view name) {
    return name == "train_mask" || name == "val_mask" || name == "valid_mask" || name == "test_mask";
  };
  bool pyg = m.memo("imports_torch_geometric", [&] {
    if (m.scopes().empty()) return 0;
    for (const auto& [name, bindings] : m.scopes()[0].bindings)
      for (const auto& b : bindings)
        if (b.kind == Binding::Kind::Import && b.qualified.rfind("torch_geometric", 0) == 0) return 1;
    return 0;
  }) != 0;
  if (!pyg) return false;
  if (is(e, "attribute")) return split_mask(m.text(field(e, "attribute")));
  if (!is(e, "identifier")) return false;
  auto bindings = m.lookup(m.text(e), start(e));
  if (bindings.empty()) return false;
  for (const Binding* b : bindings) {
    if (b->kind != Binding::Kind::LoopTarget || b->unpack_index != 1) return false;
    Node it = unparen(b->value);
    if (!is(it, "call") || !is(unparen(field(it, "function")), "identifier")) return false;
    bool names = false;
    for (Node a : named_children(field(it, "arguments"))) {
      if (!is(a, "string")) return false;
      auto c = m.constant(a);
      if (!c || c->kind != Value::Kind::Str || !split_mask(c->s)) return false;
      names = true;
    }
    if (!names) return false;
  }
  return true;
}

// One split of an OGB dataset's node or graph split, `split_idx["train"]` with every value of
// `split_idx` a call `dataset.get_idx_split()` on an instance of a class of the `ogb` package
// (`PygNodePropPredDataset(name=...)`), through parameters the module's calls hand it: OGB returns
// the splits as CPU index tensors, so indexing CUDA data with one copies the positions to the
// device first (set P ogb arxiv/gnn.py's test()). Not once moved (`split_idx["train"].to(device)`
// is another expression). O(values of the two names).
bool ogb_split_index(const SemanticModel& m, Node e) {
  e = unparen(e);
  if (!is(e, "subscript") || named_count(e) != 2 || !is(unparen(field(e, "subscript")), "string")) return false;
  Node splits = unparen(field(e, "value"));
  if (!is(splits, "identifier")) return false;
  return every_value(m, splits, [&](Node v) {
    v = unparen(v);
    if (!is(v, "call")) return false;
    Node fn = unparen(field(v, "function"));
    if (!is(fn, "attribute") || m.text(field(fn, "attribute")) != "get_idx_split") return false;
    Node dataset = unparen(field(fn, "object"));
    if (!is(dataset, "identifier")) return false;
    return every_value(m, dataset, [&](Node d) {
      d = unparen(d);
      return is(d, "call") && m.callee_name(d).rfind("ogb.", 0) == 0;
    });
  });
}

// A falsy literal: None, False, 0, "", (), [], {}.
bool falsy_literal(const SemanticModel& m, Node n) {
  n = unparen(n);
  auto k = kind(n);
  if (k == "none" || k == "false") return true;
  if (k == "tuple" || k == "list" || k == "dictionary") return named_count(n) == 0;
  if (k == "integer") return m.text(n) == "0";
  if (k == "string") return m.text(n) == "\"\"" || m.text(n) == "''";
  return false;
}

// The code runs only where a caller opts in: an enclosing `if` (taken branch) tests the truth of
// a parameter whose default is falsy (`if labels and len(labels[xi]):` with `labels=()`), the
// value of which the analysis does not follow to the callers.
bool opt_in_guarded(const Context& ctx) {
  const auto& m = ctx.model();
  for (const auto& [cond, polarity] : ctx.frame().guards) {
    if (!polarity) continue;
    std::vector<Node> parts{unparen(cond)};
    for (size_t i = 0; i < parts.size() && i < 8; ++i) {
      Node c = parts[i];
      if (is(c, "boolean_operator") && m.text(field(c, "operator")) == "and") {
        parts.push_back(unparen(field(c, "left")));
        parts.push_back(unparen(field(c, "right")));
        continue;
      }
      if (!is(c, "identifier")) continue;
      auto bindings = m.lookup(m.text(c), start(c));
      if (bindings.size() != 1 || bindings[0]->kind != Binding::Kind::Param) continue;
      const Param& p = m.functions()[bindings[0]->function].params[bindings[0]->param_index];
      if (!is_null(p.default_value) && falsy_literal(m, p.default_value)) return true;
    }
  }
  return false;
}

void report(Context& ctx, Node at, const std::string& what, Fix fix,
            const char* why = " has a data-dependent output shape: the host waits for the GPU to learn its size") {
  Diagnostic* d = ctx.report_in_hot_context("SY003", at, what + why);
  if (d) d->fix = std::move(fix);
}

Fix display(const char* title) { return Fix{title, Applicability::DisplayOnly, {}}; }

}  // namespace

void sy003_data_dependent_shape_op(Context& ctx, Node node) {
  const auto& m = ctx.model();
  if (!m.uses_cuda()) return;
  if (is(node, "subscript")) {
    Node value = field(node, "value");
    if (!m.is_cuda(value)) return;
    Node index = unparen(field(node, "subscript"));
    // `x[:, mask]`: a mask among several indices selects as much as it holds.
    // `t[range(n), cls]`: a host range among several indices is converted to a CPU index
    // tensor and copied to the device, as a host list alone is.
    // `x[:, [0, 2]]`: a host list among several indices is copied to the device as one alone is.
    bool mask = false, host_range = false, host_list = false, host_array = false, host_tensor = false;
    size_t indices = 0;
    for (Node c : named_children(node)) {
      if (same(c, value) || is(c, "comment")) continue;
      ++indices;
      mask = mask || m.is_cuda_bool(unparen(c)) || array_mask(m, c) || graph_split_mask(m, c);
      host_range = host_range || (is(unparen(c), "call") && m.callee_name(unparen(c)) == "builtins.range");
      host_list = host_list || is(unparen(c), "list") || is(unparen(c), "list_comprehension");
      // `features[:, idx, :]` with `idx = np.random.permutation(n)`: a numpy array of positions
      // (through names) among several indices is copied to the device as a list is.
      host_array = host_array || (is(unparen(c), "identifier") && (host_index_sequence(m, c) || host_container_param(m, c)));
      host_tensor = host_tensor || cpu_tensor_index(m, c) || ogb_split_index(m, c);
    }
    if (indices < 2) host_list = host_array = false;
    host_list = host_list || host_array;
    bool host_index = host_range || host_list || host_tensor || (indices == 1 && (host_index_sequence(m, index) || host_index_tensor(m, index) ||
                                                      (is(index, "call") && m.callee_name(index) == "torch.tensor" &&
                                                       is_null(m.argument(index, -1, "device")))));
    if (!mask && !host_index) return;
    // The range among several indices is new evidence of its own: stay silent where it runs
    // only under a guard whose value is not resolved (yolov5's autolabelling rows, `labels` from
    // a `--save-hybrid` option).
    if ((host_range || host_list) && !mask && !(indices == 1 && host_index_sequence(m, index))) {
      HotContext hot = ctx.hot();
      if (hot.flag_guarded || hot.every != 0 || opt_in_guarded(ctx)) return;
    }
    // A Python scalar written through a mask is no sync (rules.md); host indices are still
    // copied to the device first.
    Node p = parent(node);
    if (!host_range && is(p, "assignment") && same(field(p, "left"), node) && is_python_scalar(m, field(p, "right")))
      return;
    if (mask)
      report(ctx, node, "Boolean-mask indexing", display("Use `torch.where(mask, a, b)` or multiply by the mask"));
    else
      // The output's shape is known; the indices are copied to the device from pageable
      // memory first, which waits for the work queued before it.
      report(ctx, node, "Indexing a CUDA tensor with host indices",
             display("Build the index tensor on the device once, before the loop"),
             " copies the indices to the GPU first: a synchronous copy that waits for the queued work");
    return;
  }
  if (!is(node, "call")) return;
  const std::string& q = m.callee_name(node);
  std::string_view meth = method_name(ctx, node);
  // Framework functions the table lists as data-dependent (torchvision.ops.nms, batched_nms).
  if (FrameworkTable::get().is_shape_sync(q)) {
    Node boxes = m.argument(node, 0, "boxes");
    if (is_null(boxes) || !m.is_cuda(boxes)) return;
    report(ctx, node, "`" + q.substr(q.rfind('.') + 1) + "`",
           display("Keep a fixed number of candidates (top-k by score) and mask the rest, or run it every N steps"));
    return;
  }
  bool torch_fn = q.rfind("torch.", 0) == 0;
  std::string_view name = torch_fn ? std::string_view(q).substr(q.rfind('.') + 1) : meth;
  static const std::set<std::string, std::less<>> always = {"nonzero", "argwhere", "unique", "unique_consecutive",
                                                            "masked_select"};
  // Only these names can report: the (costlier) device of the subject is asked for them alone.
  if (!always.count(name) && name != "where" && name != "repeat_interleave" && name != "one_hot") return;
  Node subject = torch_fn ? m.argument(node, 0, "input") : receiver(node);
  if (is_null(subject) || !m.is_cuda(subject)) return;
  size_t positional = 0;
  for_each_named_child(field(node, "arguments"), [&](Node a) {
    positional += !is(a, "keyword_argument");
    return true;
  });
  if (always.count(name)) {
    report(ctx, node, "`" + std::string(name) + "`", display("Use a fixed-size formulation (masking, `torch.where` with three arguments)"));
    return;
  }
  if (name == "where" && torch_fn && positional == 1) {
    report(ctx, node, "`torch.where(condition)`", display("Use `torch.where(condition, a, b)` or masking"));
    return;
  }
  if (name == "repeat_interleave" && is_null(m.argument(node, -1, "output_size"))) {
    // An integer count of repeats (`x.repeat_interleave(2, dim=2)`, `torch.repeat_interleave(x,
    // n_heads)`): every element repeats n times, the output's shape is known on the host.
    Node repeats = torch_fn ? m.argument(node, 1, "repeats") : m.argument(node, 0, "repeats");
    if (!is_null(repeats) &&
        (m.constant_int(repeats) || m.int_bounds(repeats) || m.types().type_of(repeats).kind == AbstractType::Kind::HostScalar))
      return;
    report(ctx, node, "`repeat_interleave` without `output_size`", display("Pass `output_size=` when the total is known"));
    return;
  }
  if (name == "one_hot" && (q == "torch.nn.functional.one_hot" || torch_fn) && is_null(m.argument(node, 1, "num_classes"))) {
    Fix fix = display("Pass `num_classes=`");
    for (const char* candidate : {"num_classes", "n_classes", "NUM_CLASSES", "nclasses"}) {
      // The name resolves to a constant: pass it.
      auto bindings = m.lookup(candidate, start(node));
      if (!all_bindings_of_kind(bindings, Binding::Kind::Assign)) continue;
      auto v = m.constant(bindings.front()->value);
      if (!v || v->kind != Value::Kind::Int) continue;
      fix = Fix{std::string("Pass `num_classes=") + candidate + "`", Applicability::Safe,
                {ctx.insert_keyword_argument(node, std::string("num_classes=") + candidate)}};
      break;
    }
    report(ctx, node, "`one_hot` without `num_classes`", fix);
  }
}

}  // namespace stoker::python::rules
