// Batch values: which expressions are the step's batch data (a DataLoader's batch, a host
// collection's slice picked by the step's index, a sampled comprehension, a helper's return of its
// batch parameter, a project data source's fetch), and assignments within a region. Split from
// model_devices.cpp (which keeps CUDA use, device kinds and CUDA tensors/masks) when that file
// reached 1,960 lines.
#include "python/call_positions.h"
#include "python/model_internal.h"
#include "python/project_fields.h"

#include "python/frameworks.h"
#include "python/types.h"
#include "python/types_detail.h"

namespace stoker::python {

using namespace model_detail;

namespace {

// `ids[:, i:i + seq_len]` with `for i in range(0, n, seq_len)`, `data = dataset[index]` with `for
// index in range(len(dataset))`: the step's slice (or element) of a host collection, picked by
// the variable of the range loop around it, when that loop is a hot loop (a step per iteration:
// the training or evaluation loop without a DataLoader). One index names the variable (or is a
// slice starting at it, or at it plus a constant), the others are full slices; the collection is
// a name or `self.x` the loop does not rebind, neither a module nor CUDA by its type or taint.
// Only once the loops are classified (`classified`). O(bindings of the two names + loop depth).
// `range(n)` (`trange(n)`, also under `tqdm(...)`), or a host sequence of indices: `np.arange(n)`,
// `np.random.permutation(n)`, `torch.randperm(n)` (no device), `list(range(n))`, or a name every
// binding of which is one (`idx = np.arange(len(X)); np.random.shuffle(idx); for i in idx:`,
// shuffled in place).
bool index_sequence(const SemanticModel& m, Node e, int depth = 0) {
  e = unparen(e);
  if (is(e, "identifier") && depth == 0) {
    auto bindings = m.lookup(m.text(e), start(e));
    if (bindings.empty() || bindings.size() > SemanticModel::kMaxCandidates) return false;
    for (const Binding* b : bindings)
      if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0 || !index_sequence(m, b->value, 1)) return false;
    return true;
  }
  if (!is(e, "call")) return false;
  Node fn = unparen(field(e, "function"));
  std::string_view last = is(fn, "attribute") ? m.text(field(fn, "attribute")) : m.text(fn);
  if (m.text(fn) == "range" || last == "trange") return true;
  // A progress bar yields the indices it wraps unchanged: `for i in tqdm(range(len(dataset))):`
  // (nerf_pl eval.py's per-image loop; rec27b).
  if (last == "tqdm") {
    Node a = m.argument(e, 0, "iterable");
    return !is_null(a) && !is(a, "keyword_argument") && index_sequence(m, a, depth);
  }
  const std::string& q = m.callee_name(e);
  if (q == "builtins.list") return depth < 2 && index_sequence(m, m.argument(e, 0, ""), 2);
  if (q != "numpy.arange" && q != "numpy.random.permutation" && q != "torch.randperm" && q != "torch.arange")
    return false;
  return is_null(m.argument(e, -1, "device"));
}

// `self.clustering_machine.sg_features[cluster].to(self.device)` in `do_forward_pass(self,
// cluster)`, called once per iteration of train()'s `for cluster in
// self.clustering_machine.clusters:` (ClusterGCN, set AY): the item of a host container picked by
// a parameter that every call site of the function (at least one) hands the target of the
// innermost `for` loop around it, a hot loop over a host sequence (a list of partition ids), is
// that step's partition: a mini-batch held on the host, built once before training. The container
// is a name, `self.x` or an attribute of one (another project object's dict of CPU tensors), a
// host container by its type (python/types.h) whose item is a host value or a CPU tensor; not a
// module, not CUDA. The parameter is bound only as the parameter. Where a type is not resolved,
// nothing is taken. O(call sites x bindings).
bool param_indexed_batch(const SemanticModel& m, Node sub, Node value, Node var) {
  auto bindings = m.lookup(m.text(var), start(var));
  if (bindings.size() != 1 || bindings[0]->kind != Binding::Kind::Param) return false;
  int f = bindings[0]->function;
  if (f < 0 || f != m.function_at(start(sub))) return false;
  const Function& fn = m.functions()[f];
  const Param& prm = fn.params[bindings[0]->param_index];
  int position = bindings[0]->param_index - bound_params(fn);
  if (prm.is_variadic || (position < 0 && !prm.keyword_only)) return false;
  Node root = value;
  for (int guard = 0; guard < 2 && is(root, "attribute"); ++guard) root = unparen(field(root, "object"));
  if (!is(root, "identifier") || m.is_module(value) || m.is_cuda(value)) return false;
  AbstractType ct = m.types().type_of(value);
  if (ct.kind != AbstractType::Kind::HostContainer || ct.device != TypeDevice::Cpu) return false;
  AbstractType et = m.types().type_of(sub);
  if (!et.is_host() && !(et.kind == AbstractType::Kind::Tensor && et.device == TypeDevice::Cpu)) return false;
  const auto& sites = m.callers(f);
  if (sites.empty()) return false;
  for (int ci : sites) {
    const auto& cs = m.calls()[ci];
    if (cs.loops.empty() || m.loops()[cs.loops.back()].kind != LoopKind::Hot) return false;
    Node a = m.argument(cs.call, prm.keyword_only ? -1 : position, prm.name);
    if (is(a, "keyword_argument")) a = field(a, "value");
    a = unparen(a);
    if (!is(a, "identifier")) return false;
    auto ab = m.lookup(m.text(a), start(a));
    if (ab.size() != 1 || ab[0]->kind != Binding::Kind::LoopTarget || !is(ab[0]->target, "identifier")) return false;
    Node loop = parent(ab[0]->target);
    if (!is(loop, "for_statement") || !same(unparen(field(loop, "left")), ab[0]->target) ||
        m.loop_index(loop) != cs.loops.back())
      return false;
    Node it = field(loop, "right");
    if (is_null(it)) return false;
    AbstractType seq = m.types().type_of(it);
    if (!index_sequence(m, it) && !(seq.kind == AbstractType::Kind::HostContainer &&
                                    (seq.device == TypeDevice::Cpu || seq.device == TypeDevice::Unresolved)))
      return false;
  }
  return true;
}

// Whether `var` (an identifier read inside `loop`) is the counter of that hot `while` loop: its
// condition reads the name, and every binding of it is an integer literal assigned outside the
// loop (also an element of a tuple display: `loss, s = 0, 0`) or a `+=` in its body, of which there
// is one. O(bindings + loop size).
bool hot_while_counter(const SemanticModel& m, Node loop, Node var) {
  if (!is(loop, "while_statement") || !is(var, "identifier")) return false;
  auto bindings = m.lookup(m.text(var), start(var));
  if (bindings.empty() || bindings.size() > SemanticModel::kMaxCandidates) return false;
  bool read = false;
  for_each_identifier(field(loop, "condition"), true, [&](Node id) {
    read = read || m.text(id) == m.text(var);
    return !read;
  });
  if (!read) return false;
  // A `+=` of the name in the loop's body (the lookup at the subscript may not list it).
  bool increment = false;
  for_each_identifier(field(loop, "body"), true, [&](Node id) {
    Node a = parent(id);
    if (m.text(id) == m.text(var) && is(a, "augmented_assignment") && same(unparen(field(a, "left")), id))
      increment = increment || m.text(field(a, "operator")) == "+=";
    return true;
  });
  auto literal = [&](const Binding* b) {
    Node v = unparen(b->value);
    if (b->unpack_index < 0) return is(v, "integer");
    // `loss, s, cor_loss = 0, 0, 0` (KGIN main.py): the element at the target's position.
    Node pattern = is(b->target, "identifier") ? parent(b->target) : Node{};
    if (!(is(pattern, "pattern_list") || is(pattern, "tuple_pattern")) || !(is(v, "expression_list") || is(v, "tuple")))
      return false;
    if (named_count(pattern) != named_count(v)) return false;
    return static_cast<uint32_t>(b->unpack_index) < named_count(v) &&
           same(named_child(pattern, static_cast<uint32_t>(b->unpack_index)), b->target) &&
           is(unparen(named_child(v, static_cast<uint32_t>(b->unpack_index))), "integer");
  };
  for (const Binding* b : bindings) {
    if (b->kind == Binding::Kind::AugAssign) {
      Node a = parent(b->target);
      if (!is(a, "augmented_assignment") || m.text(field(a, "operator")) != "+=" || !contains(field(loop, "body"), a))
        return false;
    } else if (b->kind != Binding::Kind::Assign || !literal(b) || contains(loop, b->target)) {
      return false;
    }
  }
  int li = m.loop_index(loop);
  return increment && li >= 0 && m.loops()[li].kind == LoopKind::Hot;
}

// `train_entity_pairs[start:end].to(device)` in `get_feed_dict(train_entity_pairs, start, end,
// ...)` whose every call site (at least one) sits directly in a hot `while` loop and hands
// `start` that loop's counter (hot_while_counter) and the sliced collection a name the loop does
// not rebind, neither a module nor CUDA there (KGIN main.py, set AZ): the step's slice of a host
// collection, as when the loop slices it itself. Both are parameters bound only as parameters.
// O(call sites x bindings).
bool param_counter_slice(const SemanticModel& m, Node sub, Node value, Node var) {
  auto vb = m.lookup(m.text(var), start(var));
  auto cb = m.lookup(m.text(value), start(value));
  if (vb.size() != 1 || vb[0]->kind != Binding::Kind::Param || cb.size() != 1 || cb[0]->kind != Binding::Kind::Param)
    return false;
  int f = vb[0]->function;
  if (f < 0 || f != cb[0]->function || f != m.function_at(start(sub))) return false;
  const Function& fn = m.functions()[f];
  const Param& vp = fn.params[vb[0]->param_index];
  const Param& cp = fn.params[cb[0]->param_index];
  int vpos = vb[0]->param_index - bound_params(fn), cpos = cb[0]->param_index - bound_params(fn);
  if (vp.is_variadic || cp.is_variadic || (vpos < 0 && !vp.keyword_only) || (cpos < 0 && !cp.keyword_only)) return false;
  for (Node p = parent(sub); !is_null(p) && !is(p, "function_definition"); p = parent(p))
    if (is(p, "for_statement") || is(p, "while_statement") || is(p, "lambda")) return false;
  const auto& sites = m.callers(f);
  if (sites.empty()) return false;
  for (int ci : sites) {
    const auto& cs = m.calls()[ci];
    if (cs.loops.empty() || cs.lambda_depth > 0) return false;
    Node loop = m.loops()[cs.loops.back()].node;
    Node a = m.argument(cs.call, vp.keyword_only ? -1 : vpos, vp.name);
    Node c = m.argument(cs.call, cp.keyword_only ? -1 : cpos, cp.name);
    if (is(a, "keyword_argument")) a = field(a, "value");
    if (is(c, "keyword_argument")) c = field(c, "value");
    a = unparen(a);
    c = unparen(c);
    if (!is(a, "identifier") || !is(c, "identifier") || !hot_while_counter(m, loop, a)) return false;
    if (m.assigned_within(m.text(c), loop) || m.is_module(c) || m.is_cuda(c) || m.types().cuda(c) == CudaAnswer::Cuda)
      return false;
  }
  return true;
}

bool range_indexed_batch(const SemanticModel& m, Node sub, bool classified) {
  if (!classified) return false;
  Node value = unparen(field(sub, "value"));
  if (Node index = unparen(field(sub, "subscript")); named_count(sub) == 2 && is(index, "identifier") &&
                                                    param_indexed_batch(m, sub, value, index))
    return true;
  bool self_attr = is(value, "attribute") && m.text(unparen(field(value, "object"))) == "self";
  if (!is(value, "identifier") && !self_attr) return false;
  Node var{};
  for (Node c : named_children(sub)) {
    if (same(c, field(sub, "value")) || is(c, "comment")) continue;
    c = unparen(c);
    if ((is(c, "slice") && named_count(c) == 0) || is(c, "ellipsis")) continue;
    Node lo = c;
    if (is(c, "slice")) {
      if (m.text(c).substr(0, 1) == ":") return false;
      lo = unparen(named_child(c, 0));
    }
    if (is(lo, "binary_operator") && m.text(field(lo, "operator")) == "+" && is(unparen(field(lo, "right")), "integer"))
      lo = unparen(field(lo, "left"));
    if (!is(lo, "identifier") || !is_null(var)) return false;
    var = lo;
  }
  if (is_null(var)) return false;
  auto bindings = m.lookup(m.text(var), start(var));
  if (bindings.empty()) return false;
  // The counter of the while loop around it (`while idx + bs <= len(carray):` ... `batch =
  // torch.tensor(carray[idx:idx + bs])` ... `idx += bs`: InsightFace's evaluate(), set AN): the
  // innermost loop holding the subscript is a hot `while` whose condition reads the name.
  auto while_counter = [&]() -> bool {
    Node loop{};
    for (Node p = parent(sub); !is_null(p) && is_null(loop); p = parent(p)) {
      auto k = kind(p);
      if (k == "function_definition" || k == "lambda" || k == "class_definition" || k == "for_statement") return false;
      if (k == "while_statement" && contains(field(p, "body"), sub)) loop = p;
    }
    return !is_null(loop) && hot_while_counter(m, loop, var) && !m.assigned_within(m.text(value), loop);
  };
  if (bindings[0]->kind != Binding::Kind::LoopTarget) {
    if (!while_counter() && !(is(value, "identifier") && param_counter_slice(m, sub, value, var))) return false;
    if (m.is_module(value) || m.is_cuda(value)) return false;
    return m.types().cuda(value) != CudaAnswer::Cuda;
  }
  for (const Binding* b : bindings) {
    if (b->kind != Binding::Kind::LoopTarget || !is(b->target, "identifier")) return false;
    Node loop = parent(b->target);
    if (!is(loop, "for_statement") || !same(unparen(field(loop, "left")), b->target) ||
        !contains(field(loop, "body"), sub))
      return false;
    if (!index_sequence(m, field(loop, "right"))) return false;
    int li = m.loop_index(loop);
    if (li < 0 || m.loops()[li].kind != LoopKind::Hot) return false;
    if (m.assigned_within(m.text(value), loop)) return false;
  }
  if (m.is_module(value) || m.is_cuda(value)) return false;
  return m.types().cuda(value) != CudaAnswer::Cuda;
}

}  // namespace

