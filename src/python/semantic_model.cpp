// The semantic model's construction: the passes in order (see "Python semantic model" in
// docs/architecture.md for the files each pass lives in) and the resolution bound.
#include "python/model_internal.h"
#include "python/symbol_table.h"

#include "python/types.h"

namespace stoker::python {

using namespace model_detail;

const std::vector<int> SemanticModel::kNoCallers;

const unsigned char* walk_detail::classes() {
  static const SymbolTable<unsigned char> table(
      [](std::string_view k) -> unsigned char {
        if (k == "for_statement" || k == "while_statement" || is_comprehension_kind(k)) return Loop;
        if (k == "function_definition") return Function;
        if (k == "if_statement" || k == "elif_clause") return If;
        if (k == "else_clause") return Else;
        if (k == "lambda") return Lambda;
        if (k == "conditional_expression") return Conditional;
        return Plain;
      },
      Plain);
  return table.data();
}

uint32_t walk_detail::symbol_count() { return ts_language_symbol_count(tree_sitter_python()); }

SemanticModel::Step::Step(const SemanticModel& m) : m_(m) {
  if (m.budget_ && ++m.work_ > m.budget_) throw BudgetExceeded();
  if (!m.budget_) ++m.work_;
  ok_ = m.active_depth_ < kMaxActiveDepth;
  if (ok_) ++m.active_depth_;
}

SemanticModel::SemanticModel(std::string_view src, Node root, const Settings& settings, const ExternalFacts* facts)
    : facts_(facts), src_(src), root_(root), settings_(settings), budget_(settings.analysis_budget) {
  collect();
  std::vector<int> order(scopes_.size());
  for (size_t i = 0; i < scopes_.size(); ++i) {
    Node n = scopes_[i].node;
    uint32_t s = i == 0 ? 0
                 : scopes_[i].kind == Scope::Kind::Function ? start(field(n, "parameters"))
                                                              : start(field(n, "body"));
    scope_start_.push_back(s);
    scope_end_.push_back(i == 0 ? UINT32_MAX : end(n));
  }
  build_indexes();
  resolve_calls();
  resolve_external_calls();
  // Values read while the call graph was being built saw it half made (a parameter whose call
  // sites were not yet resolved read as unknown, e.g. through `args.model.replace(...)`): drop
  // them so that every later query sees all call sites.
  values_cache_.clear();
  param_cache_.clear();
  elem_values_cache_.clear();
  kwargs_cache_.clear();
  argparse_cache_.clear();
  namespace_cache_.clear();
  ext_namespaces_.clear();
  ext_namespaces_built_ = false;
  namespace_params_.clear();
  namespace_tables_.clear();
  index_calls();
  // Values read while calls were being resolved saw only part of the call sites (a parameter's
  // values come from its callers): computed again from here on.
  values_cache_.clear();
  param_cache_.clear();
  elem_values_cache_.clear();
  types_ = std::make_unique<TypeInference>(*this);
  compute_cuda();
  // Another module hands this one CUDA values; not to a script (nothing calls into it) whose own
  // CUDA switch is off (compute_cuda).
  if (facts_ && facts_->cuda() && !(memo_.count(kCudaSwitchedOff) && !facts_->has_incoming())) uses_cuda_ = true;
  // Calls named by their receiver's type (project mode). What was inferred meanwhile saw only
  // part of the names, or a program not yet known to use CUDA: inferred again when either
  // changed.
  bool named = resolve_typed_external_calls();
  bool cuda_before = uses_cuda_;
  if (facts_ && !uses_cuda_) uses_cuda_ = ext_classes_hold_cuda() || ext_devices_cuda();
  if (named || uses_cuda_ != cuda_before) {
    clear_memos();
    types_ = std::make_unique<TypeInference>(*this);
  }
  // Methods called on a parameter whose abstract type is an instance of a class of this file
  // (`model.compute_scores(h, mask)` in `forward(model, i, data)`, the model handed down from
  // a caller here or from another module's call sites: SR-GNN, set Z): resolve_calls binds such
  // a call only from the values known while the call graph is built, and a parameter's class
  // comes from its call sites, through the types. A new edge can type another parameter (its
  // callee's), so at most three rounds, each followed by the types computed again.
  auto bind_typed_param_calls = [&]() -> bool {
    bool bound = false;
    for (size_t ci = 0; ci < calls_.size(); ++ci) {
      if (!callees_by_call_[ci].empty() || (ci < ext_name_.size() && !ext_name_[ci].empty())) continue;
      Node fn = unparen(field(calls_[ci].call, "function"));
      // The parameter called itself (`decoder(imgs, caps, caplens)` in `train(loader, encoder,
      // decoder, ...)`): the module's `forward`. Not an object's `__call__` (a transform handed in,
      // RFBNet's `transform(img)`: its result read as the loop's own host tensor lost TX001 on the
      // step's input, fixture tx001_transformed_in_loop.py).
      const bool called = is(fn, "identifier");
      if (!called && !is(fn, "attribute")) continue;
      Node obj = called ? fn : unparen(field(fn, "object"));
      if (!is(obj, "identifier") || text(obj) == "self") continue;
      auto bindings = lookup(text(obj), start(obj));
      if (bindings.empty()) continue;
      bool params = true;
      for (const Binding* b : bindings) params = params && b->kind == Binding::Kind::Param;
      if (!params) continue;
      AbstractType t = types_->type_of(obj);
      if ((t.kind != AbstractType::Kind::Module && t.kind != AbstractType::Kind::Object) || t.klass < -1) continue;
      // A parameter its call sites hand instances of several classes of this file (a policy class
      // picked by a configuration field, `(A(...) if c else B(...)).to(dev)`: set BA CORL's IQL
      // actor): the method of each may run.
      std::vector<int> classes = t.klass >= 0 ? std::vector<int>{t.klass} : types_->local_class_union(obj);
      for (int k : classes) {
        // The method, or one inherited from a base class defined in this file.
        int target = -1;
        if (!called)
          target = inherited_method(classes_, classes_by_name_, k, text(field(fn, "attribute")));
        else if (t.kind == AbstractType::Kind::Module)
          target = inherited_method(classes_, classes_by_name_, k, "forward");
        if (target < 0 || std::find(callees_by_call_[ci].begin(), callees_by_call_[ci].end(), target) !=
                              callees_by_call_[ci].end())
          continue;
        callees_by_call_[ci].push_back(target);
        callers_[target].push_back(static_cast<int>(ci));
        bound = true;
      }
    }
    return bound;
  };
  for (int round = 0; round < 3 && bind_typed_param_calls(); ++round) {
    clear_memos();
    types_ = std::make_unique<TypeInference>(*this);
  }
  // A call of a parameter that every call site of its function hands one function defined here
  // by name (passed_functions: drn's `train(..., eval_score=accuracy)` calling
  // `eval_score(output, target_var)` per step) calls that function: the edge makes the called
  // function inherit the call's hotness and its parameters the call's arguments, as a call by
  // name does. One level (a function handed on through a second parameter stays unbound), at
  // most kMaxCandidates callees per call; O(parameter calls x call sites x values).
  bool bound_passed = false;
  for (size_t ci = 0; ci < calls_.size(); ++ci) {
    if (!callees_by_call_[ci].empty() || (ci < ext_name_.size() && !ext_name_[ci].empty())) continue;
    Node fn = unparen(field(calls_[ci].call, "function"));
    if (!is(fn, "identifier")) continue;
    for (int target : passed_functions(calls_[ci].call)) {
      if (target == calls_[ci].caller) continue;  // a function handed itself: no new edge
      callees_by_call_[ci].push_back(target);
      callers_[target].push_back(static_cast<int>(ci));
      bound_passed = true;
    }
  }
  if (bound_passed) {
    clear_memos();
    types_ = std::make_unique<TypeInference>(*this);
  }
  resolve_closure_calls();
  // Which classes have instances on CUDA (their registered buffers are there), before any CUDA
  // question (TypeInference::decide_buffer_devices).
  if (uses_cuda_ && !classes_.empty() && (src_.find("register_") != std::string_view::npos || src_.find("Parameter") != std::string_view::npos))
    types_->decide_buffer_devices();
  classify_loops();
  compute_hot_functions();
}

SemanticModel::~SemanticModel() = default;

void SemanticModel::clear_memos() {
  values_cache_.clear();
  param_cache_.clear();
  elem_values_cache_.clear();
  kwargs_cache_.clear();
  argparse_cache_.clear();
  namespace_cache_.clear();
  ext_namespaces_.clear();
  ext_namespaces_built_ = false;
  namespace_params_.clear();
  namespace_tables_.clear();
  cuda_cache_.clear();
  param_elems_cache_.clear();
  cuda_bool_cache_.clear();
  batch_cache_.clear();
  loader_cache_.clear();
  module_cache_.clear();
  device_cache_.clear();
  attr_devices_cache_.clear();
  origins_cache_.clear();
  origins_active_.clear();
  feeds_training_cache_.clear();
  guard_truth_cache_.clear();
  first_iteration_flag_.clear();
  bounded_index_guard_.clear();
  called_in_loop_.clear();
  loops_by_loader_built_ = false;
  loops_by_loader_.clear();
  for (auto& memo : step_call_) memo.assign(calls_.size(), -1);
}

}  // namespace stoker::python
