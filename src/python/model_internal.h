// Internal to the semantic model's implementation files (src/python/semantic_model.cpp and
// src/python/model_*.cpp, and types.cpp for property_getter): helpers they share and the
// memoization template. Not an API: other code includes python/semantic_model.h.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "python/semantic_model.h"

namespace stoker::python {

namespace model_detail {

inline bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// The last component of a dotted name.
inline std::string_view last_part(std::string_view s) {
  auto dot = s.rfind('.');
  return dot == std::string_view::npos ? s : s.substr(dot + 1);
}

// Does a base class as written (`Trainer`, `trainer.Trainer`) name the class `name`?
inline bool base_names_class(std::string_view base, std::string_view name) {
  return base == name || (base.size() > name.size() && base.substr(base.size() - name.size()) == name &&
                          base[base.size() - name.size() - 1] == '.');
}

inline constexpr const char* kLoaderNames[] = {
    "torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader",
    "torch_geometric.loader.DataLoader", "torch_geometric.data.DataLoader", "monai.data.DataLoader",
};

// `memo_` key set by compute_cuda when the module's only CUDA evidence lies in branches that never
// run (a CUDA switch left off).
inline constexpr const char* kCudaSwitchedOff = "cuda:switched-off";

// The conditions of the branches enclosing `n`, up to its scope (function, class, lambda or
// module): an `if` body needs its condition true; an `elif` body its own condition true and every
// earlier one of the chain false; an `else` body every condition of the chain false; a `while`
// body its condition true. Unparenthesized. A walk up the parents, at most 4,096 levels.
std::vector<std::pair<Node, bool>> branch_guards(Node n);

// A condition that tests flags only: a name or attribute (`args.web`, `debug`), a level of one
// compared with zero as its truth is (`opt.debug > 0`, `!= 0`, `>= 1`: CenterNet's debug level,
// set F), `not` of one, or `and`/`or` of such. A store under such a guard known False is an
// opt-in left off (a store_true flag's branch, `if opt.debug > 0: opt.num_workers = 0` with the
// default 0); one under a comparison of a choice (`opts.dataset == "coco"`) is another
// configuration's path, kept as a candidate value (model_argparse.cpp, model_hotness.cpp).
// Syntactic, O(size of the condition).
bool flag_test(Node cond, std::string_view src);

// The `a % n` of a step-period test, or null: the guarded code runs once every n passes where
// `cond` holds (`positive`) or fails (not `positive`) as it is `a % n == k` or `k == a % n`
// (holding), `not a % n` (holding), `a % n` (failing), `not` of one of these (the other way
// round). One test for the hot contexts' amortization (model_hotness.cpp, which then reads n) and
// the loops of steps that train every n iterations (model_loops.cpp). Syntactic, O(nesting).
Node period_modulo(Node cond, bool positive, std::string_view src);

// Inside the handler of an out-of-memory error, up to the enclosing function, class or lambda
// (rules/SY004.md: recovery from an OOM is not per step): the body of an `except` clause that
// catches `OutOfMemoryError` (`torch.cuda.OutOfMemoryError`, `torch.OutOfMemoryError`, alone or
// in a tuple), or, in the body of any `except` clause, the branch of an `if`/`elif` whose condition
// names the out-of-memory case (`if "out of memory" in str(e):`, `isinstance(e,
// torch.cuda.OutOfMemoryError)`), or the statements after `if "out of memory" not in str(e):
// raise`. Also read by the report path (context.cpp). O(depth x handler statements).
bool in_oom_handler(Node at, std::string_view src);

// A list name bound only to `[]` and appended modules (the types' Module) in its scope
// (model_devices.cpp): 0 not one, 1 modules, 2 modules one of which may be on CUDA
// (temporal-shift-module's `net_list.append(torch.nn.DataParallel(net.cuda()))`).
int module_list_element(const SemanticModel& m, Node list);
// The iterable a loop target reads: the loop's own (a whole target), or the argument of `zip`
// at the target's position (`for x, net in zip(xs, net_list)`), or `enumerate`'s for its
// second target; null otherwise.
Node loop_target_iterable(const SemanticModel& m, const Binding& b);

// `l['function']` where `l` is the variable of a loop over a container (a list name or `self.attr`
// of the method's class, whole or through `enumerate`) every element of which is a dict display:
// what each display holds under the literal key (`self.loss = []` in `__init__`, then
// `self.loss.append({'type': t, 'function': loss_function})`: `loss_function`). A display without
// the key adds nothing; empty when an element is no dict display or the container is stored or
// filled any other way (a display assigned, `append`, `insert`, `extend`/`+=` of a display).
// O(bindings + calls + the class's identifiers).
std::vector<Node> dict_element_items(const SemanticModel& m, Node subscript);

// The getter of a `@property` (or `functools.cached_property`) named `name` that class `klass`
// itself defines (functions() index), or -1: reading `self.name` runs it, so its returns are
// what the attribute holds (`self.device` returning `self.model.device`).
int property_getter(const SemanticModel& m, int klass, std::string_view name);

// The method named `method` an instance of class `klass` runs (functions() index), or -1: the
// first class of its method resolution order that defines it, over the classes defined in this
// file (class_mro). What `self.step()` in a method of `klass` and `model.step()` of a parameter
// typed as an instance of it call.
int inherited_method(const std::vector<Class>& classes,
                     const std::unordered_map<std::string, std::vector<int>>& by_name, int klass,
                     std::string_view method);

// A placeholder method whose subclasses supply the body: after an optional docstring, its only
// statement raises `NotImplementedError` (`def _get_losses(self, opt): raise NotImplementedError`
// in a trainer base class). `def_node` is the function_definition. O(statements).
bool abstract_method(Node def_node, std::string_view src);

// Class `klass` and its bases defined in this file, in Python's method resolution order (C3
// linearization; a base is a class of this file when the last part of its name names one, the
// last class of that name): `class D(B, C)` with `B(A)`, `C(A)` gives D, B, C, A. A base of no
// class here (a library class) is left out. A hierarchy C3 cannot order (a TypeError in Python,
// or a name that resolves to the class itself) or of more than kMaxMroClasses classes gives the
// depth-first, left-to-right order of the classes met first. Not memoized: each query visits at
// most 64 classes (a budget over the recursion, which works a shared base's order out again for
// each class below it), each merge O(kMaxMroClasses^2 x bases).
std::vector<int> class_mro(const std::vector<Class>& classes,
                           const std::unordered_map<std::string, std::vector<int>>& by_name, int klass);
inline constexpr size_t kMaxMroClasses = 16;

// Adds candidates to `out` without duplicates; past SemanticModel::kMaxCandidates the value is
// unknown ("saturated": nothing more is added). Defined in model_values.cpp.
void add_values(std::vector<Value>& out, const std::vector<Value>& in);

// An Int value. Defined in model_values.cpp.
Value make_int(long long i);

// The method a call names (`parser.parse_args()`: "parse_args"); empty for a plain call.
std::string_view method_of(Node call, std::string_view src);

// The values another module's call sites give `key` in a namespace's or a settings dict's list of
// (key, values) sorted by key (ArgFacts::ns_values, ArgFacts::dict_values): one unknown value when
// they carry no such key. O(log keys). Defined in dict_args.cpp.
std::vector<Value> keyed_values(const std::vector<std::pair<std::string, std::vector<ScalarFact>>>& entries,
                                std::string_view key);

// A store to `obj.<dest>` that runs only after the `if`/`elif` test holding the read `read`
// (model_argparse.cpp): that test never sees it.
bool stored_after_own_test(const SemanticModel& m, Node read, Node obj);

}  // namespace model_detail

template <class F>
bool SemanticModel::memo_bool(std::unordered_map<const void*, char>& cache, Node expr, F&& compute) const {
  auto cached = cache.find(expr.id);
  if (cached != cache.end()) return cached->second == 1;
  Step step(*this);
  if (!step) return false;  // too deep: unknown, not remembered
  cache[expr.id] = 2;       // in progress: a cycle answers "no"
  bool result = compute();
  cache[expr.id] = result ? 1 : 0;
  return result;
}

}  // namespace stoker::python