namespace {
// `question_data.append(batch)` with `batch = tokenizer(question[i * bs:(i + 1) * bs],
// return_tensors="pt")` in the loop around the append (LoftQ test_gsm8k.py:199): the appended
// value is a host input built per pass of that loop: a call of a framework object whose call
// gives host data (data/frameworks.txt `host-result CLASS __call__`: a tokenizer's or processor's
// encoding, CPU tensors) or a host conversion (`torch.tensor(x)`, no `device=`), whose first
// argument reads a name bound in that loop (its target, or assigned in its body). The appended
// value is that call or a name every binding of which is one, made in the loop. Not a value built
// once before the loop and appended on every pass (the same prompt), nor one moved to the GPU as
// it is appended. O(bindings x argument size).
bool appended_per_pass(const SemanticModel& m, Node append, Node arg) {
  Node loop{};
  for (Node q = parent(append); !is_null(q) && is_null(loop); q = parent(q)) {
    if (is(q, "function_definition") || is(q, "lambda") || is(q, "class_definition")) return false;
    if (is(q, "for_statement") || is(q, "while_statement")) loop = q;
  }
  if (is_null(loop)) return false;
  Node body = field(loop, "body");
  auto in_body = [&](uint32_t at) { return at >= start(body) && at < end(body); };
  auto built = [&](Node v) {
    v = unparen(v);
    if (!is(v, "call") || m.is_cuda(v) || !in_body(start(v))) return false;
    static const std::set<std::string, std::less<>> conversions = {"torch.from_numpy", "torch.tensor",
                                                                   "torch.as_tensor", "torch.Tensor"};
    bool host = conversions.count(m.callee_name(v)) && is_null(m.argument(v, -1, "device"));
    if (!host) {
      AbstractType t = m.types().type_of(unparen(field(v, "function")));
      host = t.kind == AbstractType::Kind::Object && FrameworkTable::get().returns_host(t.framework, "__call__");
    }
    Node src = m.argument(v, 0, "");
    if (!host || is_null(src) || is(src, "keyword_argument") || is(src, "list_splat")) return false;
    // A name of the first argument bound per pass (`i` of `question[i * bs:(i + 1) * bs]`).
    bool found = false;
    for_each_identifier(src, true, [&](Node u) {
      auto bs = m.lookup(m.text(u), start(u));
      if (bs.empty()) return true;
      for (const Binding* b : bs) {
        bool per_pass = (b->kind == Binding::Kind::Assign && in_body(b->at)) ||
                        (b->kind == Binding::Kind::LoopTarget && b->at >= start(loop) && b->at < end(loop));
        if (!per_pass) return true;
      }
      found = true;
      return false;
    }, 256);
    return found;
  };
  arg = unparen(arg);
  if (!is(arg, "identifier")) return built(arg);
  auto bindings = m.lookup(m.text(arg), start(arg));
  if (bindings.empty() || bindings.size() > SemanticModel::kMaxCandidates) return false;
  for (const Binding* b : bindings)
    if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0 || !built(b->value)) return false;
  return true;
}

