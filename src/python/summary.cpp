// The semantic model's summary of this module for the other modules of the project (`summarize`:
// its functions' and classes' facts, its outgoing calls with what they hand on) and the joins of
// the argument facts of several call sites (ArgFacts). Split from semantic_project.cpp (which
// keeps naming the project functions a call may invoke and reading the facts other modules
// supply) at 1,926 lines in session 28; the per-epoch parameter pass is summary_params.cpp.
#include <algorithm>
#include <cctype>
#include <set>
#include <tuple>
#include <unordered_set>

#include "python/descend.h"
#include "python/display_elements.h"
#include "python/parser.h"
#include "python/call_positions.h"
#include "python/class_constants.h"
#include "python/frameworks.h"
#include "python/loader_wrappers.h"
#include "python/model_internal.h"
#include "python/model_argparse.h"
#include "python/namespace_reads.h"
#include "python/project_fields.h"
#include "python/semantic_model.h"
#include "python/symbol_table.h"
#include "python/types.h"

namespace stoker::python {

using model_detail::starts_with;

ScalarFact to_scalar_fact(const Value& v) {
  ScalarFact f;
  switch (v.kind) {
    case Value::Kind::Int: f.kind = ScalarFact::Kind::Int; f.i = v.i; break;
    case Value::Kind::Float: f.kind = ScalarFact::Kind::Float; f.f = v.f; break;
    case Value::Kind::Str: f.kind = ScalarFact::Kind::Str; f.s = v.s; break;
    case Value::Kind::Bool: f.kind = ScalarFact::Kind::Bool; f.b = v.b; break;
    case Value::Kind::None: f.kind = ScalarFact::Kind::None; break;
    default: break;  // an expression of this file is unknown elsewhere
  }
  return f;
}

namespace {
// Candidate values joined: at most kMaxCandidates, past that one unknown.
void join_scalars(std::vector<ScalarFact>& into, const std::vector<ScalarFact>& from) {
  for (const auto& v : from) {
    if (std::find(into.begin(), into.end(), v) != into.end()) continue;
    if (into.size() >= SemanticModel::kMaxCandidates) {
      into.assign(1, ScalarFact{});
      return;
    }
    into.push_back(v);
  }
}

// Namespace values of two call sites (ArgFacts::ns_values, sorted by dest): a dest both carry
// takes both's values; one that either lacks is unknown (dropped). O(dests).
void join_namespace_values(std::vector<std::pair<std::string, std::vector<ScalarFact>>>& into,
                           const std::vector<std::pair<std::string, std::vector<ScalarFact>>>& from) {
  std::vector<std::pair<std::string, std::vector<ScalarFact>>> out;
  auto b = from.begin();
  for (auto& entry : into) {
    while (b != from.end() && b->first < entry.first) ++b;
    if (b == from.end() || b->first != entry.first) continue;
    join_scalars(entry.second, b->second);
    bool known = true;
    for (const auto& v : entry.second) known = known && v.kind != ScalarFact::Kind::Unknown;
    if (known) out.push_back(std::move(entry));
  }
  into = std::move(out);
}
}  // namespace

void ArgFacts::join(const ArgFacts& o) {
  if (o.passed) {
    // A site that does not pass a namespace (ns 0 or 2) makes the parameter no known namespace;
    // likewise a dict of settings (its keys' values).
    auto join_keyed = [&](auto& state, auto& values, int site_state, const auto& site_values) {
      // A site handing on a parameter no call passes (ns 3, the uncalled method's) adds nothing:
      // 3 stays only while every site so far is one.
      if (site_state == 3) {
        if (!passed) state = 3;
        return;
      }
      int site = site_state == 1 ? 1 : 2;
      if (!passed || state == 3) {
        state = site;
        values = site == 1 ? site_values : std::decay_t<decltype(values)>{};
      } else if (state == 1 && site == 1) {
        join_namespace_values(values, site_values);
      } else {
        state = 2;
        values.clear();
      }
    };
    join_keyed(ns, ns_values, o.ns, o.ns_values);
    join_keyed(dict, dict_values, o.dict, o.dict_values);
  }
  if (o.passed) {
    // Attribute devices: the attributes every passing site's object holds a device in.
    if (!passed) {
      attr_devices = o.attr_devices;
    } else if (attr_devices != o.attr_devices) {
      std::vector<std::pair<std::string, int>> both;
      auto b = o.attr_devices.begin();
      for (const auto& [attr, k] : attr_devices) {
        while (b != o.attr_devices.end() && b->first < attr) ++b;
        if (b == o.attr_devices.end() || b->first != attr) continue;
        if (k == b->second || k == 2 || b->second == 2) both.push_back({attr, k == 2 || b->second == 2 ? 2 : k});
      }
      attr_devices = std::move(both);
    }
  }
  if (o.passed) {
    if (!passed) {
      elem_cuda = o.elem_cuda;
      elem_types = o.elem_types;
      elems_mixed = o.elems_mixed;
    } else if (elems_mixed || o.elems_mixed || elem_cuda.size() != o.elem_cuda.size() ||
               elem_types.size() != o.elem_types.size()) {
      elems_mixed = true;
      elem_cuda.clear();
      elem_types.clear();
    } else {
      for (size_t i = 0; i < elem_cuda.size(); ++i) elem_cuda[i] = static_cast<char>(elem_cuda[i] | o.elem_cuda[i]);
      for (size_t i = 0; i < elem_types.size(); ++i) {
        AbstractType t = python::join(TypeInference::from_fact(elem_types[i].first, elem_types[i].second),
                                      TypeInference::from_fact(o.elem_types[i].first, o.elem_types[i].second));
        elem_types[i] = {static_cast<int>(t.kind), static_cast<int>(t.device)};
      }
    }
  }
  passed |= o.passed;
  defaulted |= o.defaulted;
  cuda |= o.cuda;
  module |= o.module;
  loader |= o.loader;
  batch |= o.batch;
  step |= o.step;
  device_cuda |= o.device_cuda;
  tensor |= o.tensor;
  untyped |= o.untyped;
  AbstractType t = python::join(TypeInference::from_fact(type_kind, type_device),
                                TypeInference::from_fact(o.type_kind, o.type_device));
  type_kind = static_cast<int>(t.kind);
  type_device = static_cast<int>(t.device);
  if (klass.empty()) klass = o.klass;
  else if (!o.klass.empty() && o.klass != klass) klass = "?";
  if (framework.empty()) framework = o.framework;
  else if (!o.framework.empty() && o.framework != framework) framework = "?";
  if (func.empty()) func = o.func;
  else if (!o.func.empty() && o.func != func) func = "?";
  join_scalars(values, o.values);
  fed_passed |= o.fed_passed;
  fed_defaulted |= o.fed_defaulted;
  epoch_passed |= o.epoch_passed;
  epoch_defaulted |= o.epoch_defaulted;
  join_scalars(fed_values, o.fed_values);
  join_scalars(epoch_values, o.epoch_values);
  kw_known |= o.kw_known;
  kw_open |= o.kw_open;
  if (join_sorted(kw_names, o.kw_names, kMaxKwNames)) kw_open = true;
  join_sorted(loader_keys, o.loader_keys, kMaxLoaderKeys);
  if (o.passed) {
    // (No copy of the site's elements: the ternary of a vector and a temporary copied them.)
    static const std::vector<ScalarFact> unknown_element{ScalarFact{}};
    join_scalars(elem_values, o.elem_values.empty() ? unknown_element : o.elem_values);
  }
}

void ArgFacts::join_hot(const ArgFacts& site) {
  hot_passed |= site.passed;
  hot_defaulted |= site.defaulted;
  join_scalars(hot_values, site.values);
}

void ArgFacts::join_use(const ArgFacts& site, bool epoch) {
  fed_passed |= site.passed;
  fed_defaulted |= site.defaulted;
  if (site.passed) join_scalars(fed_values, site.values);
  if (!epoch) return;
  epoch_passed |= site.passed;
  epoch_defaulted |= site.defaulted;
  if (site.passed) join_scalars(epoch_values, site.values);
}

bool SemanticModel::namespace_facts(Node a, std::vector<std::pair<std::string, std::vector<ScalarFact>>>& out) const {
  out.clear();
  auto vs = values(a);
  if (vs.empty()) return false;
  for (const auto& v : vs)
    if (!namespace_value(v)) return false;
  // The table of one kind of candidate, once per model: a namespace other modules hand a
  // parameter here (its sites' values), or one of this module's parsers (each dest declared
  // with an explicit `default=` on every add_argument, and the dests of other modules'
  // namespace helpers it calls), each with this module's stores; only dests whose values are
  // all known travel (an absent dest reads as unknown), at most kMaxNamespaceDests.
  auto table = [&](const ArgFacts* param, const FunctionFacts* imported = nullptr)
      -> const std::vector<std::pair<std::string, std::vector<ScalarFact>>>& {
    const void* key = imported ? static_cast<const void*>(imported) : static_cast<const void*>(param);
    if (auto it = namespace_tables_.find(key); it != namespace_tables_.end()) return it->second;
    std::vector<std::pair<std::string, std::vector<ScalarFact>>> built;
    auto add = [&](const std::string& dest, const std::vector<Value>& values) {
      std::vector<ScalarFact> facts;
      for (const auto& v : values) {
        if (v.kind == Value::Kind::Unknown || v.kind == Value::Kind::Expr) return;
        facts.push_back(to_scalar_fact(v));
      }
      if (!facts.empty() && facts.size() <= kMaxCandidates) built.push_back({dest, std::move(facts)});
    };
    if (imported) {
      // Another module's namespace imported by name: its dests' values, with this module's stores.
      for (const auto& [dest, facts] : imported->namespace_values) {
        std::vector<Value> declared = to_values(facts);
        add(dest, namespace_attribute(dest, &declared));
      }
    } else if (param) {
      for (const auto& [dest, facts] : param->ns_values) {
        std::vector<Value> declared = to_values(facts);
        add(dest, namespace_attribute(dest, &declared));
      }
    } else {
      // A handed namespace also carries a switch's implicit default (`action="store_true"`:
      // False, as this module reads it; rules.md, "Resolved value"): the callee's guards of the
      // flag resolve as they would here (set AJ End-to-end-ASR-Pytorch: `if
      // self.paras.cudnn_ctc:` in bin/train_asr.py of main.py's `--cudnn-ctc`). A namespace
      // *returned* by a helper keeps it unknown (namespace_facts_of_parsers: CodeT5's
      // `--do_train`).
      std::set<std::string> dests;
      for (const auto& [dest, calls] : argparse_args_) {
        bool explicit_default = true;
        bool set_default = sets_defaults_ && !is_null(model_detail::last_set_default(*this, dest));
        for (Node call : calls) {
          std::string action;
          string_literal_value(argument(call, -1, "action"), src_, action);
          explicit_default = explicit_default && (!is_null(argument(call, -1, "default")) || set_default ||
                                                  action == "store_true" || action == "store_false");
        }
        if (explicit_default) dests.insert(dest);
      }
      for (const FunctionFacts* f : ext_namespaces())
        for (const auto& [dest, facts] : f->namespace_values)
          if (!argparse_args_.count(dest)) dests.insert(dest);
      for (const auto& dest : dests) add(dest, namespace_attribute(dest));
    }
    std::sort(built.begin(), built.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    if (built.size() > kMaxNamespaceDests) built.resize(kMaxNamespaceDests);
    auto& slot = namespace_tables_[key];
    slot = std::move(built);
    return slot;
  };
  bool first = true;
  for (const auto& v : vs) {
    const auto& t = table(namespace_param(v), imported_namespace(v));
    if (first) out = t;
    else join_namespace_values(out, t);
    first = false;
  }
  return true;
}

std::vector<std::string> SemanticModel::unused_imports(
    const std::vector<std::pair<std::string, std::string>>& imports) const {
  std::vector<std::string> out;
  if (imports.empty() || imports.size() > 256) return out;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  // A word written as a name (not after a dot), outside import statements, comments, docstrings
  // and `__all__`.
  auto written = [&](std::string_view name) {
    for (size_t at = src_.find(name); at != std::string_view::npos; at = src_.find(name, at + 1)) {
      if (at > 0 && (word(src_[at - 1]) || src_[at - 1] == '.')) continue;
      if (at + name.size() < src_.size() && word(src_[at + name.size()])) continue;
      if (inert_text_at(static_cast<uint32_t>(at))) continue;
      Node d = descendant_at(root_, static_cast<uint32_t>(at));
      bool import = false;
      for (int up = 0; up < 6 && !is_null(d) && !import; ++up, d = parent(d))
        import = is(d, "import_from_statement") || is(d, "import_statement") || is(d, "future_import_statement");
      if (import) continue;
      return true;
    }
    return false;
  };
  // A module that may look a name up in its own namespace may call any name it imports.
  if (reads_namespace_by_name(src_, [&](size_t at) { return !inert_text_at(static_cast<uint32_t>(at)); })) return out;
  for (const auto& [name, qualified] : imports)
    if (!written(name)) out.push_back(name);
  std::sort(out.begin(), out.end());
  return out;
}

ModuleSummary SemanticModel::summarize(const std::function<bool(std::string_view)>& is_project_name,
                                       UnusedImportsMemo* memo) const {
  ModuleSummary out;
  out.uses_cuda = uses_cuda_;
  out.cuda_instances = types().cuda_instance_classes();
  // Module-level imports (re-exports through a package's __init__.py).
  for (const auto& [name, list] : scopes_[0].bindings)
    if (!list.empty() && list.back().kind == Binding::Kind::Import) out.imports.push_back({name, list.back().qualified});
  std::sort(out.imports.begin(), out.imports.end());
  if (memo) {
    std::lock_guard<std::mutex> hold(memo->lock);
    if (!memo->set || memo->imports != out.imports) {
      memo->unused = unused_imports(out.imports);
      memo->imports = out.imports;
      memo->set = true;
    }
    out.unused_imports = memo->unused;
  } else {
    out.unused_imports = unused_imports(out.imports);
  }
  for (Node st : named_children(root_))
    if (is(st, "import_from_statement"))
      for (Node c : named_children(st))
        if (is(c, "wildcard_import")) out.star_imports.push_back(std::string(text(field(st, "module_name"))));
  // Names written after a dot or as a whole string: one byte scan. A comment calls nothing
  // (`#  plt.plot(pred, label="predict")`, `# exp.predict()`): skipped whole, one node lookup per
  // `#`. A call `obj.name(...)` that is dead or made on a library object (quiet_attribute_call)
  // calls no method of the project by that name: left out.
  {
    std::unordered_set<uint32_t> quiet;
    for (const CallSite& cs : calls_)
      if (Node fn = field(cs.call, "function"); is(fn, "attribute"))
        if (Node a = field(fn, "attribute"); is(a, "identifier") && quiet_attribute_call(cs, fn, a))
          quiet.insert(start(a));
    auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    std::set<std::string_view> names;
    for (size_t i = 0; i + 1 < src_.size() && names.size() <= kMaxAttributeNames; ++i) {
      char c = src_[i];
      if (c == '#') {
        Node d = descendant_at(root_, static_cast<uint32_t>(i));
        if (is(d, "comment") && ts_node_end_byte(d) > i + 1) i = ts_node_end_byte(d) - 1;
        continue;
      }
      if (c != '.' && c != '"' && c != '\'') continue;
      size_t b = i + 1;
      while (b < src_.size() && (src_[b] == ' ' || src_[b] == '\t') && c == '.') ++b;
      if (b >= src_.size() || !(std::isalpha(static_cast<unsigned char>(src_[b])) || src_[b] == '_')) continue;
      size_t e = b;
      while (e < src_.size() && word(src_[e])) ++e;
      if (c != '.' && (e >= src_.size() || src_[e] != c)) continue;  // a string: the whole of it
      if (c == '.' && quiet.count(static_cast<uint32_t>(b))) continue;
      names.insert(src_.substr(b, e - b));
    }
    if (names.size() > kMaxAttributeNames) out.attribute_names = {"*"};
    else
      for (std::string_view n : names) out.attribute_names.emplace_back(n);
  }
  // Attributes stored on a project module (`config.batch_size = 32`, `config.epochs += 1`,
  // `setattr(config, k, v)`: "config.*"): one walk over the tree.
  {
    std::set<std::string> stores;
    auto module_object = [&](Node obj) -> std::string {
      obj = unparen(obj);
      if (!is(obj, "identifier") && !is(obj, "attribute")) return {};
      const std::string& q = qualified_name(obj);
      return q.empty() || starts_with(q, "builtins.") || !is_project_name(q) ? std::string{} : q;
    };
    // The node kinds the walk looks at, by symbol (one table read per node instead of three
    // kind names compared); children pushed without a list per node. The same nodes, in the same
    // order, as comparing kind() over named_children().
    enum : unsigned char { kOther, kAssignment, kCall };
    static const SymbolTable<unsigned char> store_kind(
        [](std::string_view k) -> unsigned char {
          return k == "assignment" || k == "augmented_assignment" ? kAssignment : k == "call" ? kCall : kOther;
        },
        kOther);
    std::vector<Node> stack{root_}, targets;
    while (!stack.empty()) {
      Node n = stack.back();
      stack.pop_back();
      const unsigned char sk = store_kind(n);
      if (sk == kAssignment) {
        targets.assign(1, field(n, "left"));
        while (!targets.empty()) {
          Node t = unparen(targets.back());
          targets.pop_back();
          if (is(t, "attribute")) {
            if (std::string q = module_object(field(t, "object")); !q.empty())
              stores.insert(q + "." + std::string(text(field(t, "attribute"))));
          } else if (is(t, "pattern_list") || is(t, "tuple_pattern") || is(t, "list_pattern")) {
            for (Node c : named_children(t)) targets.push_back(c);
          }
        }
      } else if (sk == kCall && callee_name(n) == "builtins.setattr") {
        if (std::string q = module_object(argument(n, 0, "")); !q.empty()) stores.insert(q + ".*");
      }
      for_each_named_child(n, [&](Node c) {
        stack.push_back(c);
        return true;
      });
    }
    if (stores.size() > 256) out.module_stores = {"*"};
    else out.module_stores.assign(stores.begin(), stores.end());
  }

  // Which parameters and calls a hot loop iterates, per epoch, under which keys (summary_params.cpp).
  const ParamIteration iteration = param_iteration();
  auto params_of = [&](int f) { return param_summaries(f, iteration); };
  // The methods each method calls on `self` (`self.process(x)`), at most 16 per method: O(calls).
  std::vector<std::vector<std::string>> self_calls(functions_.size());
  for (const CallSite& cs : calls_) {
    if (cs.caller < 0 || functions_[cs.caller].klass < 0 || self_calls[cs.caller].size() >= 16) continue;
    Node fn = unparen(field(cs.call, "function"));
    if (!is(fn, "attribute") || text(unparen(field(fn, "object"))) != "self") continue;
    std::string meth(text(field(fn, "attribute")));
    auto& list = self_calls[cs.caller];
    if (std::find(list.begin(), list.end(), meth) == list.end()) list.push_back(std::move(meth));
  }
  // The functions whose returns are not known to be CUDA: (function, index into out.functions),
  // given their TaintSources once the calls are listed.
  std::vector<std::pair<int, size_t>> returns_follow_of;
  // Other modules read trains_loop as "holds a loop of training steps or over a loader" (what
  // makes a loop around the call an epoch loop); a hot loop of forwards only (TD-MPC's planner)
  // leaves the caller's loop its own forwards as steps, as classify_loops reads this module's.
  // has_hot_loop keeps any hot loop (a function run once per pass: frame_hot_context).
  const std::vector<char> trains = training_loop_functions(nullptr);
  for (size_t f = 0; f < functions_.size(); ++f) {
    std::string name = local_name(static_cast<int>(f));
    if (name.empty()) continue;
    FunctionFacts facts;
    facts.method = bound_params(functions_[f]) == 1;
    facts.has_hot_loop = function_has_hot_loop_[f] != 0;
    facts.trains_loop = trains[f] != 0;
    facts.steps = function_steps_[0][f] != 0;
    facts.steps_forward = function_steps_[1][f] != 0;
    // A return that hands back a parameter of the function, as it is or prepared by a framework
    // (EasyContext's `prepare_dataloader(mode, loader, accelerator)`: `return loader` in some
    // modes, `return accelerator.prepare(loader)` in data_parallel): no loader of its own. A
    // caller's loader_origins then follows the loader it hands in (the wrapper path), whose
    // workers, pinning and batch size the returned loader has on every path.
    auto own_param = [&](Node e) {
      e = unparen(e);
      if (!is(e, "identifier")) return false;
      auto bindings = lookup(text(e), start(e));
      if (bindings.empty()) return false;
      for (const Binding* b : bindings)
        if (b->kind != Binding::Kind::Param || b->function != static_cast<int>(f) || b->param_index < 0 ||
            functions_[f].params[static_cast<size_t>(b->param_index)].is_variadic)
          return false;
      return true;
    };
    auto hands_back_param = [&](Node r) {
      r = unparen(r);
      if (own_param(r)) return true;
      if (!is(r, "call")) return false;
      Node fn = unparen(field(r, "function"));
      if (!is(fn, "attribute") || !FrameworkTable::get().is_prepare_method(text(field(fn, "attribute")))) return false;
      auto args = named_children(field(r, "arguments"));
      return args.size() == 1 && own_param(args[0]);
    };
    // A name holding a list or tuple display of loaders, or one filled by appending loaders
    // (maskrcnn-benchmark's make_data_loader: `return data_loaders[0]` when training, `return
    // data_loaders` otherwise; set J). Returned on one path beside a loader on another, the
    // callers cannot tell which they get: a loop over the result may iterate loaders, not
    // batches, so the result is no loader (as before an item of such a list was one, session 40).
    // O(values x (elements + appends)) per return.
    auto loader_container = [&](Node r) {
      r = unparen(r);
      if (!is(r, "identifier")) return false;
      for (const Value& v : values(r)) {
        Node d = v.kind == Value::Kind::Expr ? unparen(v.expr) : Node{};
        if (!is(d, "list") && !is(d, "tuple")) continue;
        for (Node e : named_children(d))
          if (!is(e, "comment") && !is(e, "list_splat") && is_loader_impl(e)) return true;
        Node t = display_detail::display_target(d);
        if (is_null(t)) continue;
        if (auto a = appends_.find({scope_at(start(t)), std::string(text(t))}); a != appends_.end())
          for (Node call : a->second)
            if (Node arg = argument(call, 0, ""); !is_null(arg) && is_loader_impl(arg)) return true;
      }
      return false;
    };
    AbstractType returned = AbstractType::bottom();
    bool loader_list_returned = false;
    for (Node r : functions_[f].returns) {
      returned = join(returned, types().type_of(r));
      facts.returns_cuda |= is_cuda(r);
      if (!hands_back_param(r)) facts.returns_loader |= is_loader_impl(r);
      facts.returns_module |= is_module_value(r);
      loader_list_returned = loader_list_returned || loader_container(r);
    }
    if (loader_list_returned) facts.returns_loader = false;
    // A generator yielding a loader's batches (yielded_loaders): its result is drawn or iterated
    // as that loader is (`data = load_data(...)`, then `next(data)` per step).
    if (!yielded_loaders(static_cast<int>(f)).empty()) facts.returns_loader = true;
    facts.returns_tensor = uses_cuda_ && returned.kind == AbstractType::Kind::Tensor && cuda_answer(returned) == CudaAnswer::Cuda;
    facts.ret_elem_cuda = returned_elements_cuda(static_cast<int>(f));
    facts.returns_class = types().class_name(returned);  // `get_model()` returns a `models.Net`
    if (facts.returns_class.empty() && returned.klass == -1 &&
        (returned.kind == AbstractType::Kind::Module || returned.kind == AbstractType::Kind::Object))
      for (Node r : functions_[f].returns) {  // one of several classes: `return A(...)` / `return B(...)`
        if (types().type_of(r).kind == AbstractType::Kind::None) continue;
        std::string c = types().class_names(r, TypeInference::Path{});
        facts.returns_class = c.empty() ? std::string{} : facts.returns_class.empty() ? c : union_join(facts.returns_class, c);
        if (facts.returns_class.empty()) break;
      }
    facts.returns_module |= returned.kind == AbstractType::Kind::Module;  // by its types: `model.module if p else model`
    facts.devkind = devkind_of(functions_[f].returns);
    // The attribute devices every return's object holds (intersected, CUDA winning).
    for (size_t r = 0; r < functions_[f].returns.size(); ++r) {
      auto held = object_attr_devices(functions_[f].returns[r]);
      if (r == 0) {
        facts.ret_attr_devices = std::move(held);
        continue;
      }
      std::vector<std::pair<std::string, int>> both;
      for (const auto& [attr, k] : facts.ret_attr_devices)
        for (const auto& [a2, k2] : held)
          if (a2 == attr && (k == k2 || k == 2 || k2 == 2)) both.push_back({attr, k == 2 || k2 == 2 ? 2 : k});
      facts.ret_attr_devices = std::move(both);
    }
    types().return_facts(static_cast<int>(f), facts);
    types().dependence_facts(static_cast<int>(f), facts);
    if (functions_[f].klass < 0) facts.registry = registry_of(functions_[f].node);
    facts.params = params_of(static_cast<int>(f));
    facts.batch_size_param = batch_size_param(static_cast<int>(f));
    facts.workers_param = loader_workers_param(*this, static_cast<int>(f));
    facts.returns_first_item = returns_first_item(static_cast<int>(f));
    facts.ret_loader_keys = returned_loader_keys(static_cast<int>(f));
    facts.ret_loader_dicts = returned_loader_dicts(static_cast<int>(f));
    facts.yields_built = yields_built(static_cast<int>(f));
    facts.returns_py_values = returns_python_values(static_cast<int>(f));
    // Every return an argparse namespace (`return parser.parse_args()` in a `configs.add_args(parser)`
    // helper): the values of the attributes this module's parsers declare travel with it.
    if (!argparse_args_.empty() && !functions_[f].returns.empty()) {
      bool ns = true;
      auto is_namespace = [&](const Value& x) { return namespace_value(x); };
      for (Node r : functions_[f].returns) {
        if (model_detail::returns_self_namespace(*this, r, is_namespace)) continue;
        auto vs = values(r);
        ns = ns && !vs.empty();
        for (const auto& v : vs) ns = ns && namespace_value(v);
        if (!ns) break;
      }
      if (ns) namespace_facts_of_parsers(facts);
      // Every return a parser built here (`return parser` of `parser = argparse.ArgumentParser(...)`):
      // its defaults travel for the modules parsing with it (FunctionFacts::returns_parser).
      bool parser = !ns;
      for (Node r : functions_[f].returns) {
        auto vs = values(r);
        parser = parser && !vs.empty();
        for (const auto& v : vs)
          parser = parser && v.kind == Value::Kind::Expr && is(unparen(v.expr), "call") &&
                   callee_name(unparen(v.expr)) == "argparse.ArgumentParser";
        if (!parser) break;
      }
      if (parser) {
        namespace_facts_of_parsers(facts);
        facts.returns_namespace = false;
        facts.returns_parser = true;
      }
    }
    facts.returns_mask = returns_mask(static_cast<int>(f), 0);
    if (functions_[f].klass >= 0) facts.self_calls = self_calls[f];
    if (!facts.returns_cuda) returns_follow_of.push_back({static_cast<int>(f), out.functions.size()});
    out.functions.push_back({std::move(name), std::move(facts)});
  }
  // The methods each class's methods call on `self` once per step, unamortized: O(calls).
  std::vector<std::vector<std::string>> hot_self_calls(classes_.size());
  for (const CallSite& cs : calls_) {
    if (cs.caller < 0 || functions_[cs.caller].klass < 0 || cs.lambda_depth > 0) continue;
    auto& list = hot_self_calls[static_cast<size_t>(functions_[cs.caller].klass)];
    Node fn = unparen(field(cs.call, "function"));
    if (list.size() >= 16 || !is(fn, "attribute") || text(unparen(field(fn, "object"))) != "self") continue;
    // Under no condition at all: a call the base runs only when a setting allows
    // (`if opt.debug > 0: self.debug(...)`, the setting unresolved in the base's module) is not
    // known to run per step.
    if (!cs.guards.empty()) continue;
    HotContext h = frame_hot_context(cs.caller, cs.loops, cs.guards, cs.guard_loop_depth, cs.lambda_depth);
    if (!h.hot || h.every != 0 || h.once_per_epoch || h.flag_guarded) continue;
    std::string meth(text(field(fn, "attribute")));
    if (std::find(list.begin(), list.end(), meth) == list.end()) list.push_back(std::move(meth));
  }
  // A module-level class: calling it constructs an instance (its __init__'s parameters).
  for (size_t c = 0; c < classes_.size(); ++c) {
    if (scopes_[classes_[c].scope].parent != 0) continue;
    FunctionFacts facts;
    facts.method = true;
    facts.returns_module = is_subclass_of(static_cast<int>(c), {"torch.nn.Module", "torch.nn.modules.module.Module"});
    auto init = classes_[c].methods.find("__init__");
    if (init != classes_[c].methods.end()) facts.params = params_of(init->second);
    types().class_facts(static_cast<int>(c), facts);
    for (const auto& b : classes_[c].bases)
      if (facts.bases.size() < 4 && b != "object" && !starts_with(b, "builtins.")) facts.bases.push_back(b);
    facts.registry = registry_of(classes_[c].node);
    // Only a class whose initializer leaves every option to the call (loader_class_ 1): one
    // that stores `self.num_workers` is a loader of another module's call that passes none.
    facts.loader_class = loader_class(static_cast<int>(c)) && loader_class_[c] == 1;
    if (facts.loader_class) facts.loader_positional = loader_positional_[c];
    facts.hot_self_calls = hot_self_calls[c];
    std::sort(facts.hot_self_calls.begin(), facts.hot_self_calls.end());
    {  // a subclass's stores reach another module's class; any class's tell what its instances hold
      const auto& stores = self_stores(static_cast<int>(c));
      if (stores.size() > 16) facts.self_stores = {"*"};  // the facts keep at most 16 names
      else facts.self_stores.assign(stores.begin(), stores.end());
    }
    out.functions.push_back({classes_[c].name, std::move(facts)});
  }
  // Module-level names bound once to a dict display of classes (`train_factory = {"ctdet":
  // CtdetTrainer, ...}`): a class of this module by its name, an imported one by its qualified
  // name; the table keeps the entry only when every value is a project class.
  std::vector<std::pair<std::string, FunctionFacts>> tables;
  for (const auto& [name, list] : scopes_[0].bindings) {
    if (list.size() != 1 || !list[0].is_plain_assign()) continue;
    Node d = unparen(list[0].value);
    if (!is(d, "dictionary") || classes_by_name_.count(name) || named_count(d) == 0 || named_count(d) > 8) continue;
    FunctionFacts facts;
    for (Node pair : named_children(d)) {
      Node v = is(pair, "pair") ? unparen(field(pair, "value")) : Node{};
      std::string written;
      if (!is_null(v) && is(v, "identifier") && classes_by_name_.count(std::string(text(v)))) {
        auto bindings = lookup(text(v), start(v));
        if (bindings.size() == 1 && bindings[0]->kind == Binding::Kind::Class) written = std::string(text(v));
      } else if (!is_null(v) && (is(v, "identifier") || is(v, "attribute"))) {
        written = qualified_name(v);
        if (starts_with(written, "builtins.") || !is_project_name(written)) written.clear();
      }
      if (written.empty()) {
        facts.table_classes.clear();
        break;
      }
      facts.table_classes.push_back(std::move(written));
    }
    if (!facts.table_classes.empty()) tables.push_back({name, std::move(facts)});
  }
  // A module-level parser (`parser = argparse.ArgumentParser(...)` bound once, opts.py's), which
  // other modules import to parse the command line themselves (`from opts import parser`;
  // `args = parser.parse_args()`): its entry carries this module's argparse defaults as a
  // namespace-returning function's does (SemanticModel::ext_namespaces; rec28b).
  if (!argparse_args_.empty())
    for (const auto& [name, list] : scopes_[0].bindings) {
      if (list.size() != 1 || !list[0].is_plain_assign()) continue;
      Node v = unparen(list[0].value);
      if (is_null(v) || !is(v, "call") || callee_name(v) != "argparse.ArgumentParser") continue;
      FunctionFacts facts;
      namespace_facts_of_parsers(facts);
      tables.push_back({name, std::move(facts)});
    }
  // A module-level name bound once to the namespace this module's parser parses from the command
  // line (`args = parser.parse_args()` in MGN-pytorch's option.py), which other modules import
  // (`from option import args`) and hand to their classes (`data.Data(args)`): its entry carries
  // the dests' values (defaults joined with this module's stores), as the parser's does, marked
  // as the namespace itself (FunctionFacts::namespace_object). A name also bound elsewhere in the
  // module (a `global` rebinding it) is none.
  if (!argparse_args_.empty())
    for (const auto& [name, list] : scopes_[0].bindings) {
      if (list.size() != 1 || !list[0].is_plain_assign()) continue;
      Node v = unparen(list[0].value);
      if (is_null(v) || !is(v, "call") || model_detail::method_of(v, src_) != "parse_args" || declared_global(name) ||
          !namespace_call(v))
        continue;
      FunctionFacts facts;
      namespace_facts_of_parsers(facts);
      if (facts.namespace_values.empty()) continue;
      facts.namespace_object = true;
      tables.push_back({name, std::move(facts)});
    }
  // Module-level names bound only to devices (`DEVICE = torch.device("cuda" if ... else "cpu")`):
  // what a module importing the name moves tensors to. And names bound only to host constants
  // by module-level assignments (`num_workers = 0`, `a, b = 8, 0`) that no `global` statement
  // rebinds: what `CFG.num_workers` reads in another module (the table drops them when a module
  // stores into the attribute).
  for (const auto& [name, list] : scopes_[0].bindings) {
    if (list.empty() || list.size() > kMaxCandidates || classes_by_name_.count(name)) continue;
    std::vector<Node> values;
    bool assigns = true, unpacked = false;
    for (const Binding& b : list) {
      if (b.kind != Binding::Kind::Assign || is_null(b.value)) {
        assigns = false;
        break;
      }
      unpacked |= b.unpack_index >= 0;
      values.push_back(b.value);
    }
    if (!assigns) continue;
    FunctionFacts facts;
    if (!unpacked) facts.devkind = devkind_of(values);
    if (!declared_global(name)) {
      bool constant = true;
      for (const Binding& b : list)
        for (const Value& v : binding_values(b)) {
          constant = constant && v.kind != Value::Kind::Unknown && v.kind != Value::Kind::Expr;
          ScalarFact f = to_scalar_fact(v);
          auto& cs = facts.const_values;
          if (constant && std::find(cs.begin(), cs.end(), f) == cs.end()) cs.push_back(std::move(f));
        }
      if (!constant || facts.const_values.size() > kMaxCandidates) facts.const_values.clear();
    }
    if (facts.devkind || !facts.const_values.empty()) tables.push_back({name, std::move(facts)});
  }
  // Class-level constants of a plain configuration class (`class Config(object): num_workers = 4`,
  // class_level_constant): a "Config.num_workers" entry with the values, what `opt.num_workers`
  // of an instance another module builds reads (class_constant_values).
  for (size_t c = 0; c < classes_.size(); ++c) {
    if (scopes_[classes_[c].scope].parent != 0) continue;
    for (const auto& [name, list] : scopes_[classes_[c].scope].bindings) {
      auto vs = model_detail::class_level_constant(*this, static_cast<int>(c), name, self_stores(static_cast<int>(c)),
                                                   [this](const Binding& b) { return binding_values(b); });
      if (vs.empty() || vs.size() > kMaxCandidates) continue;
      FunctionFacts facts;
      for (const Value& v : vs) {
        ScalarFact f = to_scalar_fact(v);
        if (std::find(facts.const_values.begin(), facts.const_values.end(), f) == facts.const_values.end())
          facts.const_values.push_back(std::move(f));
      }
      tables.push_back({classes_[c].name + "." + name, std::move(facts)});
    }
  }
  // Constants the initializer of such a class stores (`self.DATA_WORKERS = 8`, init_constant):
  // "Configuration.DATA_WORKERS" entries as well; and a module-level name bound once to an
  // instance of it (`cfg = Configuration()`, which other modules import: `from config import
  // cfg`) gets "cfg.DATA_WORKERS" entries with the class's constants (class-level or initializer),
  // which the project drops as it drops the class's when any module stores an attribute of the
  // name. O(self stores + module-level bindings x the class's constants).
  {
    auto init_names = init_store_names();
    std::vector<std::vector<std::pair<std::string, std::vector<ScalarFact>>>> consts(classes_.size());
    auto to_facts = [](const std::vector<Value>& vs) {
      std::vector<ScalarFact> out;
      for (const Value& v : vs) {
        ScalarFact f = to_scalar_fact(v);
        if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(std::move(f));
      }
      return out;
    };
    for (size_t c = 0; c < classes_.size(); ++c) {
      if (scopes_[classes_[c].scope].parent != 0) continue;
      for (const auto& [name, list] : scopes_[classes_[c].scope].bindings) {
        auto vs = model_detail::class_level_constant(*this, static_cast<int>(c), name, self_stores(static_cast<int>(c)),
                                                     [this](const Binding& b) { return binding_values(b); });
        if (!vs.empty() && vs.size() <= kMaxCandidates) consts[c].emplace_back(name, to_facts(vs));
      }
      for (const std::string& name : init_names[c]) {
        auto vs = init_constant(static_cast<int>(c), name);
        if (vs.empty() || vs.size() > kMaxCandidates) continue;
        FunctionFacts facts;
        facts.const_values = to_facts(vs);
        consts[c].emplace_back(name, facts.const_values);
        tables.push_back({classes_[c].name + "." + name, std::move(facts)});
      }
    }
    for (const auto& [name, list] : scopes_[0].bindings) {
      if (list.size() != 1 || !list[0].is_plain_assign() || declared_global(name) || classes_by_name_.count(name))
        continue;
      Node v = unparen(list[0].value);
      if (is_null(v) || !is(v, "call")) continue;
      Node fn = unparen(field(v, "function"));
      if (!is(fn, "identifier")) continue;
      auto cls = classes_by_name_.find(std::string(text(fn)));
      if (cls == classes_by_name_.end() || cls->second.size() != 1) continue;
      size_t c = static_cast<size_t>(cls->second[0]);
      if (scopes_[classes_[c].scope].parent != 0) continue;
      for (const auto& [attr, cs] : consts[c]) {
        FunctionFacts facts;
        facts.const_values = cs;
        tables.push_back({name + "." + attr, std::move(facts)});
      }
    }
  }
  std::sort(tables.begin(), tables.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& t : tables) out.functions.push_back(std::move(t));

  // A name every binding of which is a parameter of a method no call passes (no call site here,
  // none in another module: a class built dynamically, set AK Time-Series-Library's
  // `models/Koopa.py` `Model(configs)` that the experiments build through an importlib-backed dict,
  // whose `data_provider(configs, 'train')` hands on its `configs`), or a parameter whose every
  // call site here hands it such a name (at most 4 deep): what it holds is nothing a resolved
  // call passes, so the site adds nothing to the namespace join (ArgFacts::ns 3), as a launcher the
  // prefilter leaves out adds no call. Methods only: a function may be a callback or an entry
  // point handed to a library (`fire.Fire(main)`).
  std::function<bool(Node, int)> uncalled_param = [&](Node a, int depth) -> bool {
    a = unparen(a);
    if (depth > 4 || !is(a, "identifier")) return false;
    auto bindings = lookup(text(a), start(a));
    if (bindings.empty() || bindings.size() > kMaxCandidates) return false;
    for (const Binding* b : bindings) {
      if (b->kind != Binding::Kind::Param || b->function < 0) return false;
      const Function& fn = functions_[b->function];
      if (b->param_index < 0 || static_cast<size_t>(b->param_index) >= fn.params.size()) return false;
      const Param& p = fn.params[b->param_index];
      int position = b->param_index - bound_params(fn);
      if (fn.klass < 0 || p.is_variadic || !is_null(p.default_value) || position < 0) return false;
      if (const ArgFacts* ext = ext_param(b->function, b->param_index, fact::kValues); ext && (ext->passed || ext->defaulted))
        return false;
      for (int ci : init_sites(b->function))
        if (!uncalled_param(argument(calls_[ci].call, p.keyword_only ? -1 : position, p.name), depth + 1)) return false;
    }
    return true;
  };
  auto arg_facts = [&](Node a, Node site_call, bool dead) {
    ArgFacts f;
    f.passed = true;
    f.cuda = is_cuda(a);
    f.module = is_module_value(a);
    f.loader = is_loader_impl(a);
    f.batch = is_batch_impl(a) && !is_cuda(a);
    f.step = is_step_data(a);
    f.device_cuda = device_kind(a) == DeviceKind::Cuda;
    f.attr_devices = object_attr_devices(a);
    AbstractType t = types().type_of(a);
    f.module |= t.kind == AbstractType::Kind::Module;  // `model` after `model = model.to(device)`
    f.tensor = t.kind == AbstractType::Kind::Tensor && cuda_answer(t) == CudaAnswer::Cuda;
    // A value of unknown type leaves the others' answer ("may be CUDA" holds if one caller's does).
    f.untyped = !f.tensor && t.kind != AbstractType::Kind::Unknown && t.kind != AbstractType::Kind::Bottom;
    // The type itself (a Bottom, met in a cycle, is unknown here); a class index does not travel.
    f.type_kind = static_cast<int>(t.kind == AbstractType::Kind::Bottom ? AbstractType::Kind::Unknown : t.kind);
    f.type_device = static_cast<int>(t.device);
    f.klass = types().class_name(t);  // an instance of a project class: its class travels
    // One of several project classes whose join lost the class (a name bound in the branches of
    // an if to instances of two criteria, PIDNet's OhemCrossEntropy or CrossEntropy): the union.
    if (f.klass.empty() && t.klass == -1 && (t.kind == AbstractType::Kind::Module || t.kind == AbstractType::Kind::Object))
      f.klass = types().class_names(a, TypeInference::Path{});
    if (f.klass.empty()) f.klass = "?";
    // An instance of a framework class (an Accelerator): its class travels, as a return's does.
    f.framework = t.kind == AbstractType::Kind::Object && t.framework >= 0
                      ? std::string(FrameworkTable::get().class_name(t.framework))
                      : std::string("?");
    // A function handed by name (ArgFacts::func): an imported project function by its canonical
    // name, or a module-level function of this module (every value of the name that one `def`).
    // `None` hands no function (as the parameter's default does): "".
    f.func = is(unparen(a), "none") ? "" : "?";
    if (Node u = unparen(a); facts_ && is(u, "identifier") && text(u) != "self") {
      auto bs = lookup(text(u), start(u));
      bool imports = !bs.empty() && bs.size() <= kMaxCandidates;
      for (const Binding* b : bs) imports = imports && b->kind == Binding::Kind::Import;
      std::string name;
      if (imports && bs.size() == 1) {
        name = facts_->canonical(qualified_name(u));
      } else if (!imports) {
        int found = -1;
        for (const auto& v : values(u)) {
          int fi = v.kind == Value::Kind::Expr && is(v.expr, "function_definition") ? function_of(v.expr) : -1;
          if (fi < 0 || (found >= 0 && fi != found)) {
            found = -2;
            break;
          }
          found = fi;
        }
        if (found >= 0 && functions_[found].klass < 0 && scopes_[functions_[found].scope].parent == 0)
          name = facts_->canonical(functions_[found].name, true);
      }
      if (!name.empty()) f.func = name;
    }
    // An argument of a call in a branch that never runs (`if args.use_cached:` of a store_true
    // flag left False), unknown there because no binding reaches dead code (`moments = samples`
    // under the flag): it types nothing (Bottom, no class), so the live call sites' types decide
    // (mar's `DiagonalGaussianDistribution(moments)` of the CUDA encoder output). Its other facts
    // stay, as before.
    if (dead && t.kind == AbstractType::Kind::Unknown) {
      f.type_kind = static_cast<int>(AbstractType::Kind::Bottom);
      f.type_device = 0;
      f.klass.clear();
      f.framework.clear();
      f.func.clear();
    }
    // A tuple display: the taint of each element (`fn(dn_args=(targets, self.dn_number))`).
    // Also a name every binding of which is such a display, all of one length, that its scope
    // never changes (`models = [nerf_coarse, nerf_fine]; render_rays(models, ...)`:
    // display_detail::unmutated_displays): each element joined over those displays.
    std::vector<Node> held;
    if (is(unparen(a), "identifier"))
      held = display_detail::unmutated_displays(*this, a);
    if (std::any_of(held.begin(), held.end(), [&](Node d) { return named_count(d) != named_count(held[0]); }))
      held.clear();  // displays of different lengths: no element-wise answer
    if (!held.empty()) {
      for (Node d : held) {
        size_t i = 0;
        for (Node e : named_children(d)) {
          if (is(e, "comment")) continue;
          AbstractType et = types().type_of(e);
          if (et.kind == AbstractType::Kind::Bottom) et = AbstractType::unknown();
          char c = is_cuda(e) ? 1 : 0;
          if (i >= f.elem_types.size()) {
            f.elem_cuda.push_back(c);
            f.elem_types.push_back({static_cast<int>(et.kind), static_cast<int>(et.device)});
          } else {
            f.elem_cuda[i] = static_cast<char>(f.elem_cuda[i] | c);
            AbstractType j = python::join(TypeInference::from_fact(f.elem_types[i].first, f.elem_types[i].second), et);
            f.elem_types[i] = {static_cast<int>(j.kind), static_cast<int>(j.device)};
          }
          ++i;
        }
      }
    } else if (Node u = unparen(a); (is(u, "tuple") || is(u, "list")) && named_count(u) >= 1 && named_count(u) <= 8) {
      for (Node e : named_children(u)) {
        if (is(e, "list_splat") || is(e, "comment")) {
          f.elem_cuda.clear();
          f.elem_types.clear();
          break;
        }
        f.elem_cuda.push_back(is_cuda(e) ? 1 : 0);
        AbstractType et = types().type_of(e);
        if (et.kind == AbstractType::Kind::Bottom) et = AbstractType::unknown();
        f.elem_types.push_back({static_cast<int>(et.kind), static_cast<int>(et.device)});
      }
    } else {
      // A name bound to a tuple, a call returning one (`batch = to_device(batch, device)`): the
      // elements' taint where known (elements_cuda), their types not.
      f.elem_cuda = elements_cuda(a);
    }
    f.elems_mixed = f.elem_cuda.empty();
    std::vector<ScalarFact> vs;
    // Scalar values flow one call deep: a parameter handed on is unknown to the next module
    // (a chain of rounds along every call path otherwise).
    bool through_param = false;
    if (is(unparen(a), "identifier"))
      for (const Binding* b : lookup(text(unparen(a)), start(a))) through_param |= b->kind == Binding::Kind::Param;
    if (through_param) vs.push_back(ScalarFact{});
    else
      for (const auto& v : values(a)) vs.push_back(to_scalar_fact(v));
    ArgFacts vals;
    vals.values = std::move(vs);
    f.join(vals);
    // An argparse namespace: its attributes' values travel (ArgFacts::ns_values), also when it
    // is a parameter here that other modules hand one (`get_data(args)` -> `get_imagenet(args)`).
    f.ns = namespace_facts(a, f.ns_values) ? 1 : uncalled_param(a, 0) ? 3 : 2;
    if (dead && f.ns == 1) drop_contradicted_dests(site_call, a, f.ns_values);
    // A dict of settings: its literal keys' values travel (ArgFacts::dict_values). Also a
    // parameter here that only this file's calls pass, each a name holding such a dict (session
    // 37, set BE DIS: valid(..., hypar) hands its parameter to basics.f1_mae_torch): its values
    // are this module's own (dict_facts needs every one a display; another module's sites would
    // give scalars), so no round of another module's facts feeds them.
    f.dict = dict_facts(a, f.dict_values) ? 1 : 2;
    // A dict holding loaders under literal keys (ArgFacts::loader_keys).
    if (Node u = unparen(a); is(u, "identifier") || is(u, "dictionary") || is(u, "call")) {
      std::set<std::string> keys;
      for (const auto& [key, item] : dict_entries(u).items)
        if (keys.size() < kMaxLoaderKeys && !keys.count(key) && is_loader_impl(item)) keys.insert(key);
      // A dict of loaders another module's function returns (`dataloaders = utils.get_loaders(args)`).
      for (const auto& key : ext_returned_loader_keys(u))
        if (keys.size() < kMaxLoaderKeys) keys.insert(key);
      f.loader_keys.assign(keys.begin(), keys.end());
    }
    // The values its elements may take (a tuple of strings a dispatch loop reads).
    std::vector<ScalarFact> evs;
    for (const auto& v : element_values(a)) evs.push_back(to_scalar_fact(v));
    join_scalars(f.elem_values, evs);
    return f;
  };
  const auto per_epoch_results = results_iterated_per_epoch();
  // `samples = samples.to(device)` in a loop over a loader whose batch is not a tensor by its
  // type (DETR's NestedTensor built by the collate_fn): the batch object's own `to`/`cuda`, a
  // method of a project class this module cannot name. A call of "*.to" ("*.cuda"): the project
  // binds it to the methods of that name of its classes that are not nn.Modules (FactsTable), the
  // receiver a host batch, so the copies in the method are the step's (detr22).
  auto batch_object_move = [&](Node call) -> std::string {
    Node fn = unparen(field(call, "function"));
    if (!is(fn, "attribute")) return {};
    auto method = text(field(fn, "attribute"));
    if (method != "to" && method != "cuda") return {};
    Node obj = unparen(field(fn, "object"));
    if (!is(obj, "identifier") || text(obj) == "self") return {};
    if (!is_batch_value(obj) || is_cuda(obj)) return {};
    auto k = types().type_of(obj).kind;
    if (k != AbstractType::Kind::Unknown && k != AbstractType::Kind::Object) return {};
    return "*." + std::string(method);
  };
  // The argument nodes of each outgoing call made by a named function, and the outgoing call of
  // each call node that gives exactly one (taint_sources).
  std::vector<std::pair<size_t, ArgNodes>> arg_nodes;
  std::unordered_map<const void*, size_t> call_out;
  std::unordered_map<int, bool> uncalled_callers;  // unrun_function per caller, once
  for (size_t ci = 0; ci < calls_.size(); ++ci) {
    const void* cs_call_id = calls_[ci].call.id;
    size_t emitted = 0;
    std::string names = ci < ext_name_.size() ? ext_name_[ci] : external_name(static_cast<int>(ci));
    if (names.empty()) names = batch_object_move(calls_[ci].call);
    if (names.empty()) names = unknown_module_method(calls_[ci].call);
    if (names.empty()) {
      // `factory[key](...)`, `C = factory[key]; C(...)` with `factory` a project name not (yet)
      // known as a dict of classes: a reference, so that the project analyzes its module (one
      // without torch and loops is left out otherwise) and this one learns what it holds.
      std::string ref = table_reference(calls_[ci].call);
      if (!ref.empty() && is_project_name(ref)) {
        OutgoingCall oc;
        oc.callee = std::move(ref);
        oc.line = ts_node_start_point(calls_[ci].call).row + 1;
        out.calls.push_back(std::move(oc));
      }
      continue;
    }
    // A call of one of several project functions (a class union, a registry lookup): a call of each.
    std::vector<std::string> members = union_members(names);
    // A name bound by several imports of different project functions (benchmarking-gnns's
    // `from train.train_SBMs import train_epoch_dense as train_epoch` in one branch and
    // `... train_epoch_sparse as train_epoch` in the other; set AH, rec28b): qualified_name()
    // names the first one written, and the call may run each, so each gets the call (as a type
    // checker joins the declarations). Only the first written counts for the call's own
    // outgoing index (call_out), as before.
    const size_t primary = members.size();
    if (Node fn = unparen(field(calls_[ci].call, "function"));
        is(fn, "identifier") && members.size() == 1 && is_project_name(members[0])) {
      auto bindings = lookup(text(fn), start(fn));
      bool all_imports = bindings.size() > 1 && bindings.size() <= kMaxCandidates;
      for (const Binding* b : bindings) all_imports = all_imports && b->kind == Binding::Kind::Import;
      if (all_imports)
        for (const Binding* b : bindings)
          if (!b->qualified.empty() && std::find(members.begin(), members.end(), b->qualified) == members.end())
            members.push_back(b->qualified);
    }
    size_t primary_index = 0;
    for (size_t mi = 0; mi < members.size(); ++mi) {
      std::string& name = members[mi];
      if (name.empty() || (!starts_with(name, "*.") && !starts_with(name, "%.") && !is_project_name(name))) continue;
      const CallSite& cs = calls_[ci];
      OutgoingCall oc;
      oc.callee = std::move(name);
      oc.line = ts_node_start_point(cs.call).row + 1;
      HotContext h = frame_hot_context(cs.caller, cs.loops, cs.guards, cs.guard_loop_depth, cs.lambda_depth);
      oc.hot = h.hot;
      oc.every = h.every;
      oc.once_per_epoch = h.once_per_epoch;
      oc.flag_guarded = h.flag_guarded;
      // A call in an out-of-memory handler runs on a failure, not per step (rules/SY004.md).
      const bool oom_handler = model_detail::in_oom_handler(cs.call, src_);
      if (oom_handler) oc.once_per_epoch = true;
      oc.in_loop = !cs.loops.empty() || function_called_in_loop(cs.caller);
      oc.caller = local_name(cs.caller);
      rebuild_context(cs, oc.rebuilds, oc.rebuilds_if_caller);
      if (!h.hot && cs.lambda_depth == 0 && cs.caller >= 0) {
        // Hot when its function is: as frame_hot_context for a function without a hot loop here.
        bool in_hot_loop = false;
        for (int l : cs.loops) in_hot_loop |= loops_[l].kind == LoopKind::Hot;
        if (!in_hot_loop && !oc.caller.empty()) {
          HotContext g;
          g.hot = true;
          apply_guards(g, cs.guards, 0, Node{});
          oc.hot_if_caller = true;
          oc.caller_every = g.every;
          oc.caller_once_per_epoch = g.once_per_epoch || oom_handler;
          oc.caller_flag_guarded = g.flag_guarded;
        }
      }
      oc.result_feeds_training = iteration.iterated_calls.count(cs.call.id) != 0;
      if (auto it = per_epoch_results.find(cs.call.id); it != per_epoch_results.end()) oc.result_per_epoch = it->second;
      if (iteration.epoch_calls.count(cs.call.id)) oc.result_per_epoch |= kWholeResult;
      if (auto it = iteration.iterated_elements.find(cs.call.id); it != iteration.iterated_elements.end())
        oc.result_fed = it->second;
      // Elements handed on to callers in other modules whose hot loops iterate them.
      if (const IncomingCalls* in = cs.caller >= 0 && facts_ ? facts_->incoming(local_name(cs.caller), fact::kResult) : nullptr;
          in && in->result_fed)
        oc.result_fed |= handed_on_elements(ci, in->result_fed);
      if (auto it = iteration.attrs_iterated.find(cs.call.id); it != iteration.attrs_iterated.end()) {
        oc.attrs_fed = it->second;
        std::sort(oc.attrs_fed.begin(), oc.attrs_fed.end());
      }
      ArgNodes nodes;
      nodes.caller = cs.caller;
      const bool dead = guards_dead(model_detail::branch_guards(cs.call));
      oc.dead = dead_call(cs, dead);
      // A site in a function that never runs (a function of a script that nothing calls:
      // diffpool's benchmark_task beside the script's `__main__` entry, building
      // SoftPoolingGcnEncoder with a namespace no caller gives values) hands its callee no values:
      // the other sites' decide the guards on the parameter (session 39). Its other facts stay,
      // as before; a site under a guard known False keeps its values, as before.
      bool unrun = false;
      if (cs.caller >= 0) {
        auto [u, fresh_caller] = uncalled_callers.try_emplace(cs.caller, false);
        if (fresh_caller) u->second = unrun_function(cs.caller);
        unrun = u->second;
      }
      auto site_facts = [&](Node a) {
        ArgFacts f = arg_facts(a, cs.call, dead);
        if (unrun) f.values.clear();
        // A site under a guard known False never runs: whatever its argument's type, it types
        // nothing (Bottom, as an unknown one already did), so where the callee's module has call
        // sites of its own they decide (TypeInference: a helper whose own `__main__` check hands a
        // host tensor computes on the host), and it hands no deferred taint (taint_sources skips
        // it): set BK e3_diffusion utils.py's random_rotation under `if args.data_augmentation:`,
        // default False (session 40). Its `cuda` and `tensor` facts are kept: clearing them too
        // lost findings elsewhere (set G's stylegan2, bk40's first version).
        if (oc.dead) {
          f.type_kind = static_cast<int>(AbstractType::Kind::Bottom);
          f.type_device = 0;
          f.klass.clear();
          f.framework.clear();
          f.func.clear();
        }
        return f;
      };
      for (auto a : named_children(field(cs.call, "arguments"))) {
        auto k = kind(a);
        if (k == "keyword_argument" || k == "dictionary_splat" || k == "comment") continue;
        if (k == "list_splat") {
          oc.splat = true;
          break;
        }
        oc.positional.push_back(site_facts(a));
        nodes.positional.push_back(a);
      }
      Kwargs kw = keyword_arguments(cs.call);
      if (!kw.complete) oc.splat = true;
      // What the splats spread: CUDA elements make the parameters they bind maybe CUDA.
      for (auto a : named_children(field(cs.call, "arguments")))
        if ((is(a, "list_splat") || is(a, "dictionary_splat")) && is_cuda(named_child(a, 0))) {
          oc.splat_cuda = true;
          oc.star_cuda |= is(a, "list_splat");
        }
      for (const auto& [key, value] : kw.items) {
        oc.keywords.push_back({key, site_facts(value)});
        nodes.keywords.push_back(value);
      }
      if (!oc.caller.empty()) arg_nodes.push_back({out.calls.size(), std::move(nodes)});
      if (mi < primary) {
        ++emitted;
        primary_index = out.calls.size();
      }
      out.calls.push_back(std::move(oc));
    }
    if (emitted == 1) call_out[cs_call_id] = primary_index;
  }
  taint_sources(out, arg_nodes, returns_follow_of, call_out);
  out.module_reads.assign(module_reads_.begin(), module_reads_.end());
  return out;
}

// What a value's CUDA taint certainly follows (speed15; FunctionFacts::returns_follow,
// OutgoingCall::positional_follow): a mirror of is_cuda_impl restricted to the steps where the
// taint of an operand is the value's (arithmetic, conditional branches, subscripts, names bound
// to such expressions, a few tensor methods, a call of another module's function whose return is
// CUDA when an argument is or when its facts say so), ending at the function's parameters and at
// the returns of the module's outgoing calls. An expression whose type already decides is left
// out (CUDA: nothing to relay; host: not CUDA whatever its operands). Each node is visited once
// per summary (memoized; a cycle contributes nothing): O(nodes) per module.
void SemanticModel::taint_sources(ModuleSummary& out, const std::vector<std::pair<size_t, ArgNodes>>& arg_nodes,
                                  const std::vector<std::pair<int, size_t>>& returns_of,
                                  const std::unordered_map<const void*, size_t>& call_out) const {
  struct Found {
    std::vector<std::pair<int, int>> params;  // (function, parameter index)
    std::vector<size_t> calls;                // outgoing call indices
  };
  std::unordered_map<const void*, Found> memo;
  static const Found kNone;
  // While the classes' attribute sources are gathered (FunctionFacts::attr_sources): the class
  // whose `self.x` reads the walk follows into the stores of `self.x` (-1: it does not).
  int self_class = -1;
  // Tensor methods whose result lives where the tensor does (none of is_cuda_impl's host methods).
  static const std::set<std::string, std::less<>> passing = {
      "view", "reshape", "float", "half", "double", "bfloat16", "long", "int", "bool", "contiguous", "permute",
      "transpose", "flatten", "unsqueeze", "squeeze", "clone", "detach", "mean", "sum", "softmax", "sigmoid",
      "relu", "exp", "sqrt", "abs", "clamp", "expand", "expand_as", "repeat", "chunk", "split", "type_as",
      "masked_fill", "mul", "add", "sub", "div", "matmul", "norm", "max", "min", "argmax", "t", "pow"};
  std::function<const Found&(Node, int)> walk = [&](Node e, int depth) -> const Found& {
    e = unparen(e);
    if (is_null(e) || depth > 24) return kNone;
    auto [slot, fresh] = memo.try_emplace(e.id);
    if (!fresh) return slot->second;  // done, or in progress (a cycle: nothing)
    if (types().cuda(e) != CudaAnswer::Undecided) return slot->second;
    Found got;
    auto add = [&](Node n) {
      const Found& f = walk(n, depth + 1);
      got.params.insert(got.params.end(), f.params.begin(), f.params.end());
      got.calls.insert(got.calls.end(), f.calls.begin(), f.calls.end());
    };
    auto k = kind(e);
    if (k == "identifier") {
      auto bindings = lookup(text(e), start(e));
      if (bindings.size() <= kMaxCandidates)
        for (const Binding* b : bindings) {
          if (b->kind == Binding::Kind::Param) {
            if (b->function >= 0 && b->param_index >= 0 &&
                !functions_[b->function].params[static_cast<size_t>(b->param_index)].is_variadic)
              got.params.push_back({b->function, b->param_index});
          } else if (b->kind == Binding::Kind::Assign || b->kind == Binding::Kind::With) {
            if (b->unpack_index < 0) {
              add(b->value);
            } else if (Node v = unparen(b->value);
                       (is(v, "tuple") || is(v, "expression_list") || is(v, "list")) &&
                       b->unpack_index < static_cast<int>(named_count(v))) {
              add(named_child(v, static_cast<uint32_t>(b->unpack_index)));
            }
          } else if (b->kind == Binding::Kind::AugAssign) {
            add(field(b->value, "right"));
          }
        }
    } else if (k == "subscript") {
      // `targets[0]` of a tuple whose element 0 is host (elements_cuda): it follows nothing.
      Node index = unparen(field(e, "subscript"));
      auto c = is(index, "integer") ? constant(index) : std::nullopt;
      std::vector<char> elems;
      if (c && c->kind == Value::Kind::Int && c->i >= 0) elems = elements_cuda(field(e, "value"));
      if (!(c && c->kind == Value::Kind::Int && c->i >= 0 && static_cast<size_t>(c->i) < elems.size() &&
            elems[static_cast<size_t>(c->i)] == 0))
        add(field(e, "value"));
    } else if (k == "binary_operator") {
      if (!(text(field(e, "operator")) == "%" && is_str_expr(field(e, "left")))) {
        add(field(e, "left"));
        add(field(e, "right"));
      }
    } else if (k == "unary_operator") {
      add(field(e, "argument"));
    } else if (k == "conditional_expression") {
      auto parts = named_children(e);
      if (parts.size() == 3) {
        add(parts[0]);
        add(parts[2]);
      }
    } else if (k == "boolean_operator") {
      add(field(e, "left"));
      add(field(e, "right"));
    } else if (k == "list" || k == "tuple" || k == "expression_list") {
      for (Node c : named_children(e)) add(is(c, "list_splat") ? named_child(c, 0) : c);
    } else if (k == "attribute" && self_class >= 0) {
      // `self.sum` in a method of the class (or of a base of it here): what its stores follow,
      // `self.sum = v` and `self.sum += v` in the methods of the class and its bases here.
      Node obj = unparen(field(e, "object"));
      const int fn = is(obj, "identifier") && text(obj) == "self" ? function_at(start(e)) : -1;
      if (fn >= 0 && functions_[fn].klass >= 0) {
        const std::string attr(text(field(e, "attribute")));
        auto mro = model_detail::class_mro(classes_, classes_by_name_, self_class);
        for (size_t i = 0; i < mro.size() && i < 16; ++i) {
          const std::string key = classes_[mro[i]].name + "." + attr;
          if (auto st = self_stores(key); st.size() <= kMaxCandidates)
            for (int ai : st) add(self_assignments_[static_cast<size_t>(ai)].second);
          if (auto aug = self_augmented_.find(key); aug != self_augmented_.end() && aug->second.size() <= kMaxCandidates)
            for (Node v : aug->second) add(v);
        }
      }
    } else if (k == "call") {
      Node fn = unparen(field(e, "function"));
      auto targets = callees(e);
      const FunctionFacts* ext = targets.empty() ? ext_callee_of(e, fact::kReturnsCuda | fact::kReturnDep) : nullptr;
      if (!targets.empty()) {
        // A function of this module: its return's dependence on the arguments, where known.
        for (int f : targets) {
          const ReturnDependence& d = types().return_dependence(f);
          if (!d.known) continue;
          std::vector<Node> args;
          for (const auto& use : d.uses) {
            if (use.moved) continue;  // moved to CUDA: CUDA whatever the argument
            Node a = types().site_argument(f, use.param, e);
            if (!is_null(a) && use.called) {
              bool nothing = false;
              a = called_result(a, nothing);
              if (nothing) continue;
            }
            if (is_null(a)) {
              args.clear();
              break;
            }
            args.push_back(a);
          }
          for (Node a : args) add(a);
        }
      } else if (ext) {
        // Another module's function: what it returns with these arguments, or its return facts.
        if (auto args = dep_site_arguments(*ext, e)) {
          for (Node a : *args) add(a);
        } else if (auto it = call_out.find(e.id); it != call_out.end()) {
          got.calls.push_back(it->second);
        }
      } else if (is(fn, "attribute")) {
        std::string_view m = text(field(fn, "attribute"));
        std::string q = qualified_name(fn);
        if (passing.count(m) && !starts_with(q, "torch.") && !starts_with(q, "numpy.") &&
            !starts_with(q, "builtins.") && !starts_with(q, "math."))
          add(field(fn, "object"));
      }
    }
    std::sort(got.params.begin(), got.params.end());
    got.params.erase(std::unique(got.params.begin(), got.params.end()), got.params.end());
    std::sort(got.calls.begin(), got.calls.end());
    got.calls.erase(std::unique(got.calls.begin(), got.calls.end()), got.calls.end());
    if (got.params.size() > 16) got.params.resize(16);
    if (got.calls.size() > 16) got.calls.resize(16);
    Found& at = memo[e.id];  // references into the map stay valid
    at = std::move(got);
    return at;
  };
  auto sources = [&](Node e, int function) {
    TaintSources t;
    const Found& f = walk(e, 0);
    for (auto [fn, p] : f.params)
      if (fn == function) t.params.push_back(p);
    for (size_t c : f.calls) t.calls.push_back(static_cast<int>(c));
    return t;
  };
  for (const auto& [index, nodes] : arg_nodes) {
    OutgoingCall& oc = out.calls[index];
    if (oc.dead) continue;  // a site that never runs hands no taint
    auto fill = [&](std::vector<TaintSources>& follow, size_t i, const ArgFacts& facts, Node a) {
      if (facts.cuda) return;
      TaintSources t = sources(a, nodes.caller);
      if (t.empty()) return;
      follow.resize(std::max(follow.size(), i + 1));
      follow[i] = std::move(t);
    };
    for (size_t i = 0; i < nodes.positional.size() && i < oc.positional.size(); ++i)
      fill(oc.positional_follow, i, oc.positional[i], nodes.positional[i]);
    for (size_t i = 0; i < nodes.keywords.size() && i < oc.keywords.size(); ++i)
      fill(oc.keyword_follow, i, oc.keywords[i].second, nodes.keywords[i]);
  }
  for (auto [f, index] : returns_of) {
    TaintSources t;
    for (Node r : functions_[f].returns) {
      TaintSources s = sources(r, f);
      t.params.insert(t.params.end(), s.params.begin(), s.params.end());
      t.calls.insert(t.calls.end(), s.calls.begin(), s.calls.end());
    }
    std::sort(t.params.begin(), t.params.end());
    t.params.erase(std::unique(t.params.begin(), t.params.end()), t.params.end());
    std::sort(t.calls.begin(), t.calls.end());
    t.calls.erase(std::unique(t.calls.begin(), t.calls.end()), t.calls.end());
    out.functions[index].second.returns_follow = std::move(t);
  }
  // Each module-level class's attributes (its "Class" entry's self_stores): the parameters of its
  // methods (and its bases' here) that their stores follow. O(the stores' expressions) per class.
  for (auto& [name, facts] : out.functions) {
    if (!facts.is_class || facts.self_stores.empty() || facts.self_stores[0] == "*") continue;
    auto found = classes_by_name_.find(name);
    if (found == classes_by_name_.end()) continue;
    int c = -1;
    for (int ci : found->second)
      if (scopes_[classes_[static_cast<size_t>(ci)].scope].parent == 0) c = ci;
    if (c < 0) continue;
    memo.clear();
    self_class = c;
    auto mro = model_detail::class_mro(classes_, classes_by_name_, c);
    std::set<int> in_mro(mro.begin(), mro.end());
    std::vector<FunctionFacts::AttrSource> got;
    for (const std::string& attr : facts.self_stores) {
      std::vector<std::pair<int, int>> params;
      for (size_t i = 0; i < mro.size() && i < 16; ++i) {
        const std::string key = classes_[mro[i]].name + "." + attr;
        auto take = [&](Node v) {
          const Found& f = walk(v, 0);
          params.insert(params.end(), f.params.begin(), f.params.end());
        };
        if (auto st = self_stores(key); st.size() <= kMaxCandidates)
          for (int ai : st) take(self_assignments_[static_cast<size_t>(ai)].second);
        if (auto aug = self_augmented_.find(key); aug != self_augmented_.end() && aug->second.size() <= kMaxCandidates)
          for (Node v : aug->second) take(v);
      }
      // A parameter other than self of a method of the class or of a base here.
      for (auto [fn, p] : params)
        if (p > 0 && fn >= 0 && functions_[fn].klass >= 0 && in_mro.count(functions_[fn].klass) &&
            bound_params(functions_[fn]) == 1)
          got.push_back({attr, functions_[fn].name, p});
    }
    std::sort(got.begin(), got.end());
    got.erase(std::unique(got.begin(), got.end()), got.end());
    if (got.size() > 32) got.clear();  // too many to say: none (the member stays unknown)
    facts.attr_sources = std::move(got);
  }
  self_class = -1;
}

}  // namespace stoker::python
