// DL002: batches that go to the GPU come from pageable memory.
#include "python/loader_wrappers.h"
#include "python/rules/common.h"
#include "python/types.h"

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace stoker::python::rules {

namespace {
// A loader of positions or keys: in every `for` loop known to iterate it, each use of the batch
// (its names, through subscripts of them: `batch[0]`, `minibatch["user"]`) is an index selecting
// from host data (`train_adj[batch[0]].to(device)`, `nodes[batch]`, `user2vector[b["id"][0]]`,
// neither value on CUDA) or a size query (`len(batch)`), also through host string methods and
// conversions (`int(news[0].split("-")[1])`) and through loops and comprehensions over it whose
// targets are used so (`[news2vector[n[0].split("-")[0]] for n in minibatch["impressions"]]`,
// news-recommendation's evaluate). The batch itself never reaches the GPU, what is moved is the
// host data it selects, so pinning the loader's batches would pin indices or strings only (set V
// GCNII ppi.py:74; the same loop without steps is loop_keeps_batches_on_host's case).
// O(loop bodies x comprehension depth).
bool batches_only_index_host_data(const SemanticModel& m, Node call) {
  auto loops = m.loops_iterating(call);
  if (loops.empty()) return false;
  static const std::set<std::string, std::less<>> string_methods = {
      "split", "rsplit", "strip", "lstrip", "rstrip", "lower", "upper", "startswith", "endswith", "replace"};
  static const std::set<std::string, std::less<>> host_conversions = {"builtins.len", "builtins.int", "builtins.str",
                                                                     "builtins.float"};
  bool used = false;
  // The uses of the names bound in `region` (a loop body, a comprehension), each through the
  // subscripts taken of it: every one an index into host data, a size or a host conversion.
  std::function<bool(Node, const std::vector<std::string_view>&, Node, int)> uses_ok;
  auto use_ok = [&](Node e, int depth) -> bool {
    for (int guard = 0; guard < 16; ++guard) {
      while (is(parent(e), "subscript") && same(field(parent(e), "value"), e)) e = parent(e);
      Node p = parent(e);
      if (is(p, "subscript") && !same(field(p, "value"), e) && !m.is_cuda(field(p, "value"))) {
        used = true;
        return true;
      }
      if (is(p, "argument_list") && named_count(p) == 1 && host_conversions.count(m.callee_name(parent(p)))) {
        if (m.callee_name(parent(p)) != "builtins.len") used = true;
        return true;
      }
      // `s.split("-")`: a host string method, its result used in turn.
      if (is(p, "attribute") && same(field(p, "object"), e) && is(parent(p), "call") &&
          string_methods.count(m.text(field(p, "attribute")))) {
        e = parent(p);
        continue;
      }
      // `for n in batch["impressions"]` (a statement or a comprehension): the target's uses decide.
      Node owner = p;
      if ((is(p, "for_in_clause") || is(p, "for_statement")) && same(unparen(field(p, "right")), e)) {
        Node t = unparen(field(p, "left"));
        if (!is(t, "identifier") || depth > 4) return false;
        Node region = is(p, "for_statement") ? field(p, "body") : parent(owner);
        return uses_ok(region, {m.text(t)}, t, depth + 1);
      }
      return false;
    }
    return false;
  };
  uses_ok = [&](Node region, const std::vector<std::string_view>& names, Node skip, int depth) -> bool {
    return for_each_identifier(region, true, [&](Node u) {
      if (same(u, skip) || std::find(names.begin(), names.end(), m.text(u)) == names.end()) return true;
      // A store to the name (`batch = ...`) rebinds it: not a use of the loader's batch.
      return use_ok(u, depth);
    }, 65536);
  };
  for (int l : loops) {
    Node n = m.loops()[l].node;
    auto names = m.loop_batch_names(n);  // empty for a loop that is no `for`
    if (names.empty()) return false;
    used = false;
    if (!uses_ok(field(n, "body"), names, Node{}, 0) || !used) return false;
  }
  return true;
}
// Every loop known to iterate the loader hands its batch (its names, through subscripts:
// `sampled_batch["image"]`) only to functions that convert the parameter receiving it to NumPy
// before any other read (a function of this file or of another module:
// SemanticModel::param_enters_numpy, ParamSummary::enters_numpy), converts it itself
// (`batch.cpu().numpy()`), or asks its length. What reaches the GPU is then built from arrays
// (`torch.from_numpy(zoom(slice, ...)).cuda()` per slice), not copied from the loader's batch:
// pinning the batch would not speed that copy (set AH SSL4MIS train_fully_supervised_2D.py:86,
// validation through val_2D.test_single_volume; rec28b).
// The batch's parts may first be bound to names of the loop (`image, label, case_name =
// sampled_batch["image"], sampled_batch["label"], sampled_batch['case_name'][0]`: Swin-Unet's and
// TransUNet's test.py, handing them to utils.test_single_volume): those names' reads are judged
// the same way (at most kMaxAliases names). A read may also ask the size (`.size()`, `.shape`,
// `.dim()`, `len()`), or use the part as a str (SemanticModel::is_string_use: a case name
// formatted into a log line, split, handed to a parameter the callee only joins into paths).
// O(loop bodies x names).
bool batches_enter_numpy(const SemanticModel& m, Node call) {
  auto loops = m.loops_iterating(call);
  if (loops.empty()) return false;
  static const std::set<std::string_view> keeps = {"squeeze", "unsqueeze", "cpu",     "detach", "clone",
                                                   "contiguous", "float", "double", "long",   "int",
                                                   "view",    "reshape",   "permute", "transpose", "flatten"};
  static const std::set<std::string_view> sizes = {"size", "dim", "numel"};
  constexpr size_t kMaxAliases = 8;
  for (int l : loops) {
    Node n = m.loops()[l].node;
    auto batch_names = m.loop_batch_names(n);  // empty for a loop that is no `for`
    if (batch_names.empty()) return false;
    std::vector<std::string> names(batch_names.begin(), batch_names.end());
    bool handed = false;
    // `x = <part>` or `a, b = <part>, <part>`: the identifier the part `e` is bound to, or null.
    auto alias_target = [&](Node e) -> Node {
      Node p = parent(e);
      if (is(p, "assignment") && same(unparen(field(p, "right")), e)) {
        Node t = field(p, "left");
        return is(t, "identifier") ? t : Node{};
      }
      if (!is(p, "expression_list") || !is(parent(p), "assignment") || !same(field(parent(p), "right"), p))
        return Node{};
      Node left = field(parent(p), "left");
      if (!is(left, "pattern_list") || named_count(left) != named_count(p)) return Node{};
      for (uint32_t i = 0; i < named_count(p); ++i)
        if (same(named_child(p, i), e)) {
          Node t = named_child(left, i);
          return is(t, "identifier") ? t : Node{};
        }
      return Node{};
    };
    // Nested definitions and lambdas count: a closure reading the batch may move it.
    auto read_ok = [&](Node u) {
      Node pu = parent(u);
      if (is(pu, "attribute") && same(field(pu, "attribute"), u)) return true;
      if (is(pu, "keyword_argument") && same(field(pu, "name"), u)) return true;
      // A store to the name rebinds it (`case_name = case_name.split(",")[0]`): its value is read
      // where it is used.
      Node target = u;
      while (is(parent(target), "pattern_list") || is(parent(target), "tuple_pattern")) target = parent(target);
      if (is(parent(target), "assignment") && same(field(parent(target), "left"), target)) return true;
      Node e = u;
      while (is(parent(e), "subscript") && same(field(parent(e), "value"), e)) e = parent(e);
      if (Node t = alias_target(e); !is_null(t)) {
        if (std::find(names.begin(), names.end(), m.text(t)) == names.end()) {
          if (names.size() >= kMaxAliases) return false;
          names.emplace_back(m.text(t));
        }
        return true;
      }
      if (m.is_string_use(e)) return true;
      Node p = parent(e);
      if (is(p, "argument_list") && m.callee_name(parent(p)) == "builtins.len") return true;
      if (is(p, "attribute") && same(field(p, "object"), e)) {
        std::string_view a = m.text(field(p, "attribute"));
        if (a == "shape" || a == "ndim") return true;
        if (sizes.count(a) && is(parent(p), "call") && same(field(parent(p), "function"), p)) return true;
      }
      if (is(p, "keyword_argument") && same(field(p, "value"), e)) p = parent(p);
      if (is(p, "argument_list")) {
        if (!m.argument_enters_numpy(parent(p), e)) return false;
        handed = true;
        return true;
      }
      // `batch["image"].cpu().numpy()` in the loop itself.
      bool numpy = false;
      for (int guard = 0; guard < 16; ++guard) {
        Node a = parent(e);
        if (!is(a, "attribute") || !same(field(a, "object"), e)) break;
        Node c = parent(a);
        if (!is(c, "call") || !same(field(c, "function"), a)) break;
        std::string_view meth = m.text(field(a, "attribute"));
        if (meth == "numpy") {
          numpy = true;
          break;
        }
        if (!keeps.count(meth)) break;
        e = c;
      }
      if (!numpy) return false;
      handed = true;
      return true;
    };
    // Names found as aliases are read again from the start: each pass judges every name known so
    // far, until no pass adds one (at most kMaxAliases passes).
    for (size_t judged = 0; judged != names.size();) {
      judged = names.size();
      bool all_ok = for_each_identifier(field(n, "body"), false, [&](Node u) {
        if (std::find(names.begin(), names.end(), m.text(u)) == names.end()) return true;
        return read_ok(u);
      });
      if (!all_ok) return false;
    }
    if (!handed) return false;
  }
  return true;
}
bool collate_builds_no_tensors(const SemanticModel& m, Node collate);  // below

// A loader wrapper's call site (loader_wrappers.h; DL001's wrapper_site): pinning is decided by
// the construction's own keywords and the site's, the loops are those iterating the site's result.
void wrapper_site(Context& ctx, Node site, Node construction) {
  const auto& m = ctx.model();
  int f = m.function_at(start(construction));
  if (f < 0) return;
  for (const Param& p : m.functions()[f].params)
    if (!p.is_variadic && p.name == "pin_memory") return;  // a named option the wrapper keeps
  auto kw = wrapper_site_options(m, site, construction);
  Node pin = kw.find("pin_memory");
  if (is_null(pin)) pin = m.argument(construction, kPinMemoryPos, "");
  if (!is_null(pin)) {
    if (!contains(site, pin)) return;  // written in the wrapper: the construction is judged there
    auto c = m.constant(pin);
    if (!c || !(c->kind == Value::Kind::Bool || c->kind == Value::Kind::Int || c->kind == Value::Kind::None) ||
        (c->kind == Value::Kind::Bool ? c->b : c->i != 0))
      return;
  } else if (!kw.complete) {
    return;
  }
  if (!m.loader_feeds_training(site)) return;
  if (dataset_does_cuda_work(ctx)) return;
  if (batches_only_index_host_data(m, site)) return;
  if (batches_enter_numpy(m, site)) return;
  // The collate_fn the site hands the wrapper, or the wrapper's own.
  Node collate = kw.find("collate_fn");
  if (is_null(collate)) collate = m.argument(construction, kCollatePos, "");
  if (collate_builds_no_tensors(m, collate)) return;
  std::string name(m.text(field(site, "function")));
  Diagnostic& d = ctx.report("DL002", field(site, "function"),
                             "Batches from the `DataLoader` that `" + name +
                                 "` builds are copied to the GPU from pageable memory; `pin_memory=True` lets "
                                 "the copy run asynchronously");
  d.facts.push_back({"pin_memory", "false"});
  Fix fix;
  fix.title = "Pin batches in the loader: `pin_memory=True`";
  fix.applicability = !is_null(pin) && !is_literal_argument(pin) ? Applicability::Unsafe : Applicability::Safe;
  fix.edits.push_back(set_keyword(ctx, site, "pin_memory", "True"));
  d.fix = fix;
}
// A loader's collate_fn builds batches of Python values only (SemanticModel::
// collate_python_values: a function or method of this file, or in project mode a method of
// another module's dataset class, `collate_fn=train_dataset.collate_fn`). `pin_memory` pins
// tensors only; a batch with none gains nothing from it, whatever the loop then builds from it on
// the host and moves.
bool collate_builds_no_tensors(const SemanticModel& m, Node collate) {
  return !is_null(collate) && m.collate_python_values(collate);
}
}  // namespace

void dl002_unpinned_host_batches(Context& ctx, Node call) {
  const auto& m = ctx.model();
  if (!m.uses_cuda()) return;
  if (!m.is_loader_call(call)) {
    if (Node built = wrapped_loader_construction(m, call); !is_null(built)) wrapper_site(ctx, call, built);
    return;
  }
  int state = bool_argument_state(ctx, call, kPinMemoryPos, "pin_memory");
  if (state == 0) return;
  if (!m.loader_feeds_training(call)) return;
  // A Dataset or collate_fn that returns CUDA tensors cannot be pinned (pin_memory=True would
  // raise); DL005 reports that instead.
  if (dataset_does_cuda_work(ctx)) return;
  if (batches_only_index_host_data(m, call)) return;
  // Batches that enter NumPy before anything moves them: the GPU gets arrays built from them.
  if (batches_enter_numpy(m, call)) return;
  // A loader of positions: its batches are small index tensors, pinning them gains nothing.
  if (index_range_loader(m, call)) return;
  // A collate_fn that builds Python lists and strings: no tensor in the batch to pin.
  if (collate_builds_no_tensors(m, m.argument(call, kCollatePos, "collate_fn"))) return;
  Diagnostic& d = ctx.report("DL002", field(call, "function"),
                             "Batches from this `DataLoader` are copied to the GPU from pageable memory; "
                             "`pin_memory=True` lets the copy run asynchronously");
  d.facts.push_back({"pin_memory", "false"});
  Fix fix;
  fix.title = "Pin batches in the loader: `pin_memory=True`";
  fix.applicability = Applicability::Safe;
  Node positional = m.argument(call, kPinMemoryPos, "");
  Node written = m.keyword_arguments(call).find("pin_memory");
  if (is_null(written)) written = positional;
  if (state == 2 && !is_null(written) && (!is_literal_argument(written) || !contains(call, written)))
    fix.applicability = Applicability::Unsafe;  // overrides a flag, constant or kwargs entry
  if (state == 2 && !is_null(positional) && is_null(m.keyword_arguments(call).find("pin_memory")))
    fix.edits.push_back(Edit{range(positional), "True"});
  else
    fix.edits.push_back(set_keyword(ctx, call, "pin_memory", "True"));
  d.fix = fix;
}

}  // namespace stoker::python::rules