// `xs[-1]` of a list (`xs = [x]`) every append of which, in its scope, is a value moved to the
// host (`xs.append(x_next.to("cpu"))`, `.cpu()`) inside a loop that also holds the read: the
// state the previous pass copied to the host, so moving it to the GPU is a host-to-device copy per
// pass (set AW ddim functions/denoising.py: `xt = xs[-1].to('cuda')` per denoising step). The last
// element only (`xs[0]` is the starting value); not a list any append of which keeps a value on
// the device. O(bindings x appends x depth).
bool host_state_last(const SemanticModel& m, Node expr,
                     const std::map<std::pair<int, std::string>, std::vector<Node>>& appends) {
  Node value = unparen(field(expr, "value")), index = unparen(field(expr, "subscript"));
  if (!is(value, "identifier") || m.text(index) != "-1") return false;
  auto bindings = m.lookup(m.text(value), start(value));
  if (bindings.empty() || bindings.size() > SemanticModel::kMaxCandidates) return false;
  for (const Binding* b : bindings) {
    if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0 || !is(unparen(b->value), "list")) return false;
    auto found = appends.find({m.scope_at(b->at), std::string(m.text(value))});
    if (found == appends.end() || found->second.empty() || found->second.size() > SemanticModel::kMaxCandidates)
      return false;
    for (Node call : found->second) {
      Node fn = unparen(field(call, "function"));
      if (!is(fn, "attribute") || m.text(field(fn, "attribute")) != "append") return false;
      Node a = unparen(m.argument(call, 0, ""));
      if (!is(a, "call") || !is(unparen(field(a, "function")), "attribute")) return false;
      std::string_view method = method_of(a, m.src());
      std::string device;
      bool host = (method == "cpu" && named_count(field(a, "arguments")) == 0) ||
                  (method == "to" && string_literal_value(m.argument(a, 0, "device"), m.src(), device) &&
                   device == "cpu");
      if (!host) return false;
      // The loop around the append, in its function, also holds the read.
      bool shared = false;
      for (Node q = parent(call); !is_null(q) && !shared; q = parent(q)) {
        if (is(q, "function_definition") || is(q, "lambda") || is(q, "class_definition")) break;
        if ((is(q, "for_statement") || is(q, "while_statement")) && start(expr) >= start(q) && end(expr) <= end(q))
          shared = true;
      }
      if (!shared) return false;
    }
  }
  return true;
}
}  // namespace

bool SemanticModel::is_batch_value(Node expr) const { return is_batch_impl(expr); }

bool SemanticModel::host_state_read(Node expr) const {
  expr = unparen(expr);
  return is(expr, "subscript") && host_state_last(*this, expr, appends_);
}

bool SemanticModel::is_batch_impl(Node expr) const {
  expr = unparen(expr);
  if (is_null(expr)) return false;
  return memo_bool(batch_cache_, expr, [&] { return is_batch_uncached(expr); });
}

