// TX001: a batch copied to the GPU without non_blocking=True.
#include "python/rules/common.h"
#include "python/call_positions.h"
#include "python/frameworks.h"
#include "python/types.h"

#include <algorithm>
#include <set>
#include <vector>

namespace stoker::python::rules {

namespace {

// `images = torch.from_numpy(image_data)`, then `images = images.cuda()` and `self.net(images)`:
// a host tensor built in the function from an array the function computes (per call: an image
// decoded and preprocessed for this step), moved to the GPU and handed to a module's forward
// later in the same function, is the step's input (a batch without a DataLoader). Every binding
// of the moved name in the function is such a conversion or the move itself; the array is a
// name the function binds (not a parameter or a module constant: a table moved again and again
// is TX003's). The move's result is an assignment target, and a module called later in the
// function takes that name as a positional argument. O(function size) per move.
// A module's forward: the callee is a module, or an attribute of `self` that is neither a
// method here nor a library function and whose output is CUDA (`self.net = model_eval`, the
// model handed in by another module's training script).
bool feeds_module(const SemanticModel& m, Node call) {
  Node fn = unparen(field(call, "function"));
  // `self.net.forward(images)` runs the module as calling it does.
  if (is(fn, "attribute") && m.text(field(fn, "attribute")) == "forward") fn = unparen(field(fn, "object"));
  if (m.is_module(fn)) return true;
  // A method of a module class of this file called on a module (`self.fan.get_landmark(imgs)`):
  // taken as feeding the module whether or not that method calls its forward (the input reaches
  // the module's code, on its device).
  if (is(fn, "attribute") && m.is_module(unparen(field(fn, "object"))) && !m.callees(call).empty()) return true;
  // A library model's `generate` (`model.generate(input_ids=ids.to(device), ...)`, a Hugging Face
  // causal LM): generation runs the model's forward on its inputs, once per new token (the loop
  // classification's step; set BG BELLE prompt_eval.py).
  if (is(fn, "attribute") && m.text(field(fn, "attribute")) == "generate" && m.callees(call).empty()) {
    Node obj = unparen(field(fn, "object"));
    AbstractType t = m.types().type_of(obj);
    if (m.is_module(obj) || (t.kind == AbstractType::Kind::Module && t.klass == -1)) return true;
  }
  return is(fn, "attribute") && m.text(unparen(field(fn, "object"))) == "self" && m.callees(call).empty() &&
         m.callee_name(call).empty() && m.is_cuda(call);
}

// `image = self.transform(image)`: the function's input preprocessed per call by a callable that
// is not a module (a transform object, a project function) and gives no CUDA value, applied to a
// parameter of the function. Every binding of the name reaching `use` must be such a call.
bool preprocessed_here(const SemanticModel& m, Node use, const Function& fn) {
  auto bindings = m.lookup(m.text(use), start(use));
  if (bindings.empty()) return false;
  for (const Binding* b : bindings) {
    if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0 || m.scope_at(b->at) != fn.scope) return false;
    Node v = unparen(b->value);
    if (!is(v, "call")) return false;
    Node f = unparen(field(v, "function"));
    bool self_attr = is(f, "attribute") && m.text(unparen(field(f, "object"))) == "self";
    if ((!self_attr && !is(f, "identifier")) || m.is_module(f) || m.is_cuda(v)) return false;
    Node a = unparen(m.argument(v, 0, ""));
    if (!is(a, "identifier") || is(m.argument(v, 0, ""), "keyword_argument")) return false;
    auto src = m.lookup(m.text(a), start(a));
    if (src.size() != 1 || src[0]->kind != Binding::Kind::Param || src[0]->function != m.function_at(start(use)))
      return false;
  }
  return true;
}

// Conversions of host data to a tensor on the host (no `device=`).
// The legacy typed constructors (`torch.LongTensor(ids)`) convert as `torch.Tensor` does.
const std::set<std::string, std::less<>> kConversions = {
    "torch.from_numpy", "torch.tensor",       "torch.as_tensor",  "torch.Tensor",     "torch.FloatTensor",
    "torch.LongTensor", "torch.DoubleTensor", "torch.HalfTensor", "torch.IntTensor",  "torch.BoolTensor",
    "torch.ByteTensor"};

// `torch.from_numpy(x).float()`, `.type(torch.FloatTensor)`, `.unsqueeze(0)`: the value under at
// most four host conversions and reshapes.
Node peel_host_reshapes(const SemanticModel& m, Node v) {
  for (int guard = 0; guard < 4 && is(v, "call") && is(unparen(field(v, "function")), "attribute") &&
                      m.callee_name(v).empty();
       ++guard) {
    std::string_view meth = m.text(field(unparen(field(v, "function")), "attribute"));
    if (meth != "float" && meth != "long" && meth != "type" && meth != "unsqueeze" && meth != "permute") break;
    v = unparen(field(unparen(field(v, "function")), "object"));
  }
  return v;
}

// `x = transform(image).unsqueeze(0)` then `aligner.align(x)` in a loop over files, whose
// `align(self, imgs)` moves `imgs` (stargan-v2's FaceAligner, core/wing.py:301): the parameter
// is handed, at every call site of this file (at least one), an input the caller's innermost
// loop builds per iteration from a value bound in that loop, by a conversion (`torch.from_numpy`)
// or a callable that is not a module and gives no CUDA value (a transform), perhaps followed by
// host reshapes, also spread over rebindings made in that loop (`imgL = infer_transform(imgL_o)`,
// then `imgL = F.pad(imgL, pads).unsqueeze(0)`: PSMNet's submission.py, at most three links).
// O(call sites x bindings^3).
// One binding of the argument: `ab` made in the loop (`in_loop`), its value a conversion or
// transform of a name bound in the loop, or a host reshape of another such binding of the name.
template <typename InLoop>
bool built_per_pass(const SemanticModel& m, const Binding& ab, const InLoop& in_loop, int depth) {
  if (ab.kind != Binding::Kind::Assign || ab.unpack_index >= 0 || !in_loop(ab.at)) return false;
  Node v = peel_host_reshapes(m, unparen(ab.value));
  // `F.pad(x, pads)`: a host-side pad of the input (no device moves) is a reshape too.
  if (is(v, "call") && m.callee_name(v) == "torch.nn.functional.pad" && !is(m.argument(v, 0, ""), "keyword_argument"))
    v = peel_host_reshapes(m, unparen(m.argument(v, 0, "")));
  if (is(v, "identifier")) {
    // A reshape of an earlier value of the loop: every binding reaching it built per pass too.
    if (depth >= 3) return false;
    auto earlier = m.lookup(m.text(v), start(v));
    if (earlier.empty()) return false;
    for (const Binding* eb : earlier)
      if (eb == &ab || !built_per_pass(m, *eb, in_loop, depth + 1)) return false;
    return true;
  }
  if (!is(v, "call") || m.is_cuda(v)) return false;
  Node f = unparen(field(v, "function"));
  bool conversion = kConversions.count(m.callee_name(v)) && is_null(m.argument(v, -1, "device"));
  bool transform = is(f, "identifier") && m.callee_name(v).empty() && !m.is_module(f) && m.callees(v).empty();
  if (!conversion && !transform) return false;
  Node src = unparen(m.argument(v, 0, ""));
  if (!is(src, "identifier")) return false;
  auto src_bindings = m.lookup(m.text(src), start(src));
  if (src_bindings.empty()) return false;
  for (const Binding* sb : src_bindings)
    if ((sb->kind != Binding::Kind::Assign && sb->kind != Binding::Kind::LoopTarget) || !in_loop(sb->at)) return false;
  return true;
}

bool handed_per_iteration(const SemanticModel& m, const Binding& b) {
  const Function& fn = m.functions()[b.function];
  const Param& prm = fn.params[b.param_index];
  int position = b.param_index - bound_params(fn);
  const auto& sites = m.callers(b.function);
  if (position < 0 || prm.is_variadic || sites.empty()) return false;
  for (int ci : sites) {
    const auto& cs = m.calls()[ci];
    if (cs.loops.empty()) return false;
    Node body = m.loops()[cs.loops.back()].body;
    auto in_loop = [&](uint32_t at) { return !is_null(body) && at >= start(body) && at < end(body); };
    Node a = unparen(m.argument(cs.call, prm.keyword_only ? -1 : position, prm.name));
    if (!is(a, "identifier")) return false;
    auto bindings = m.lookup(m.text(a), start(a));
    if (bindings.empty()) return false;
    for (const Binding* ab : bindings)
      if (!built_per_pass(m, *ab, in_loop, 0)) return false;
  }
  return true;
}

// The innermost `for`/`while` around `call` in its function, or null.
Node innermost_loop(Node call) {
  for (Node q = parent(call); !is_null(q); q = parent(q)) {
    if (is(q, "function_definition") || is(q, "lambda") || is(q, "class_definition")) return Node{};
    if (is(q, "for_statement") || is(q, "while_statement")) return q;
  }
  return Node{};
}

// `x = transform(img).unsqueeze(0)` (host reshapes peeled into `v`) in a function's loop over
// images, `img = testset.pull_image(i)` bound in the innermost loop around the move `call`, then
// `x = x.cuda()` and `net(x)`: the output of a callable that is neither a module nor a function
// of the project and gives no CUDA value (a transform object handed in as a parameter, a
// transform name), applied to a name every binding of which is made in that loop's body (or is
// its target): the input built per pass. A value bound before the loop (a table moved on every
// pass) is TX003's. O(bindings).
bool transformed_in_loop(const SemanticModel& m, Node call, Node v) {
  if (!is(v, "call") || m.is_cuda(v)) return false;
  Node f = unparen(field(v, "function"));
  bool self_attr = is(f, "attribute") && m.text(unparen(field(f, "object"))) == "self";
  if ((!is(f, "identifier") && !self_attr) || !m.callee_name(v).empty() || m.is_module(f) || !m.callees(v).empty())
    return false;
  Node loop = innermost_loop(call);
  if (is_null(loop) || start(v) < start(loop)) return false;
  Node body = field(loop, "body");
  Node src = unparen(m.argument(v, 0, ""));
  if (!is(src, "identifier") || is(m.argument(v, 0, ""), "keyword_argument")) return false;
  auto src_bindings = m.lookup(m.text(src), start(src));
  if (src_bindings.empty()) return false;
  for (const Binding* sb : src_bindings) {
    bool per_pass = (sb->kind == Binding::Kind::Assign && sb->at >= start(body) && sb->at < end(body)) ||
                    (sb->kind == Binding::Kind::LoopTarget && sb->at >= start(loop) && sb->at < end(loop));
    if (!per_pass) return false;
  }
  return true;
}

// An unpacking binding `a, b, c = helper(x, ...)` in the body of the innermost loop around `call`,
// of a call of a project function here or of another module (its callee resolved; not a module,
// no CUDA value) whose first argument is a name bound in that loop (its target, or an assignment
// in its body, at any depth of the enclosing loops' bodies inside the function).
bool unpacked_in_loop(const SemanticModel& m, Node call, const Binding& b) {
  Node loop = innermost_loop(call);
  if (is_null(loop)) return false;
  Node body = field(loop, "body");
  if (is_null(body) || b.at < start(body) || b.at >= end(body)) return false;
  Node v = unparen(b.value);
  if (!is(v, "call") || m.is_cuda(v) || m.is_module(unparen(field(v, "function")))) return false;
  if (m.callees(v).empty() && !m.project_call(v)) return false;
  Node src = unparen(m.argument(v, 0, ""));
  if (!is(src, "identifier") || is(m.argument(v, 0, ""), "keyword_argument")) return false;
  auto src_bindings = m.lookup(m.text(src), start(src));
  if (src_bindings.empty()) return false;
  int f = m.function_at(start(call));
  for (const Binding* sb : src_bindings) {
    if (sb->kind != Binding::Kind::Assign && sb->kind != Binding::Kind::LoopTarget) return false;
    if (m.function_at(sb->at) != f) return false;
    bool in_a_loop = false;
    for (Node q = parent(call); !is_null(q) && !in_a_loop; q = parent(q)) {
      if (is(q, "function_definition")) break;
      if ((is(q, "for_statement") || is(q, "while_statement")) && sb->at >= start(q) && sb->at < end(q)) in_a_loop = true;
    }
    if (!in_a_loop) return false;
  }
  return true;
}

bool model_input_built_here(const SemanticModel& m, Node call) {
  Node r = unparen(receiver(call));
  // `Variable(inputs, requires_grad=False).to(device)`: a wrapper that returns its argument
  // (data/frameworks.txt `identity`) moves the argument.
  for (int guard = 0; guard < 4 && is(r, "call") && FrameworkTable::get().identity(m.callee_name(r)); ++guard) {
    Node a = m.argument(r, 0, "");
    if (is_null(a) || is(a, "keyword_argument")) return false;
    r = unparen(a);
  }
  // `image_resized.unsqueeze(0).cuda()`: the name under host reshapes (HigherHRNet valid.py:171).
  r = peel_host_reshapes(m, r);
  if (!is(r, "identifier")) return false;
  Node assign = parent(call);
  if (!is(assign, "assignment") || !same(unparen(field(assign, "right")), call)) return false;
  Node target = unparen(field(assign, "left"));
  if (!is(target, "identifier")) return false;
  // In a function: its body is searched for the module fed. At module level (an evaluation
  // script's `for i, img_name in enumerate(test_dataset):` under `if __name__ == "__main__":`,
  // Pytorch_Retinaface): the body of the innermost loop around the move.
  int f = m.function_at(start(call));
  const Function* fn = f >= 0 ? &m.functions()[f] : nullptr;
  int scope = fn ? fn->scope : m.scope_at(start(call));
  Node region = fn ? field(fn->node, "body") : Node{};
  if (!fn) {
    if (scope < 0 || m.scopes()[scope].kind != Scope::Kind::Module) return false;
    for (Node p = parent(call); !is_null(p) && is_null(region); p = parent(p))
      if (is(p, "for_statement") || is(p, "while_statement")) region = field(p, "body");
    if (is_null(region)) return false;
  }
  // At module level every name is the module's: the conversion and its array are bound in the
  // loop (per image), not before it (a table moved on every pass is TX003's).
  auto in_region = [&](uint32_t at) { return fn || (at >= start(region) && at < end(region)); };
  auto bindings = m.lookup(m.text(r), start(r));
  if (bindings.empty()) return false;
  bool converted = false;
  for (const Binding* b : bindings) {
    if (fn && b->kind == Binding::Kind::Param && b->function == f && handed_per_iteration(m, *b)) {
      converted = true;
      continue;
    }
    // `image_resized, center, scale = resize_align_multi_scale(image, ...)` in the loop around
    // the move, a name taken again by a later binding there (`image_resized =
    // transforms(image_resized)`) before the move: the per-pass input's first form, a host value
    // a helper of the project computes from a name bound in that loop. O(bindings).
    if (fn && b->kind == Binding::Kind::Assign && b->unpack_index >= 0 && m.scope_at(b->at) == scope &&
        unpacked_in_loop(m, call, *b))
      continue;
    if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0 || m.scope_at(b->at) != scope || !in_region(b->at))
      return false;
    Node v = unparen(b->value);
    if (same(v, call)) continue;
    // `torch.from_numpy(x).float()`, `.type(torch.FloatTensor)`: conversions on the host.
    v = peel_host_reshapes(m, v);
    // `images = image.unsqueeze(0)` of an input the function preprocessed (`image =
    // self.transform(image)`: ssd's Predictor.predict).
    if (fn && is(v, "identifier") && m.text(v) != m.text(r) && preprocessed_here(m, v, *fn)) {
      converted = true;
      continue;
    }
    // `x = transform(img).unsqueeze(0)` with `img = testset.pull_image(i)` bound in the loop
    // around the move (RFBNet's test_net: a transform handed in as a parameter).
    if (fn && transformed_in_loop(m, call, v)) {
      converted = true;
      continue;
    }
    if (!is(v, "call") || !kConversions.count(m.callee_name(v)) || !is_null(m.argument(v, -1, "device"))) return false;
    Node src = unparen(m.argument(v, 0, ""));
    if (!is(src, "identifier")) return false;
    auto src_bindings = m.lookup(m.text(src), start(src));
    if (src_bindings.empty()) return false;
    for (const Binding* sb : src_bindings)
      if (sb->kind != Binding::Kind::Assign || m.scope_at(sb->at) != scope || !in_region(sb->at)) return false;
    converted = true;
  }
  if (!converted) return false;
  // A module called after the move with the moved tensor as a positional argument.
  std::string_view name = m.text(target);
  bool fed = false;
  std::vector<Node> stack{region};
  while (!stack.empty() && !fed) {
    Node n = stack.back();
    stack.pop_back();
    if (is(n, "function_definition") || is(n, "lambda") || is(n, "class_definition")) continue;
    if (is(n, "call") && start(n) > end(call)) {
      Node args = field(n, "arguments");
      bool named = false, module_arg = false;
      if (is(args, "argument_list"))
        for (Node a : named_children(args)) {
          Node u = unparen(a);
          if (is(u, "identifier") && m.text(u) == name) named = true;
          // A project function handed the model beside the input (`get_multi_stage_outputs(cfg,
          // model, image_resized, ...)`, HigherHRNet's inference helper): it runs the model on it.
          if (is(u, "identifier") && m.text(u) != name && m.is_module(u) && m.is_cuda(u)) module_arg = true;
        }
      if (named && (feeds_module(m, n) || (module_arg && (!m.callees(n).empty() || m.project_call(n))))) fed = true;
    }
    for (Node c : named_children(n)) stack.push_back(c);
  }
  return fed;
}

