// BS001: a batch too small to keep the GPU busy.
#include "python/rules/common.h"

#include <algorithm>
#include <vector>

namespace stoker::python::rules {

namespace {
// A loader built in a function and bound there to a local name, as it is or wrapped in
// `iter(...)` or in a generator of this file that only iterates its parameter (`cycle(dl)`:
// `while True: for data in dl: yield data`), whose every other mention in the function draws
// one batch (`next(it)`, `it.__next__()`) or closes it, outside any loop: each call of the
// function takes a batch or a few from it (Diffuser's `render_reference`, set AG). O(function).
bool loader_drawn_once_here(const SemanticModel& m, Node loader_call) {
  int f = m.function_at(start(loader_call));
  if (f < 0 || is_null(loader_call)) return false;
  auto loopish = [](Node p) {
    return is(p, "for_statement") || is(p, "while_statement") || is(p, "function_definition") || is(p, "lambda") ||
           is(p, "list_comprehension") || is(p, "generator_expression") || is(p, "set_comprehension") ||
           is(p, "dictionary_comprehension") || is(p, "class_definition");
  };
  Node value = loader_call;
  Node up = parent(value);
  // `cycle(DataLoader(...))`, `iter(DataLoader(...))`: the loader the only argument of the wrapper.
  if (is(up, "argument_list")) {
    if (named_count(up) != 1) return false;
    Node wrap = parent(up);
    if (m.callee_name(wrap) != "builtins.iter") {
      auto targets = m.callees(wrap);
      if (targets.size() != 1) return false;
      const Function& g = m.functions()[targets[0]];
      if (g.params.size() != 1 || g.params[0].is_variadic) return false;
      // A generator whose every mention of its parameter is the iterable of a `for` statement.
      std::string_view param = g.params[0].name;
      bool yields = false, iterated = false;
      std::vector<Node> stack{field(g.node, "body")};
      for (size_t work = 0; !stack.empty(); ++work) {
        if (work > 4096) return false;
        Node n = stack.back();
        stack.pop_back();
        if (is(n, "yield")) yields = true;
        if (is(n, "function_definition") || is(n, "lambda") || is(n, "class_definition")) return false;
        if (is(n, "identifier") && m.text(n) == param) {
          Node p = parent(n);
          if (!is(p, "for_statement") || !same(unparen(field(p, "right")), n)) return false;
          iterated = true;
          continue;
        }
        for (Node c : named_children(n)) stack.push_back(c);
      }
      if (!yields || !iterated) return false;
    }
    value = wrap;
    up = parent(value);
  }
  if (!is(up, "assignment") || !same(unparen(field(up, "right")), value)) return false;
  Node target = field(up, "left");
  if (!is(target, "identifier")) return false;
  for (Node p = parent(up); !is_null(p) && !same(p, m.functions()[f].node); p = parent(p))
    if (loopish(p)) return false;  // built in a loop of the function: drawn once per pass
  std::string_view name = m.text(target);
  bool drawn = false;
  bool all_ok = for_each_identifier(m.functions()[f].node, false, [&](Node n) {
    if (m.text(n) != name || same(n, target)) return true;
    Node p = parent(n);
    bool draw = false;
    if (is(p, "argument_list") && named_count(p) == 1 && m.callee_name(parent(p)) == "builtins.next") {
      draw = true;
    } else if (is(p, "attribute") && same(unparen(field(p, "object")), n) && is(parent(p), "call") &&
               named_count(field(parent(p), "arguments")) == 0) {
      std::string_view a = m.text(field(p, "attribute"));
      if (a != "__next__" && a != "close") return false;
      draw = a == "__next__";
    } else {
      return false;  // stored, returned, handed on, iterated or rebound
    }
    for (Node q = parent(p); !is_null(q) && !same(q, m.functions()[f].node); q = parent(q))
      if (loopish(q)) return false;
    drawn = drawn || draw;
    return true;
  }, 65536);
  return all_ok && drawn;
}
}  // namespace

void bs001_small_batch(Context& ctx, Node call) {
  const auto& m = ctx.model();
  if (!m.uses_cuda() || !m.is_loader_call(call)) return;
  auto kw = m.keyword_arguments(call);
  Node bs = kw.find("batch_size");
  bool keyword = !is_null(bs);
  if (is_null(bs)) bs = m.argument(call, kBatchSizePos, "");
  Node batch_sampler = kw.find("batch_sampler");
  if (is_null(batch_sampler)) batch_sampler = m.argument(call, kBatchSamplerPos, "");
  if (!is_null(batch_sampler)) {
    // The batches are the batch sampler's: its construction's `batch_size` argument (every
    // candidate the same call), torch's BatchSampler also by position. Silent otherwise.
    auto vs = m.values(batch_sampler);
    if (vs.size() != 1 || vs[0].kind != Value::Kind::Expr || !is(unparen(vs[0].expr), "call")) return;
    // Also a helper of another module returning one, and a wrapper class iterating one.
    bs = m.batch_sampler_size(vs[0].expr);
    if (is_null(bs)) return;
    keyword = false;  // reported at the loader: the size is not one of its arguments
  }
  long long size = 1;  // DataLoader's default
  long long smallest = 0;  // several candidates: the smallest (size is the largest)
  if (is_null(bs)) {
    if (!kw.complete) return;
  } else if (is(bs, "dictionary_splat")) {
    // A batch size the call sites of a factory pass into its forwarded `**kwargs`
    // (SemanticModel::forwarded_counts): every one a known positive int, reported with the
    // range; any other, silent.
    auto counts = m.forwarded_counts(bs, "batch_size");
    if (!counts || counts->size() > 8) return;
    for (long long x : *counts) {
      smallest = smallest == 0 ? x : std::min(smallest, x);
      size = std::max(size, x);
    }
    if (smallest == size) smallest = 0;
    keyword = false;  // not written at the call
  } else if (auto n = m.constant_int(bs)) {
    auto v = m.constant(bs);
    if (!v || v->kind == Value::Kind::None) return;
    size = *n;
  } else {
    // Several candidates (`opts.val_batch_size = 1` under a condition, argparse default 4), every
    // one a positive int: below the threshold on every path when the largest is; reported with
    // the range. Any other candidate (None, unknown) leaves it silent.
    auto vs = m.values(bs);
    bool all_ints = vs.size() >= 2 && vs.size() <= 8;
    for (const auto& x : vs) {
      if (!all_ints || x.kind != Value::Kind::Int || x.i < 1) {
        all_ints = false;
        break;
      }
      smallest = smallest == 0 ? x.i : std::min(smallest, x.i);
      size = std::max(size, x.i);
    }
    if (smallest == size) smallest = 0;
    if (!all_ints) {
      // `batch_size=batch_size` of a loader factory's parameter: a call site whose loader feeds
      // training passing a small size decides (robot-surgery's `make_loader(...,
      // batch_size=args.batch_size)`, default 1, beside the valid loader's unknown size).
      auto uses = m.site_use_values(bs, false);
      if (!uses) return;
      size = 0;
      smallest = 0;
      for (const auto& x : *uses)
        if (x.kind == Value::Kind::Int && x.i >= 1 && (size == 0 || x.i < size)) size = x.i;
      if (size == 0) return;
    }
  }
  if (size >= ctx.settings().min_batch_size || size <= 0) return;
  // A collate_fn returning `examples[0]`: each dataset item is a whole batch (a bucketed dataset);
  // the loader's batch size counts items, not samples.
  if (m.collate_returns_one_item(m.argument(call, kCollatePos, "collate_fn"))) return;
  if (!m.loader_feeds_training(call)) return;
  // A loader a function builds to draw a batch or a few from (`cycle(DataLoader(...)).__next__()`),
  // in a function that does not run on every step (Diffuser's `render_reference`, called under
  // `if self.step == 0`): no step takes its batches.
  if (loader_drawn_once_here(m, call)) {
    HotContext h = ctx.hot();
    if (!h.hot || h.once_per_epoch || h.every != 0) return;
  }
  // Report at the argument when it is a keyword written at the call; otherwise at the call.
  Node at = field(call, "function");
  if (keyword) {
    for (auto a : named_children(field(call, "arguments")))
      if (is(a, "keyword_argument") && ctx.text(field(a, "name")) == "batch_size") at = a;
  }
  Diagnostic& d = ctx.report("BS001", at,
                             "Batch size " + (smallest ? std::to_string(smallest) + " to " : std::string()) +
                                 std::to_string(size) + " is below " +
                                 std::to_string(ctx.settings().min_batch_size) +
                                 ": per-step overhead dominates and the GPU idles between small kernels");
  d.facts.push_back({"batch_size", std::to_string(size)});
  d.fix = Fix{"Raise the batch size (scaling the learning rate) or accumulate gradients", Applicability::DisplayOnly, {}};
}

}  // namespace stoker::python::rules