bool SemanticModel::is_batch_uncached(Node expr) const {
  bool result = false;
  auto k = kind(expr);
  // `for batch_users in utils.minibatch(users, batch_size=bs)` in a hot loop: a generator, here or
  // of another module (FunctionFacts::yields_param as type_detail::kYieldsSlices - index), that
  // yields slices of the parameter the call hands a host collection gives the step's batch per
  // iteration (set X LightGCN Procedure.py:104). Not a collection on CUDA (no host copy then).
  auto sliced_host_batch = [&](const Binding& b) {
    Node call = unparen(b.value), loop = parent(call);
    if (!is(call, "call") || !is(loop, "for_statement") || !same(unparen(field(loop, "right")), call)) return false;
    int li = loop_index(loop);
    if (li < 0 || loops_[li].kind != LoopKind::Hot) return false;
    int p = -1;
    bool method = false, star = false, kwonly = false;
    std::string name;
    auto targets = callees(call);
    if (targets.size() == 1) {
      p = type_detail::sliced_param(*this, targets[0]);
      if (p < 0) return false;
      const Param& prm = functions_[targets[0]].params[p];
      method = bound_params(functions_[targets[0]]) == 1;
      star = prm.is_variadic, kwonly = prm.keyword_only, name = prm.name;
    } else if (targets.empty()) {
      const FunctionFacts* ef = ext_callee_of(call, fact::kReturnType | fact::kParams);
      if (!ef || ef->yields_param > type_detail::kYieldsSlices) return false;
      p = type_detail::kYieldsSlices - ef->yields_param;
      if (static_cast<size_t>(p) >= ef->params.size()) return false;
      const ParamSummary& prm = ef->params[static_cast<size_t>(p)];
      method = ef->method;
      star = prm.star, kwonly = prm.keyword_only, name = prm.name;
    }
    if (p < 0) return false;
    int position = p - (method ? 1 : 0);
    if (position < 0 && !kwonly) return false;
    Node a = argument(call, kwonly ? -1 : position, star ? std::string() : name);
    if (is_null(a) || is(a, "keyword_argument")) return false;
    return !is_cuda_impl(a) && (!types_ || types_->cuda(a) != CudaAnswer::Cuda);
  };
  // `batch_text = torch.LongTensor(n, max_len).fill_(0)`, then `batch_text[i][:len(t)] = ...`
  // in a `for i, t in enumerate(text)` over a batch (a label converter's `encode(labels)`: set H
  // deep-text-recognition-benchmark's utils.py): a host tensor a torch factory allocates (through
  // in-place fills) and the function fills item by item in a loop over the step's batch holds the
  // step's data, a batch. The loop in the binding's function, after it; its iterable a batch
  // (through `enumerate`/`zip`). O(the function's assignments).
  auto filled_from_batch = [&](const Binding& b) {
    Node v = unparen(b.value);
    if (b.unpack_index >= 0 || !is(b.target, "identifier") || !is(v, "call")) return false;
    for (int guard = 0; guard < 4 && is(v, "call"); ++guard) {
      Node fn = unparen(field(v, "function"));
      auto m = is(fn, "attribute") ? text(field(fn, "attribute")) : std::string_view{};
      if (m != "fill_" && m != "zero_") break;
      v = unparen(field(fn, "object"));
    }
    if (!is(v, "call") || !starts_with(callee_name(v), "torch.") || !types_ ||
        types_->type_of(v).kind != AbstractType::Kind::Tensor || types_->type_of(v).device != TypeDevice::Cpu)
      return false;
    int f = function_at(start(b.target));
    if (f < 0) return false;
    std::string_view name = text(b.target);
    bool filled = false;
    for_each_identifier(field(functions_[f].node, "body"), true, [&](Node id) {
      if (start(id) <= start(b.target) || text(id) != name) return true;
      Node sub = parent(id), top = sub;
      if (!is(sub, "subscript") || !same(unparen(field(sub, "value")), id)) return true;
      while (is(parent(top), "subscript") && same(unparen(field(parent(top), "value")), top)) top = parent(top);
      Node st = parent(top);
      if (!is(st, "assignment") || !same(unparen(field(st, "left")), top)) return true;
      for (Node up = parent(st); !is_null(up) && !same(up, functions_[f].node); up = parent(up)) {
        if (!is(up, "for_statement")) continue;
        Node it = unparen(field(up, "right"));
        if (is(it, "call") && (callee_name(it) == "builtins.enumerate" || callee_name(it) == "builtins.zip"))
          it = unparen(argument(it, 0, ""));
        if (!is_null(it) && is_batch_impl(it)) {
          filled = true;
          return false;
        }
      }
      return true;
    });
    return filled;
  };
  // `for train_batch in self.train_iterator:` in a hot loop over an instance of a project class
  // (of this module or another; no module, no framework class) whose `__iter__` yields host data
  // by its type: a CPU tensor, or a container not on CUDA (HALOs' DataLoader subclasses yielding
  // `collate`d dicts of host tensors; for a placeholder `__iter__`, its subclasses' yields:
  // TypeInference::class_iter). The step's host batch, as a DataLoader's is. Also through
  // `tqdm(...)`/`iter(...)`, both arms of a conditional (`tqdm(it) if main else it`), and as the
  // item of `enumerate(...)`. At most 4 iterables, O(1) type queries each.
  auto project_iterator_batch = [&](const Binding& b) {
    if (!types_ || is_null(b.value)) return false;
    Node loop = parent(b.value);
    while (is(loop, "parenthesized_expression")) loop = parent(loop);
    if (!is(loop, "for_statement") || !contains(field(loop, "right"), b.value)) return false;
    int li = loop_index(loop);
    if (li < 0 || loops_[li].kind != LoopKind::Hot) return false;
    Node it = unparen(b.value);
    bool part = false;
    if (b.unpack_index >= 0) {
      // The target's place in the loop's pattern, outermost first (`for ii, (input, target,
      // mask) in tqdm(enumerate(loader))`: input at [1, 0]); at most 4 levels, no starred part.
      Node left = unparen(field(loop, "left"));
      std::vector<int> path;
      for (Node t = b.target; !same(t, left);) {
        Node up = parent(t);
        while (is(up, "parenthesized_expression")) up = parent(up);
        if (is_null(up) || path.size() >= 4 || !(is(up, "pattern_list") || is(up, "tuple_pattern") ||
                                                 is(up, "list_pattern") || is(up, "tuple") || is(up, "list")))
          return false;
        int i = 0, at = -1;
        for (Node c : named_children(up)) {
          if (is(c, "comment")) continue;
          if (is(c, "list_splat_pattern") || is(c, "list_splat")) return false;
          if (contains(c, t)) at = i;
          ++i;
        }
        if (at < 0) return false;
        path.insert(path.begin(), at);
        t = up;
      }
      // `tqdm(...)`/`iter(...)` around `enumerate(...)`: the pair's second item is the element;
      // a place in the element's own pattern (`for input, target in loader`) is a part of it,
      // a part of a host batch.
      for (int guard = 0; guard < 4 && is(it, "call"); ++guard) {
        Node fn = unparen(field(it, "function"));
        std::string_view last = is(fn, "attribute") ? text(field(fn, "attribute")) : text(fn);
        if (last != "tqdm" && callee_name(it) != "builtins.iter") break;
        Node a = argument(it, 0, "iterable");
        if (is_null(a) || is(a, "keyword_argument") || is(a, "list_splat")) return false;
        it = unparen(a);
      }
      if (is(it, "call") && callee_name(it) == "builtins.enumerate") {
        if (path.empty() || path[0] != 1 || named_count(left) != 2) return false;
        it = argument(it, 0, "iterable");
        if (is_null(it) || is(it, "keyword_argument") || is(it, "list_splat")) return false;
        path.erase(path.begin());
      }
      part = !path.empty();
    }
    std::vector<Node> pending{it}, leaves;
    while (!pending.empty()) {
      Node e = unparen(pending.back());
      pending.pop_back();
      if (leaves.size() + pending.size() >= 4) return false;
      if (is(e, "conditional_expression") && named_count(e) == 3) {
        pending.push_back(named_child(e, 0));
        pending.push_back(named_child(e, 2));
        continue;
      }
      if (is(e, "call")) {
        Node fn = unparen(field(e, "function"));
        std::string_view last = is(fn, "attribute") ? text(field(fn, "attribute")) : text(fn);
        if (last == "tqdm" || callee_name(e) == "builtins.iter") {
          Node a = argument(e, 0, "iterable");
          if (is_null(a) || is(a, "keyword_argument") || is(a, "list_splat")) return false;
          pending.push_back(a);
          continue;
        }
      }
      leaves.push_back(e);
    }
    for (Node e : leaves) {
      AbstractType t = types_->type_of(e);
      if (t.kind != AbstractType::Kind::Object || t.klass == -1 || t.framework >= 0) return false;
      AbstractType el = types_->element_of(e);
      bool host = (el.kind == AbstractType::Kind::Tensor && el.device == TypeDevice::Cpu) ||
                  (el.kind == AbstractType::Kind::HostContainer && el.device != TypeDevice::Cuda &&
                   el.device != TypeDevice::Any);
      // A part of the element (an unpacked place): the element's every tensor known on the host
      // (a tuple holding CUDA tensors and an empty list joins to an unresolved device).
      if (part && el.device != TypeDevice::Cpu) return false;
      if (!host) return false;
    }
    return !leaves.empty();
  };
  // `for batch in training_utils.batch_fn(val_data, bs)` in a hot loop: a generator function of
  // this module or another (a function whose body yields; another module's by its facts'
  // yield_kind and yields_built) whose yields are host data by their types (a CPU tensor, or a
  // container not on CUDA: the dicts a collate_fn stacks of CPU tensors) and none of which is a
  // parameter as it was handed (the same collection each time: no step's batch) yields the
  // step's host batch, as a loader
  // does. Also through a method the function binds on a local object to a lambda calling such a
  // generator (`val_data_mapped.batch = lambda batch_size: training_utils.batch_fn(
  // val_data_mapped, batch_size)`, then `for batch in val_data_mapped.batch(batch_size=bs)`: set BA
  // GaLore's evaluate_model): that one store in the function, before the loop. O(stores of the
  // attribute's name).
  auto generator_batch = [&](const Binding& b) {
    if (!types_ || is_null(b.value) || b.unpack_index >= 0) return false;
    Node call = unparen(b.value), loop = parent(b.value);
    while (is(loop, "parenthesized_expression")) loop = parent(loop);
    if (!is(call, "call") || !is(loop, "for_statement") || !same(unparen(field(loop, "right")), call)) return false;
    int li = loop_index(loop);
    if (li < 0 || loops_[li].kind != LoopKind::Hot) return false;
    Node fn = unparen(field(call, "function"));
    if (callees(call).empty() && !ext_callee_of(call, fact::kReturnType) && is(fn, "attribute") &&
        is(unparen(field(fn, "object")), "identifier") && text(unparen(field(fn, "object"))) != "self") {
      auto stores = attribute_stores_.find(std::string(text(field(fn, "attribute"))));
      if (stores == attribute_stores_.end() || stores->second.size() > kMaxCandidates) return false;
      Node lambda{};
      int f = function_at(start(call));
      for (const auto& [obj, value] : stores->second) {
        if (!is(obj, "identifier") || text(obj) != text(unparen(field(fn, "object"))) || function_at(start(obj)) != f)
          continue;
        if (!is_null(lambda) || is_null(value) || !is(unparen(value), "lambda") || start(obj) > start(loop)) return false;
        lambda = unparen(value);
      }
      if (is_null(lambda)) return false;
      call = unparen(field(lambda, "body"));
      if (!is(call, "call")) return false;
    }
    auto targets = callees(call);
    bool generator = false;
    if (targets.size() == 1) {
      generator = yields_built(targets[0]);
    } else if (targets.empty()) {
      const FunctionFacts* ef = ext_callee_of(call, fact::kReturnType);
      generator = ef && ef->yield_kind >= 0 && ef->yields_built;
    }
    if (!generator) return false;
    AbstractType el = types_->element_of(call);
    return (el.kind == AbstractType::Kind::Tensor && el.device == TypeDevice::Cpu) ||
           (el.kind == AbstractType::Kind::HostContainer && el.device != TypeDevice::Cuda &&
            el.device != TypeDevice::Any);
  };
  // `xb, yb = next(fetcher)` in a hot loop, `fetcher` an instance of a project class (of this
  // module or another; no module, no framework class) whose `__next__` returns host tensors by
  // its types (a CPU tensor, or a container of them known on the host: the class's own rows
  // sliced from arrays and wrapped by `torch.from_numpy`): the step's host batch, as a hand-written
  // iterator's element is in a `for` (project_iterator_batch). The innermost loop around the call
  // in its function is hot. O(1) type queries.
  auto project_next_batch = [&](Node call, Node it) {
    if (!types_ || is_null(it) || is(it, "keyword_argument") || is(it, "list_splat")) return false;
    AbstractType t = types_->type_of(it);
    if (t.kind != AbstractType::Kind::Object || t.klass == -1 || t.framework >= 0) return false;
    auto idx = call_index_.find(call.id);
    if (idx == call_index_.end() || calls_[idx->second].loops.empty()) return false;
    if (loops_[calls_[idx->second].loops.back()].kind != LoopKind::Hot) return false;
    AbstractType r = types_->type_of(call);
    return (r.kind == AbstractType::Kind::Tensor || r.kind == AbstractType::Kind::HostContainer) &&
           r.device == TypeDevice::Cpu;
  };
  if (k == "identifier") {
    for (const Binding* b : lookup(text(expr), start(expr))) {
      if (b->kind == Binding::Kind::LoopTarget) {
        // Also a loop over an iterator of host batches by its type (torchtext's `BucketIterator`
        // through a project helper returning several: data/frameworks.txt `host-batches`).
        result = is_loader_impl(b->value) || is_batch_impl(b->value) ||
                 (types_ && is(parent(b->value), "for_statement") && types_->is_host_loader_iteration(b->value)) ||
                 sliced_host_batch(*b) || project_iterator_batch(*b) || generator_batch(*b);
        // `for i, graph in enumerate(batch_graph):` over a batch's elements (set M powerful-gnns
        // graphcnn.py): the item of the pair is the batch's element, as `for graph in batch_graph`
        // gives it (not the index). O(1) beyond the iterable's own answer.
        if (!result && b->unpack_index == 1 && is(unparen(b->value), "call") &&
            callee_name(unparen(b->value)) == "builtins.enumerate") {
          Node loop = parent(b->value);
          if (is(loop, "for_statement") && same(unparen(field(loop, "left")), parent(b->target)) &&
              named_count(parent(b->target)) == 2) {
            Node a = argument(unparen(b->value), 0, "iterable");
            if (!is_null(a) && !is(a, "list_splat") && !is(a, "keyword_argument")) result = is_batch_impl(a);
          }
        }
        // `for inputs_slice, gts_slice in zip(inputs, gts):` over a batch's tensors (set AI
        // pytorch-semantic-segmentation's psp_net scripts, a step per slice): a name of a flat
        // target takes the zip's argument at its position, a batch's slice when that argument
        // is a batch (as `for s in inputs` does). O(1) beyond the argument's own answer.
        if (!result && b->unpack_index >= 0 && is(unparen(b->value), "call") &&
            callee_name(unparen(b->value)) == "builtins.zip") {
          Node loop = parent(b->value);
          if (is(loop, "for_statement") && same(unparen(field(loop, "left")), parent(b->target)) &&
              named_count(parent(b->target)) == named_count(field(unparen(b->value), "arguments"))) {
            Node a = argument(unparen(b->value), b->unpack_index, "");
            if (!is_null(a) && !is(a, "list_splat") && !is(a, "keyword_argument")) result = is_batch_impl(a);
          }
        }
      } else if (b->kind == Binding::Kind::Assign) {
        Node v = unparen(b->value);
        if (b->unpack_index >= 0 && (is(v, "tuple") || is(v, "expression_list")) &&
            b->unpack_index < static_cast<int>(named_count(v)))
          v = named_child(v, b->unpack_index);
        result = is_batch_impl(v) || sourced_host_batch(*b, expr) || filled_from_batch(*b);
        // `edge_mat_list = []` then `edge_mat_list.append(graph.edge_mat + start)` in a loop over
        // the batch's graphs (set M powerful-gnns graphcnn.py): a list the scope fills with the
        // batch's data holds that data, as a display of it does. The appends and extends of the
        // name in the binding's scope (at most kMaxCandidates); O(appends). Also a list of host
        // inputs built per pass of the loop that fills it (appended_per_pass: pre-tokenized batches).
        if (!result && b->unpack_index < 0 && is(v, "list") && named_count(v) == 0)
          if (auto found = appends_.find({scope_at(b->at), std::string(text(expr))});
              found != appends_.end() && found->second.size() <= kMaxCandidates)
            for (Node call : found->second) {
              Node a = argument(call, 0, "");
              if (!is_null(a) && !is(a, "keyword_argument") && !is(a, "list_splat") &&
                  (is_batch_impl(a) || (types_ && appended_per_pass(*this, call, a)))) {
                result = true;
                break;
              }
            }
      } else if (b->kind == Binding::Kind::Param) {
        const Function& fn = functions_[b->function];
        const Param& p = fn.params[b->param_index];
        int position = b->param_index - bound_params(fn);
        if (position >= 0 && !p.is_variadic)
          for (int ci : callers(b->function)) {
            Node a = argument(calls_[ci].call, p.keyword_only ? -1 : position, p.name);
            if (!is_null(a) && is_batch_impl(a)) result = true;
          }
        // A host batch another module's call hands it (`model(batch_graph)` in main.py, `forward`
        // here).
        if (!result && position >= 0 && !p.is_variadic)
          if (const ArgFacts* a = ext_param(b->function, b->param_index, fact::kBatch); a && a->batch) result = true;
        // `self` of a class's `to`/`cuda` that another module's hot loop calls on its host batch
        // (`samples.to(device)` of DETR's NestedTensor: the project's "*.to" calls, detr22).
        if (!result && position == -1 && (fn.name == "to" || fn.name == "cuda"))
          if (const ArgFacts* a = ext_param(b->function, 0, fact::kBatch); a && a->batch) result = true;
      }
      if (result) break;
    }
  } else if (k == "subscript") {
    Node value = field(expr, "value");
    result = is_batch_impl(value);
    // `x_all[n_id]` with `n_id` a batch's node ids (`for batch_size, n_id, adjs in sampler`): a
    // host tensor gathered at the step's indices is the step's batch (not one already on CUDA).
    // Also at an element of such a batch (`train_feat[batch[0]]` over a loader of graph indices:
    // set V GCNII ppi.py), a name subscripted by constants.
    if (!result && named_count(expr) == 2) {
      Node index = unparen(field(expr, "subscript"));
      Node base = index;
      for (int guard = 0; guard < 4 && is(base, "subscript") && named_count(base) == 2 &&
                          is(unparen(field(base, "subscript")), "integer");
           ++guard)
        base = unparen(field(base, "value"));
      result = is(base, "identifier") && is_batch_impl(index) && !is_cuda_impl(value);
    }
    if (!result) result = range_indexed_batch(*this, expr, cold_comprehensions_dropped_ && types_);
    if (!result) result = host_state_last(*this, expr, appends_);
  } else if (k == "attribute") {
    result = is_batch_impl(field(expr, "object")) || self_stored_batch(expr);
  } else if (k == "call") {
    Node fn = unparen(field(expr, "function"));
    const std::string& q = qualified_name(fn);
    // The batch rebuilt as an array or tensor on the host (`np.concatenate(images)`,
    // `torch.from_numpy(batch_np)`, `torch.stack(parts)`): still the batch's data.
    static const std::set<std::string, std::less<>> rebuild = {
        "numpy.array", "numpy.asarray", "numpy.ascontiguousarray", "numpy.stack", "numpy.concatenate",
        "numpy.vstack", "numpy.hstack", "torch.from_numpy", "torch.as_tensor", "torch.tensor", "torch.stack",
        "torch.cat", "torch.concat", "torch.concatenate", "torch.Tensor",
        // A sparse tensor of the batch's indices (`torch.sparse.FloatTensor(idx, values, size)`).
        "torch.sparse.FloatTensor", "torch.sparse.LongTensor", "torch.sparse.DoubleTensor", "torch.sparse_coo_tensor"};
    // The batch reshaped or viewed by a torch function (`torch.squeeze(targets, 1)`, set AQ
    // MedMNIST-experiments): its elements, as the method form `targets.squeeze(1)` gives them.
    static const std::set<std::string, std::less<>> reshape = {
        "torch.squeeze",  "torch.unsqueeze", "torch.flatten",  "torch.reshape",  "torch.transpose",
        "torch.permute",  "torch.t",         "torch.movedim",  "torch.moveaxis", "torch.swapaxes",
        "torch.swapdims", "torch.narrow",    "torch.clone",    "torch.ravel",    "torch.atleast_2d"};
    // `tokenizer(batch["caption"], return_tensors="pt")`, `processor(images=batch["image"],
    // return_tensors="pt")`: a framework object's encoding into CPU tensors (data/frameworks.txt
    // `host-encoding`) of the step's data (is_step_data: a batch, or part of one on any device),
    // handed as any argument, is the step's batch built again on the host, as a function of
    // another module building a CPU tensor from it is (below). Set BE IDM-VTON train_xl.py: the
    // captions of a batch from a loader Accelerate prepared. Without `return_tensors` the
    // encoding is lists, no tensor to move. O(arguments x is_step_data).
    if (types_ && types_->host_encoding(expr) != 0) {
      for (Node a : named_children(field(expr, "arguments"))) {
        if (is(a, "keyword_argument")) a = field(a, "value");
        if (is(a, "list_splat") || is(a, "dictionary_splat") || is(a, "comment") || is_null(a)) continue;
        if (is_step_data(a)) {
          result = true;
          break;
        }
      }
    } else if (Node it = advanced_iterator(expr); !is_null(it)) {
      result = is_loader_impl(it) || project_next_batch(expr, it);
    }
    // `getattr(batch, field)`: an attribute of the batch, as `batch.x` is (diffuser's
    // `batch_to_device` moving each field of a namedtuple batch).
    else if (q == "builtins.getattr") result = is_batch_impl(argument(expr, 0, ""));
    // `dict(x_src=x, y_src=y)`, `Munch(x_src=x, ...)`, `EasyDict(...)` (rows `mapping-classes` of
    // data/frameworks.txt): a mapping built of a batch's parts (by keyword, or from one mapping)
    // is a dict batch, as a dictionary display of them is (stargan-v2's InputFetcher.__next__, then `{k: v.to(device) for k, v in
    // inputs.items()}`). O(arguments).
    else if (q == "builtins.dict" || FrameworkTable::get().mapping_class(q)) {
      for (Node a : named_children(field(expr, "arguments"))) {
        if (is(a, "comment") || is(a, "list_splat") || is(a, "dictionary_splat")) continue;
        if (is_batch_impl(is(a, "keyword_argument") ? field(a, "value") : a)) {
          result = true;
          break;
        }
      }
    }
    else if (rebuild.count(q) || FrameworkTable::get().identity(q)) result = is_batch_impl(argument(expr, 0, ""));
    else if (reshape.count(q)) result = is_batch_impl(argument(expr, 0, "input"));
    else if (is(fn, "attribute")) result = is_batch_impl(field(fn, "object"));
    else result = batch_through_helper(expr);
  } else if (k == "binary_operator") {
    // `graph.edge_mat + start_idx[i]`, `(x - mean) / std`: arithmetic on the batch's data is
    // still the batch's data (its device is the operands'; the rules ask the types for that).
    std::string_view op = text(field(expr, "operator"));
    if (op == "+" || op == "-" || op == "*" || op == "/")
      result = is_batch_impl(field(expr, "left")) || is_batch_impl(field(expr, "right"));
  } else if (k == "tuple" || k == "list" || k == "expression_list") {
    // `torch.cat((inputs_x, inputs_u_w, inputs_u_s))`: a display holding a batch's data.
    for (Node c : named_children(expr)) {
      if (is(c, "list_splat")) c = named_child(c, 0);
      if (!is(c, "comment") && is_batch_impl(c)) {
        result = true;
        break;
      }
    }
  } else if (k == "dictionary") {
    // `{"input_ids": input_ids, "labels": labels}` of a batch's parts (tofu's evaluate_util.py,
    // then `for k, v in batch.items(): batch[k] = v.to(model.device)`): a dict batch.
    for (Node c : named_children(expr))
      if (is(c, "pair") && is_batch_impl(field(c, "value"))) {
        result = true;
        break;
      }
  } else if (k == "list_comprehension" || k == "generator_expression" || k == "dictionary_comprehension" ||
             k == "set_comprehension") {
    // `[cv2.resize(img, size) for img in images]`: the batch's elements, transformed;
    // `{k: v for k, v in batch.items()}`: a dict batch copied entry by entry.
    for (Node c : named_children(expr))
      if (is(c, "for_in_clause")) {
        result = is_batch_impl(field(c, "right"));
        break;
      }
    if (!result && (k == "list_comprehension" || k == "generator_expression")) result = sampled_batch(expr);
  }
  return result;
}