// `inputs = self.processor(waveforms, sampling_rate=sr, return_tensors="pt")` in a loop over
// chunks of audio files, then `self.model(inputs.input_values.to(self.device), ...)`
// (huggingsound's transcribe): the move is an argument of a module's forward (feeds_module), and
// its receiver (a name, or an attribute or item of one) is bound in the innermost loop around
// the move only, each time by a host conversion or a callable that is neither a module nor a
// function of this file and gives no CUDA value (a processor, a tokenizer, a transform),
// applied to a name bound in that loop: the step's input, built per iteration on the host and
// copied to the GPU. A table built before the loop (TX003's) or a value of a constant argument
// is not one. O(bindings) per move.
bool loop_input_fed(const SemanticModel& m, Node call) {
  Node args = parent(call);
  if (is(args, "keyword_argument")) args = parent(args);
  if (!is(args, "argument_list") || !feeds_module(m, parent(args))) return false;
  Node root = unparen(receiver(call));
  for (int guard = 0; guard < 2 && (is(root, "attribute") || is(root, "subscript")); ++guard)
    root = unparen(is(root, "attribute") ? field(root, "object") : field(root, "value"));
  if (!is(root, "identifier")) return false;
  Node loop = innermost_loop(call);
  if (is_null(loop)) return false;
  Node body = field(loop, "body");
  auto in_body = [&](uint32_t at) { return at >= start(body) && at < end(body); };
  auto bindings = m.lookup(m.text(root), start(root));
  if (bindings.empty()) return false;
  for (const Binding* b : bindings) {
    if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0 || !in_body(b->at)) return false;
    Node v = peel_host_reshapes(m, unparen(b->value));
    if (!is(v, "call") || m.is_cuda(v)) return false;
    Node f = unparen(field(v, "function"));
    bool self_attr = is(f, "attribute") && m.text(unparen(field(f, "object"))) == "self";
    bool conversion = kConversions.count(m.callee_name(v)) && is_null(m.argument(v, -1, "device"));
    bool transform =
        (is(f, "identifier") || self_attr) && m.callee_name(v).empty() && !m.is_module(f) && m.callees(v).empty();
    if (!conversion && !transform) return false;
    Node src = unparen(m.argument(v, 0, ""));
    if (!is(src, "identifier")) return false;
    auto src_bindings = m.lookup(m.text(src), start(src));
    if (src_bindings.empty()) return false;
    for (const Binding* sb : src_bindings) {
      bool per_pass = (sb->kind == Binding::Kind::Assign && in_body(sb->at)) ||
                      (sb->kind == Binding::Kind::LoopTarget && sb->at >= start(loop) && sb->at < end(loop));
      if (!per_pass) return false;
    }
  }
  return true;
}