// `batch_graph = [train_graphs[idx] for idx in selected_idx]` with `selected_idx` bound in the
// same iteration of the loop around the comprehension (`np.random.permutation(n)[:bs]`,
// `idx[i:i + bs]`, or the loop's own target): the step's elements of a collection the loop does
// not rebind, picked by indices drawn per iteration, are the step's batch without a DataLoader.
// Also in a function with no loop around the comprehension (a `get_batch()` helper) when every
// binding of the indices in it is a random draw (`torch.randint`, `torch.randperm`,
// `np.random.*`, `random.sample`, subscripted or not): each call picks the elements of a step.
// The element may be a slice starting at the index (`data[i:i + block_size]`). Not when the
// collection is on CUDA by its type (no host copy then), and not for any other shape of
// comprehension. O(parents + bindings of the two names).
bool SemanticModel::sampled_batch(Node comp) const {
  Node clause{};
  for (Node c : named_children(comp)) {
    if (!is(c, "for_in_clause")) continue;
    if (!is_null(clause)) return false;  // nested for clauses
    clause = c;
  }
  if (is_null(clause)) return false;
  Node var = unparen(field(clause, "left"));
  Node indices = unparen(field(clause, "right"));
  Node body = unparen(field(comp, "body"));
  if (!is(var, "identifier") || !is(indices, "identifier") || !is(body, "subscript")) return false;
  Node index = unparen(field(body, "subscript"));
  Node coll = unparen(field(body, "value"));
  if (named_count(body) != 2) return false;
  if (is(index, "slice")) {
    // `data[i:i + bs]`, `data[i + 1:i + bs + 1]`: the slice's start is the index, or the index
    // plus a constant.
    Node lo = named_count(index) > 0 ? unparen(named_child(index, 0)) : Node{};
    if (is(lo, "binary_operator") && text(field(lo, "operator")) == "+" &&
        is(unparen(field(lo, "right")), "integer"))
      lo = unparen(field(lo, "left"));
    if (is_null(lo) || !is(lo, "identifier") || text(lo) != text(var) || text(index).substr(0, 1) == ":")
      return false;
  } else if (!is(index, "identifier") || text(index) != text(var)) {
    return false;
  }
  if (!is(coll, "identifier") && !(is(coll, "attribute") && text(unparen(field(coll, "object"))) == "self"))
    return false;
  Node loop{};
  Node function{};
  for (Node p = parent(comp); !is_null(p); p = parent(p)) {
    if (is(p, "function_definition")) {
      function = p;
      break;
    }
    if (is(p, "lambda") || is(p, "class_definition")) return false;
    if ((is(p, "for_statement") || is(p, "while_statement")) && contains(field(p, "body"), comp)) {
      loop = p;
      break;
    }
  }
  if (is_null(loop) && is_null(function)) return false;
  auto bindings = lookup(text(indices), start(indices));
  if (bindings.empty()) return false;
  if (!is_null(loop)) {
    for (const Binding* b : bindings) {
      bool per_iteration = (b->kind == Binding::Kind::Assign && contains(field(loop, "body"), b->target)) ||
                           (b->kind == Binding::Kind::LoopTarget && is(loop, "for_statement") &&
                            contains(field(loop, "left"), b->target));
      if (!per_iteration) return false;
    }
    if (assigned_within(text(coll), loop)) return false;
  } else {
    static const std::set<std::string, std::less<>> draws = {"torch.randint", "torch.randperm", "random.sample",
                                                             "random.choices"};
    for (const Binding* b : bindings) {
      if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0 || !contains(field(function, "body"), b->target))
        return false;
      Node v = unparen(b->value);
      for (int guard = 0; guard < 4 && is(v, "subscript"); ++guard) v = unparen(field(v, "value"));
      if (!is(v, "call")) return false;
      const std::string& q = callee_name(v);
      if (!draws.count(q) && !starts_with(q, "numpy.random.")) return false;
    }
    // The collection is on the host by its type (a CPU tensor, a list or array): a parameter
    // of unknown type may be a CUDA table.
    if (!types_) return false;
    AbstractType t = types_->type_of(coll);
    if (!(t.kind == AbstractType::Kind::HostContainer ||
          (t.kind == AbstractType::Kind::Tensor && t.device == TypeDevice::Cpu)))
      return false;
  }
  return !types_ || types_->cuda(coll) != CudaAnswer::Cuda;
}

// `interleave(torch.cat(batches), n)` with `def interleave(x, size): return x.reshape(...)...`: a
// function here whose every return is a chain of methods, subscripts and attributes on a
// parameter returns the batch's data when that parameter is handed a batch; a function of
// another module, when its return depends on such a parameter by its facts (types.h
// ReturnDependence: the argument itself or a tensor on its device). Not a module's forward or a
// constructor (a model's output is not the host batch), and nothing where the return is another
// kind of expression.
bool SemanticModel::batch_through_helper(Node call) const {
  if (!types_) return false;
  auto targets = callees(call);
  if (targets.size() == 1) {
    const Function& f = functions_[targets[0]];
    if (f.name == "forward" || f.name == "__call__" || f.name == "__init__" || f.returns.empty() ||
        f.returns.size() > 16)
      return false;
    // Each return is a parameter, through tensor methods, subscripts and attributes of it and
    // locals assigned (every binding) from such chains, at most 4 deep: the batch's data,
    // reshaped. The helper returns a batch when one of those parameters is handed one.
    // Also through host conversions of such a value (`torch.LongTensor(xs)`, `np.asarray(x)`,
    // `Image.fromarray(x)`), an element of a loop over one (`for label in labels`), and a list
    // `xs = []` every `xs.append(v)` of which in the function appends such a value (the batch's
    // elements converted one by one: deeplab's `resize_labels`).
    static const std::set<std::string, std::less<>> conversions = {
        "numpy.array", "numpy.asarray", "numpy.ascontiguousarray", "numpy.stack", "numpy.concatenate",
        "torch.from_numpy", "torch.as_tensor", "torch.tensor", "torch.stack", "torch.cat", "torch.LongTensor",
        "torch.FloatTensor", "torch.IntTensor", "torch.ByteTensor", "torch.BoolTensor", "torch.DoubleTensor",
        "torch.Tensor", "PIL.Image.fromarray"};
    std::vector<int> params;
    auto root = [&](auto&& self, Node e, int depth) -> bool {
      for (int guard = 0; guard < 16; ++guard) {
        e = unparen(e);
        if (is(e, "call") && conversions.count(callee_name(e)) && !is_null(argument(e, 0, ""))) e = argument(e, 0, "");
        else if (is(e, "call") && is(unparen(field(e, "function")), "attribute")) e = field(unparen(field(e, "function")), "object");
        else if (is(e, "subscript")) e = field(e, "value");
        else if (is(e, "attribute")) e = field(e, "object");
        else break;
      }
      if (!is(e, "identifier") || depth > 6) return false;
      auto bindings = lookup(text(e), start(e));
      if (bindings.empty()) return false;
      for (const Binding* b : bindings) {
        if (b->kind == Binding::Kind::Param && b->function == targets[0]) {
          if (b->param_index < bound_params(f) || f.params[b->param_index].is_variadic) return false;
          if (std::find(params.begin(), params.end(), b->param_index) == params.end()) params.push_back(b->param_index);
        } else if (b->is_plain_assign() && scope_at(b->at) == f.scope) {
          Node v = unparen(b->value);
          if (is(v, "list") && named_count(v) == 0) {
            auto found = appends_.find({f.scope, std::string(text(e))});
            if (found == appends_.end() || found->second.empty() || found->second.size() > 4) return false;
            for (Node call : found->second) {
              Node fn = unparen(field(call, "function"));
              Node arg = argument(call, 0, "");
              if (text(field(fn, "attribute")) != "append" || is_null(arg) || !self(self, arg, depth + 1)) return false;
            }
          } else if (!self(self, v, depth + 1)) {
            return false;
          }
        } else if (b->kind == Binding::Kind::LoopTarget && is(b->target, "identifier") && scope_at(b->at) == f.scope &&
                   !is_null(b->value)) {
          if (!self(self, b->value, depth + 1)) return false;
        } else {
          return false;
        }
      }
      return true;
    };
    for (Node r : f.returns)
      if (!root(root, r, 0)) return false;
    for (int pi : params) {
      Node a = types_->site_argument(targets[0], pi, call);
      if (!is_null(a) && is_batch_impl(a)) return true;
    }
    return false;
  }
  if (!targets.empty()) return false;
  const FunctionFacts* ext = ext_callee_of(call, fact::kReturnDep);
  if (ext && ext->dep_known && !ext->is_class)
    for (const auto& [i, device] : ext->dep_uses) {
      (void)device;
      if (i < 0 || static_cast<size_t>(i) >= ext->params.size() || (ext->method && i == 0)) continue;
      const ParamSummary& p = ext->params[static_cast<size_t>(i)];
      if (p.star || p.double_star) continue;
      Node a = argument(call, p.keyword_only ? -1 : i - (ext->method ? 1 : 0), p.name);
      if (!is_null(a) && is_batch_impl(a)) return true;
    }
  // A function of another module whose every return is a CPU tensor by its types, handed the
  // step's data (`list_str_to_idx(text, vocab)` with `text` the batch's strings: a tensor of
  // the batch's tokens built on the host on every step).
  ext = ext_callee_of(call, fact::kHostReturn);
  if (!ext || ext->is_class || ext->ret_kind != static_cast<int>(AbstractType::Kind::Tensor) ||
      ext->ret_device != static_cast<int>(TypeDevice::Cpu))
    return false;
  Node args = field(call, "arguments");
  if (is_null(args)) return false;
  for (Node a : named_children(args)) {
    if (is(a, "keyword_argument")) a = field(a, "value");
    else if (is(a, "list_splat") || is(a, "dictionary_splat")) continue;
    if (!is_null(a) && !is(a, "comment") && is_step_data(a)) return true;
  }
  return false;
}