// `labels[idx_train].to(device)` in full-batch training (GCNII, pygcn: the whole graph is one
// batch): the rows of a host tensor gathered at a host index tensor (the split's node ids as a
// LongTensor, a BoolTensor mask) are the step's targets, copied again on every step. Both by
// their types (python/types.h): a CPU tensor indexed by a CPU tensor; not a scalar or slice
// index (rows at fixed positions), not a table on the GPU. O(1) type queries.
bool host_rows_gathered(const SemanticModel& m, Node recv) {
  if (!is(recv, "subscript") || named_count(recv) != 2) return false;
  Node value = unparen(field(recv, "value"));
  Node index = unparen(field(recv, "subscript"));
  bool self_attr = is(value, "attribute") && m.text(unparen(field(value, "object"))) == "self";
  if ((!is(value, "identifier") && !self_attr) || !is(index, "identifier")) return false;
  AbstractType vt = m.types().type_of(value);
  AbstractType it = m.types().type_of(index);
  return vt.kind == AbstractType::Kind::Tensor && vt.device == TypeDevice::Cpu &&
         it.kind == AbstractType::Kind::Tensor && it.device == TypeDevice::Cpu;
}

// `batch_y[:, -n:].to(self.device)` in a helper called per step with a batch that one call site
// keeps on the host (Autoformer's `vali()`: `batch_y = batch_y.float()`) and another moves first
// (`train()`): the parameter's join "may be CUDA" hides the host path. True when some call site
// of this module hands a parameter the receiver reads a batch not on CUDA: the copy runs on that
// path (set AA Autoformer exp_main.py:58/75). A site's batch whose type leaves its device
// undecided (a loader's batch of a dataset whose tensors' device is not known) counts as on the
// host, as it does for this rule at the site itself (a batch is copied from the host unless its
// type puts it on CUDA); such a site joined with a CUDA one is what makes the parameter "may be
// CUDA" (TypeDevice::Any). O(receiver nodes + parameters x call sites).
bool host_batch_at_some_site(const SemanticModel& m, Node recv) {
  int f = m.function_at(start(recv));
  if (f < 0) return false;
  const Function& fn = m.functions()[f];
  std::vector<int> params;
  std::vector<Node> stack{recv};
  while (!stack.empty()) {
    Node n = unparen(stack.back());
    stack.pop_back();
    if (is(n, "lambda") || is(n, "list_comprehension") || is(n, "generator_expression")) continue;
    if (is(n, "attribute")) {
      stack.push_back(field(n, "object"));
    } else if (is(n, "identifier")) {
      auto bindings = m.lookup(m.text(n), start(n));
      if (bindings.size() == 1 && bindings[0]->kind == Binding::Kind::Param && bindings[0]->function == f &&
          std::find(params.begin(), params.end(), bindings[0]->param_index) == params.end())
        params.push_back(bindings[0]->param_index);
    } else {
      for (Node c : named_children(n)) stack.push_back(c);
    }
  }
  const int skip = bound_params(fn);
  for (int p : params) {
    const Param& prm = fn.params[p];
    if (prm.is_variadic || p < skip) continue;
    for (int ci : m.callers(f)) {
      Node a = m.argument(m.calls()[ci].call, prm.keyword_only ? -1 : p - skip, prm.name);
      if (!is_null(a) && m.is_batch_value(a) && m.types().cuda(a) != CudaAnswer::Cuda) return true;
    }
  }
  return false;
}

}  // namespace