bool SemanticModel::is_step_data(Node expr) const { return step_data_at(expr, 0); }

// O(bindings of the names on the way, at most 4 names deep).
bool SemanticModel::step_data_at(Node expr, int depth) const {
  if (is_batch_impl(expr)) return true;
  expr = unparen(expr);
  for (int guard = 0; guard < 8 && (is(expr, "subscript") || is(expr, "attribute")); ++guard)
    expr = is(expr, "subscript") ? unparen(field(expr, "value")) : unparen(field(expr, "object"));
  if (!is(expr, "identifier") || depth > 4) return false;
  for (const Binding* b : lookup(text(expr), start(expr))) {
    // The target of a loop over a loader, prepared by a framework too (device batches).
    if (b->kind == Binding::Kind::LoopTarget && types_ && !is_null(b->value) && types_->is_loader_iteration(b->value))
      return true;
    // A name bound to (part of) the step's data: `x, y = batch`, `text_inputs = batch["text"]`.
    if (b->kind == Binding::Kind::Assign && !is_null(b->value) && !same(unparen(b->value), expr) &&
        step_data_at(b->value, depth + 1))
      return true;
    if (b->kind != Binding::Kind::Param || !facts_) continue;
    const Function& fn = functions_[b->function];
    if (fn.params[b->param_index].is_variadic || b->param_index < bound_params(fn)) continue;
    if (const ArgFacts* a = ext_param(b->function, b->param_index, fact::kBatch); a && a->step) return true;
  }
  return false;
}

// `x, y = source.next_batch()` in a loop, with `source` an instance of a project class that is
// not a module (a hand-written loader, a balanced sampler over several loaders) and `x` a CPU
// tensor by its type: the method produces the step's host data, a batch, when the move reads it
// in the loop that fetched it (fetched before the loop, it is one value moved on every step:
// TX003's).
bool SemanticModel::sourced_host_batch(const Binding& b, Node use) const {
  Node call = unparen(b.value);
  if (!is(call, "call") || !types_) return false;
  Node fn = unparen(field(call, "function"));
  if (!is(fn, "attribute")) return false;
  AbstractType src = types_->type_of(field(fn, "object"));
  if (src.kind != AbstractType::Kind::Object || src.klass == -1 || src.framework >= 0) return false;
  AbstractType t = types_->binding_type(b);
  // Also host data the step converts itself (a list, an array: SR-GNN's `alias_inputs, A, items,
  // mask, targets = data.get_slice(i)`, then `torch.Tensor(alias_inputs).long()`).
  bool host = t.kind == AbstractType::Kind::HostContainer;
  if ((t.kind != AbstractType::Kind::Tensor || t.device != TypeDevice::Cpu) && !host) return false;
  for (Node p = ts_node_parent(call); !is_null(p); p = ts_node_parent(p)) {
    // Fetched in a function that runs once per step (called from a hot loop, no loop of its own
    // around the fetch: SR-GNN's `forward(model, i, data)`), read in that function.
    if (is(p, "function_definition")) {
      if (!hot_functions_ready_) return false;
      int f = function_at(start(call));
      return f >= 0 && function_is_hot(f) && function_at(start(use)) == f && function_of(p) == f;
    }
    if (is(p, "lambda") || is(p, "class_definition")) return false;
    if ((is(p, "for_statement") || is(p, "while_statement")) && contains(field(p, "body"), call))
      return contains(field(p, "body"), use);
  }
  return false;
}

// `self.batch` read in a method of the class, with `self.batch = batch` in `_forward_pass(self,
// batch)`: every store of the attribute in the class is a parameter of the storing method that
// its call sites hand a batch (or None, a placeholder), in a method called in a loop (once per step: set BA ChangeFormer's
// CDTrainer/CDEvaluator, whose `_update_metric` moves `self.batch['L']` per step). The read is the
// step's batch, as the parameter is. Not a store made once (an initializer's `self.probe = probe`,
// the same value on every step: TX003's), nor any other stored value. O(stores of the attribute).
bool SemanticModel::self_stored_batch(Node attr) const {
  int klass = class_of_self(attr);
  if (klass < 0) return false;
  auto stores = self_stores(klass, text(field(attr, "attribute")));
  if (stores.empty() || stores.size() > kMaxCandidates) return false;
  bool stored = false;
  for (int ai : stores) {
    Node v = unparen(self_assignments_[ai].second);
    if (is(v, "none")) continue;  // a placeholder (`self.batch = None` in __init__)
    if (!is(v, "identifier")) return false;
    int g = function_at(start(v));
    if (g < 0 || !function_called_in_loop(g)) return false;
    bool param = false;
    for (const Binding* b : lookup(text(v), start(v))) {
      if (b->kind != Binding::Kind::Param || b->function != g) return false;
      param = true;
    }
    if (!param || !is_batch_impl(v)) return false;
    stored = true;
  }
  return stored;
}

bool SemanticModel::yields_built(int f) const {
  if (f < 0 || text(functions_[f].node).find("yield") == std::string_view::npos) return false;
  int yields = 0;
  std::vector<Node> stack{field(functions_[f].node, "body")};
  while (!stack.empty()) {
    Node n = stack.back();
    stack.pop_back();
    if (is_null(n) || is(n, "function_definition") || is(n, "lambda") || is(n, "class_definition")) continue;
    if (is(n, "yield")) {
      if (text(n).substr(0, 10) == "yield from" || named_count(n) != 1) return false;
      Node v = unparen(named_child(n, 0));
      if (is(v, "identifier")) {
        auto bindings = lookup(text(v), start(v));
        if (bindings.empty()) return false;
        for (const Binding* b : bindings)
          if (b->kind == Binding::Kind::Param) return false;
      }
      ++yields;
      continue;
    }
    for (Node c : named_children(n)) stack.push_back(c);
  }
  return yields > 0;
}

bool SemanticModel::assigned_within(std::string_view name, Node region) const {
  if (starts_with(name, "self.")) {
    for (const auto& [key, v] : self_assignments_)
      if (last_part(key) == name.substr(5) && contains(region, v)) return true;
    return false;
  }
  for (const auto& sc : scopes_) {
    auto it = sc.bindings.find(name);
    if (it == sc.bindings.end()) continue;
    for (const auto& b : it->second)
      if (!is_null(b.target) && contains(region, b.target)) return true;
  }
  return false;
}

namespace model_detail {

// `output = [None for _ in range(len(prediction))]` then `output[i] = detections` (YOLOX's
// postprocess, one slot per image filled with its detections): the subscript store `store` writes
// into a list its scope binds only as placeholders of None (a comprehension of None, `[None] * n`,
// a display of Nones), so every element that is not None is a stored value. Declared where it is
// read (model_devices.cpp, the CUDA taint of such a list). O(bindings of the name).
bool none_placeholder_list(const SemanticModel& m, Node store) {
  Node container = unparen(field(unparen(field(store, "left")), "value"));
  if (!is(container, "identifier")) return false;
  auto all_none = [&](Node list) {
    if (!is(list, "list") || named_count(list) == 0) return false;
    for (Node c : named_children(list))
      if (!is(c, "comment") && !is(unparen(c), "none")) return false;
    return true;
  };
  auto bindings = m.lookup(m.text(container), start(container));
  if (bindings.empty() || bindings.size() > SemanticModel::kMaxCandidates) return false;
  for (const Binding* b : bindings) {
    if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0 || m.scope_at(b->at) != m.scope_at(start(store)))
      return false;
    Node v = unparen(b->value);
    if (is(v, "list_comprehension")) {
      if (!is(unparen(field(v, "body")), "none")) return false;
    } else if (is(v, "binary_operator")) {
      if (m.text(field(v, "operator")) != "*" ||
          !(all_none(unparen(field(v, "left"))) || all_none(unparen(field(v, "right")))))
        return false;
    } else if (!all_none(v)) {
      return false;
    }
  }
  return true;
}

}  // namespace model_detail

}  // namespace stoker::python