void tx001_blocking_host_to_device_copy(Context& ctx, Node call) {
  const auto& m = ctx.model();
  std::string_view meth = method_name(ctx, call);
  if ((meth != "to" && meth != "cuda") || !m.is_move_to_cuda(call)) return;
  if (!m.is_batch_value(receiver(call)) && !model_input_built_here(m, call) && !host_rows_gathered(m, receiver(call)) &&
      !loop_input_fed(m, call))
    return;
  // A batch whose type puts it on CUDA already (a loader prepared by Accelerate or Fabric yields
  // device batches) is not copied from the host.
  // A bare `data.to(device)` of a loader's batch that is not on CUDA by the loader's type moves it
  // in place (a PyG Batch): the CUDA type the name has is this move's.
  bool in_place = false;
  if (Node r = unparen(receiver(call)); is(parent(call), "expression_statement") && is(r, "identifier")) {
    auto bindings = m.lookup(m.text(r), start(r));
    in_place = !bindings.empty();
    for (const Binding* b : bindings) in_place = in_place && m.types().in_place_batch(*b);
  }
  if (!in_place && m.types().cuda(receiver(call)) == CudaAnswer::Cuda && !host_batch_at_some_site(m, receiver(call)) &&
      !m.host_state_read(receiver(call)))
    return;
  // `async=True` is PyTorch's name for it before 0.4 (`.cuda(async=True)`, `**{"async": True}`).
  auto kwargs = m.keyword_arguments(call);
  Node nb = kwargs.find("non_blocking");
  if (is_null(nb)) nb = kwargs.find("async");
  if (!is_null(nb)) {
    auto c = m.constant(nb);
    if (!c || (c->kind == Value::Kind::Bool && c->b)) return;
  }
  // Is any loader feeding training unpinned? Then the copy stays synchronous until pinned.
  bool unpinned = m.memo("unpinned_loader", [&] {
    for (const auto& cs : m.calls())
      if (m.is_loader_call(cs.call) && bool_argument_state(ctx, cs.call, kPinMemoryPos, "pin_memory") != 0 &&
          m.loader_feeds_training(cs.call))
        return 1;
    return 0;
  }) != 0;
  std::string msg = "Blocking host-to-device copy of a batch in the training loop; pass `non_blocking=True`";
  if (unpinned) msg += " (with `pin_memory=True` on the loader, see DL002, so the copy can overlap)";
  Diagnostic* d = ctx.report_in_hot_context("TX001", call, msg);
  if (!d) return;
  Fix fix{"Copy asynchronously: `non_blocking=True`", Applicability::Safe, {}};
  fix.edits.push_back(set_keyword(ctx, call, "non_blocking", "True"));
  d->fix = fix;
}

}  // namespace stoker::python::rules
