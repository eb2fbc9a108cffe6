// The per-file semantic model of a Python module: scopes and bindings, qualified names through
// imports, resolved values, the call graph of functions defined in the file, loop
// classification (hot / epoch / setup), amortizing conditions, and which values are CUDA
// tensors. Built once per file; every check reads it.
#pragma once

#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/settings.h"
#include "python/project_facts.h"
#include "python/syntax.h"

namespace stoker::python {

struct StepHook;
struct UnusedImportsMemo;

struct Value {
  enum class Kind { Unknown, Int, Float, Str, Bool, None, Expr };
  Kind kind = Kind::Unknown;
  long long i = 0;
  double f = 0;
  std::string s;
  bool b = false;
  Node expr{};  // Kind::Expr: the expression the value was computed by (a call, a dict...)
  // Kind::Unknown: a value known not to be any of these strings (in the else branch of
  // `if dist.get_backend() == "nccl":`); narrowed by `assert x in ("gloo", "nccl")`.
  std::vector<std::string> excluded;
  // Kind::Unknown: an int of at least `at_least` (when > 0) and at most `at_most` (when > 0): a
  // count scaled by the number of processes or devices (`int((w + n - 1) / n)`, `w * n`).
  long long at_least = 0, at_most = 0;
  static Value unknown() { return {}; }
  bool is_number() const { return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool; }
  double number() const { return kind == Kind::Int ? double(i) : kind == Kind::Bool ? double(b) : f; }
};

// Values of another module's call sites (expressions there are Unknown here).
std::vector<Value> to_values(const std::vector<ScalarFact>& facts);
ScalarFact to_scalar_fact(const Value& v);

enum class LoopKind { Setup, Epoch, Hot };

struct Binding {
  enum class Kind { Import, Assign, AugAssign, Param, LoopTarget, Def, Class, With, Other };
  Kind kind = Kind::Other;
  Node value{};        // assigned expression; def/class node; for: the iterable
  Node target{};       // the target node (identifier) or the whole target pattern
  uint32_t at = 0;     // byte offset of the binding statement
  TextRange block{};   // innermost block containing the binding statement
  std::string qualified;  // Import: the imported module or member ("torch.utils.data.DataLoader")
  int function = -1;   // Param: owning function; Def: the function index
  int param_index = -1;
  int unpack_index = -1;  // position in a tuple target (`a, b = ...`), -1 when not unpacked

  // A plain assignment `name = value` (not unpacked, not augmented): `value` is the whole value.
  bool is_plain_assign() const { return kind == Kind::Assign && unpack_index < 0; }
  // The assigned value of a plain assignment, unparenthesized; null for any other binding.
  Node plain_value() const { return is_plain_assign() ? unparen(value) : Node{}; }
};

// Whether a name has bindings (SemanticModel::lookup's answer) and every one is of kind `k`: a
// name bound only by imports (a module: `box_utils.f(...)`), only by assignments.
inline bool all_bindings_of_kind(const std::vector<const Binding*>& bindings, Binding::Kind k) {
  if (bindings.empty()) return false;
  for (const Binding* b : bindings)
    if (b->kind != k) return false;
  return true;
}

// Hashes std::string and std::string_view alike (the same value as std::hash<std::string>, so a
// map's order is unchanged), so that a map keyed by std::string is searched by a view without
// building a string. Not noexcept: libstdc++ then caches hash codes in the nodes, as it does for
// std::hash<std::string>.
struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

struct Scope {
  enum class Kind { Module, Function, Class };
  Kind kind = Kind::Module;
  Node node{};
  int parent = -1;
  int function = -1;  // Function scope: index into functions()
  int klass = -1;     // Class scope: index into classes()
  std::unordered_map<std::string, std::vector<Binding>, NameHash, std::equal_to<>> bindings;
};

struct Param {
  std::string name;
  Node node{};
  Node default_value{};
  bool is_variadic = false;  // *args / **kwargs
  bool double_star = false;  // **kwargs (is_variadic too)
  bool keyword_only = false;
};

struct Function {
  Node node{};
  std::string name;
  int scope = -1;       // the function's own scope
  int klass = -1;       // the class it is a method of, or -1
  std::vector<Param> params;
  std::vector<Node> returns;  // return values
  // From its decorators, read once in collect(): a method decorated `@staticmethod` binds no
  // receiver (call_positions.h, bound_params); a decorator other than `@staticmethod` and
  // `@classmethod` wraps it in what that decorator returns.
  bool static_method = false;
  bool other_decorators = false;
  // A method that runs once when an instance is built: `__init__`, or the hook a generated
  // `__init__` calls after it (dataclasses' `__post_init__`, attrs' `__attrs_post_init__`).
  // Its `self.x = ...` assignments define what the attribute holds for the other methods.
  bool initializer() const {
    return name == "__init__" || (klass >= 0 && (name == "__post_init__" || name == "__attrs_post_init__"));
  }
};

struct Class {
  Node node{};
  std::string name;
  int scope = -1;
  std::vector<std::string> bases;  // qualified names where known, else the base's text
  std::map<std::string, int> methods;
};

struct Loop {
  Node node{};
  Node body{};
  int function = -1;  // enclosing function, -1 at module level
  int parent_loop = -1;
  LoopKind kind = LoopKind::Setup;
  bool iterates_loader = false;
  // A list/set/dict comprehension or generator expression: its `body` is the loop's body. Kept only
  // when hot (a forward per element: `torch.cat([model(x[i:i + b]) for i in ...])`); the others
  // are dropped from the call sites' loops once classified (drop_cold_comprehensions).
  bool comprehension = false;
};

struct WalkFrame;
class TypeInference;  // python/types.h

// Thrown by the model when a file's work budget (Settings::analysis_budget) runs out; the
// checker turns it into "analysis stopped: budget exceeded" for that file.
class BudgetExceeded : public std::exception {
 public:
  const char* what() const noexcept override { return "analysis stopped: budget exceeded"; }
};

struct CallSite {
  Node call{};
  int caller = -1;  // enclosing function or -1
  std::vector<int> loops;  // enclosing loops within the caller, outermost first
  std::vector<std::pair<Node, bool>> guards;  // enclosing if-conditions (condition, polarity)
  std::vector<uint32_t> guard_loop_depth;
  int lambda_depth = 0;
};

// Where a piece of code runs relative to the training step.
struct HotContext {
  bool hot = false;
  int loop = -1;                 // the hot loop (in the node's own function), or -1
  std::optional<Node> via_call;  // reached through this call site (in another function)
  // Amortization: the statement runs once every `every` steps (0 = not amortized,
  // -1 = guarded by a condition whose period is unknown).
  long long every = 0;
  bool once_per_epoch = false;  // guarded so that it runs on one step per epoch/run
  bool flag_guarded = false;    // guarded by an unresolved configuration flag
  std::string via_module;       // hot through a call in another module ("engine.py:12")
};

// The walk context the checker maintains; built by SemanticModel::walk.
struct WalkFrame {
  int function = -1;
  int klass = -1;
  std::vector<int> loops;   // loops of the current function, outermost first
  std::vector<std::pair<Node, bool>> guards;  // (condition, polarity) of enclosing ifs
  std::vector<uint32_t> guard_loop_depth;     // loops.size() when each guard was entered
  int lambda_depth = 0;
};

class SemanticModel {
 public:
  // `facts`: what the other modules of the project say (src/python/project.h); nullptr: the
  // file alone.
  SemanticModel(std::string_view src, Node root, const Settings& settings, const ExternalFacts* facts = nullptr);
  ~SemanticModel();

  // Resolution bounds (see "Bounded resolution" in docs/architecture.md): every resolver
  // entry is one work unit; nested resolver entries, across all resolvers, are at most
  // kMaxActiveDepth deep (past that the answer is unknown); a value has at most
  // kMaxCandidates candidates (past that it is unknown).
  static constexpr int kMaxActiveDepth = 48;
  static constexpr size_t kMaxCandidates = 16;
  unsigned long long work() const { return work_; }

  std::string_view src() const { return src_; }
  Node root() const { return root_; }
  const Settings& settings() const { return settings_; }
  std::string_view text(Node n) const { return python::text(n, src_); }

  // --- names --------------------------------------------------------------------------
  // Innermost scope of a node (by offset); functions() index of the enclosing function.
  int scope_at(uint32_t offset) const;
  int function_at(uint32_t offset) const;
  // Bindings that may reach a use of `name` at `offset` (see the .cpp for the approximation).
  // At most kMaxCandidates + 1: more than kMaxCandidates means "too many to tell" (unknown).
  std::vector<const Binding*> lookup(std::string_view name, uint32_t offset) const;
  // "torch.utils.data.DataLoader" for `DataLoader`, `tud.DataLoader`, `data.DataLoader`...
  // Empty when the expression is not rooted in an import (local bindings shadow imports).
  // Memoized per node: the reference stays valid for the model's lifetime.
  const std::string& qualified_name(Node expr) const;
  // What an `isinstance` test tells of a binding of the name `use` reads (model_devices.cpp,
  // `isinstance_narrowing`): Host when the use sits in the body of `if isinstance(x, np.ndarray)`
  // (or a builtin scalar type) and the binding is made before that if statement; NotTensor when
  // the binding reaches the use only around `if isinstance(x, torch.Tensor): x = ...` (no else),
  // which rebinds every tensor, or past an early exit on the tensor test (`if torch.is_tensor(x):
  // return x.item()`, no else): the binding's value there is not a tensor. None otherwise.
  enum class Narrowing : uint8_t { None, Host, NotTensor };
  Narrowing isinstance_narrowing(Node use, const Binding& b) const;
  // The qualified name of a call's callee.
  const std::string& callee_name(Node call) const { return qualified_name(field(call, "function")); }

  // --- values -------------------------------------------------------------------------
  std::vector<Value> values(Node expr) const;
  // The single known value (every candidate resolved and equal); nullopt otherwise.
  std::optional<Value> constant(Node expr) const;
  std::optional<long long> constant_int(Node expr) const;
  // The bounds of an int every candidate of which is known (exactly or by the bounds of a
  // scaled count, Value::at_least); nullopt when one is not. `second` 0: unbounded above.
  std::optional<std::pair<long long, long long>> int_bounds(Node expr) const;
  // Keyword arguments of a call, with `**dict` expanded when the dict resolves. `complete` is
  // false when some `**kwargs` could not be resolved (a missing key may then be present).
  struct Kwargs {
    std::vector<std::pair<std::string, Node>> items;  // later entries win
    bool complete = true;
    Node find(std::string_view key) const;
  };
  Kwargs keyword_arguments(Node call) const;
  // The literal-key entries of a dict expression as `**` would expand it at that point (a
  // display, `dict(k=v)`, a name bound to one, with its updates and `d["k"] = v` stores before);
  // `complete` false when some entry or key is not known.
  Kwargs dict_entries(Node dict) const;
  // The values of the dict `e` is: a dict display (no `**`) or a dict comprehension (its body's
  // value, any key), directly or through a name every binding of which (at most kMaxCandidates,
  // plain assignments) is one; empty when some binding is anything else or the name's dict gets
  // item stores or `.update(...)` in its scope. O(bindings x entries).
  std::vector<Node> dict_values_of(Node e) const;
  // Argument by position or keyword; null node when absent.
  Node argument(Node call, int position, std::string_view keyword) const;
  // Whether a call passes a `*args` or `**kwargs` splat: an argument argument() finds absent may
  // then be passed all the same, so "absent, the default applies" does not hold.
  static bool has_splat_argument(Node call);
  // The iterator a call advances: `it` in `next(it)` and in the old `it.next()` (PyTorch's early
  // loader iterators had that method); null for any other call.
  Node advanced_iterator(Node call) const;
  // The parse_args() defaults of `args.<dest>`.
  std::vector<Value> argparse_default(std::string_view dest) const;
  bool setattr_adds_only_new(Node namespace_argument) const;  // `if k not in vars(ns): setattr(ns, k, v)`

  // --- structure ----------------------------------------------------------------------
  const std::vector<Scope>& scopes() const { return scopes_; }
  const std::vector<Function>& functions() const { return functions_; }
  const std::vector<Class>& classes() const { return classes_; }
  const std::vector<Loop>& loops() const { return loops_; }
  const std::vector<CallSite>& calls() const { return calls_; }
  // Whether scope `scope` appends to its name `name` (`x.append(v)`, `x.extend(v)`) or stores
  // items into it (`x[k] = v`). O(log names).
  bool appended_or_stored(int scope, const std::string& name) const {
    return appends_.count({scope, name}) || subscript_stores_.count({scope, name});
  }
  int loop_index(Node loop_node) const;
  // Indices into calls() of the calls nested in a loop (its body and nested loops), in order.
  const std::vector<int>& calls_in_loop(int loop) const { return calls_in_loop_[loop]; }
  // Indices into calls() of the calls whose caller is function f (not those of functions nested
  // in it), in order.
  const std::vector<int>& calls_by_caller(int f) const { return calls_by_caller_[f]; }
  // The functions() index of a function definition node, or -1.
  int function_of(Node definition) const {
    auto it = function_by_node_.find(definition.id);
    return it == function_by_node_.end() ? -1 : it->second;
  }
  // Functions defined in the file that a call may invoke.
  std::vector<int> callees(Node call) const;
  // What a name called as a function refers to when every binding reaching the call assigns it
  // an attribute, not called (`from_fn = model_class.from_pretrained`, perhaps then `from_fn =
  // model_class.from_config`; `make = torch.nn.Linear`): those attributes, else none. At most
  // kMaxCandidates; a name also bound otherwise (a parameter, a call's result) has none.
  std::vector<Node> called_references(Node fn) const;
  // Call sites (indices into calls()) that may invoke function f.
  const std::vector<int>& callers(int f) const;
  // Functions a call runs without invoking them itself: a function (or `self.method`) passed
  // as an argument to a project function that calls that parameter (`gpu_timer(train_step)`
  // with `def gpu_timer(closure): ... closure()`). They run where the call runs; the call's
  // arguments are not theirs (callers() and callees() leave these edges out).
  const std::vector<int>& closures_run_by(int call_index) const;
  // Does function f call its parameter `param_index` (`closure()`)?
  bool calls_param(int f, int param_index) const;
  // A call of a parameter (`f(True)` in `def line_search(model, f, ...)`) every call site of whose
  // function, all in this module, hands that parameter a function defined here by name: those
  // functions (the call runs them, so it returns what they return). Empty otherwise.
  std::vector<int> passed_functions(Node call) const;
  // The function converts the parameter to NumPy before anything else reads it (every read of
  // the parameter's binding is the receiver of a chain of data-keeping tensor methods ending in
  // `.numpy()`; at least one read): what it moves to the GPU is built from arrays, not from the
  // tensor it is handed (summary_params.cpp; ParamSummary::enters_numpy).
  // Also a parameter every read of which uses it as a str (is_string_use).
  bool param_enters_numpy(int f, int param_index) const;
  // Is `e` used as a Python str (an operand of `+` beside a str literal, of `%` after one, an
  // f-string interpolation, the receiver of a str-only method)? (summary_params.cpp)
  bool is_string_use(Node e) const;
  // The parameter a call's argument binds enters NumPy first, in each callee (summary_params.cpp).
  bool argument_enters_numpy(Node call, Node arg) const;
  // `returns_namespace` and the argparse defaults of this module's parsers (semantic_project.cpp).
  void namespace_facts_of_parsers(FunctionFacts& facts) const;
  // A str expression: a literal, or concatenations / repetitions of literals
  // (`"%11s" * 2 + "%11.4g" * 5`), parenthesized or not.
  bool is_str_expr(Node expr) const;
  // Does `match` hold for a base of the class, written as resolved (qualified), or for a base of
  // one of its bases that are classes of this module, transitively?
  bool any_base(int klass, const std::function<bool(const std::string&)>& match) const;
  bool is_subclass_of(int klass, std::initializer_list<std::string_view> qualified_bases) const;
  bool is_lightning_module(int klass) const;
  bool is_step_hook(int function) const { return step_hook(function) != nullptr; }
  // The framework's step-hook row of a method it runs once per step (data/frameworks.txt), or null.
  const StepHook* step_hook(int function) const;

  // --- loops and hotness --------------------------------------------------------------
  // A project subclass of a DataLoader built from its constructor's arguments (model_objects.cpp).
  bool loader_class(int klass, int depth = 0) const;
  bool is_loader_call(Node call) const;   // DataLoader constructors, any import path
  // The batch size argument of a batch sampler's construction (`BatchSampler(s, 4)`, a call
  // with `batch_size=`, a function of another module returning one, a class of this module
  // iterating the batch sampler it is given); null when unknown.
  Node batch_sampler_size(Node sampler_call, int depth = 0) const;
  // A loader's `collate_fn` whose every candidate returns its argument's first element (`return
  // examples[0]`: the dataset's items are whole batches, `batch_size=1` takes one): a function or
  // lambda of this module, an instance of a class of this module or another with such a `__call__`.
  bool collate_returns_one_item(Node collate) const;
  // True when the expression evaluates to a data loader (through names, params, wrappers).
  bool is_loader_expr(Node expr) const;
  // Loops (indices) that iterate the given loader construction.
  std::vector<int> loops_iterating(Node loader_call) const;
  // Where a node inside function `frame.function` and loops `frame.loops` runs.
  HotContext hot_context(const WalkFrame& frame, uint32_t offset) const;
  bool function_is_hot(int f) const { return f >= 0 && hot_function_[f].hot; }
  // Unreached code: f is (inside) a module-level function that nothing calls. Only in project
  // mode, where other modules' calls and imports are known: no call of it in this file, no
  // other mention of its name here (a callback, `__main__`), no call or import of it elsewhere.
  bool in_uncalled_function(int f) const;
  // f is (inside) a method of a module-level class no code of the project names (unreferenced_class):
  // never built, so never hot (not uncalled_method: its caller may be a script the prefilter left
  // out, F5-TTS's train.py calling `trainer.train()`). Also (inside) a module-level function
  // called only in branches that never run or from functions that never run (transitively).
  // Project mode only; memoized per function.
  bool in_unreached_method(int f) const;
  // A method of a module-level class whose ancestors are all the project's, every call of which,
  // here and in other modules, is silenced by a guard known False or made by code that never
  // runs (model_dead_calls.cpp). At least one such call: a method nothing calls is left alone.
  bool dead_called_method(int f) const;
  // The call whose callee is the attribute `obj.name` at `name_at` (the name's first byte) is
  // silenced by a guard known False, made by code that never runs, or made on an object a
  // library call returned (`model = pm.auto_arima(seq)`: `model.predict` is the library's).
  // 0: neither; 1: dead; 2: on a library object.
  int quiet_attribute_call(uint32_t name_at) const;
  // The same for the call `cs` whose function is the attribute `attr` with the name `name`, as the
  // caller holds them (no lookup from the offset; summary.cpp).
  int quiet_attribute_call(const CallSite& cs, Node attr, Node name) const;
  int quiet_call(const CallSite& cs, Node attr) const;  // the two above's common part
  // The call never runs: silenced by a guard known False (guards_dead of its branch_guards, or
  // `guard_dead` where the caller holds that answer), or made by a function of this module that
  // never runs (in_unreached_method). quiet_call's 1 and OutgoingCall::dead (summary.cpp).
  bool dead_call(const CallSite& cs) const;
  bool dead_call(const CallSite& cs, bool guard_dead) const;
  bool library_object(Node obj) const;
  bool project_ancestry(const std::vector<std::string>& bases, int depth) const;
  bool uncalled_method(int f, int depth) const;
  bool in_uncalled_caller(int f, int depth) const;
  // A module-level class no code of the project names: its methods never run (below).
  bool unreferenced_class(int klass) const;
  // Does this file name `name` as a word in code (identifiers, attributes, strings) outside the
  // bytes [except_from, except_to)? Comments, docstrings and the strings of `__all__` (an export
  // names nothing that runs) are not mentions; with `after_dot`, `x.name` counts too.
  bool mentioned_here(std::string_view name, uint32_t except_from, uint32_t except_to, bool after_dot) const;
  bool inert_text_at(uint32_t at) const;
  // The names of `imports` (module-level, by name) that this module never writes again outside
  // its import statements, comments and docstrings: neither called here nor passed along. None
  // when the module may read its namespace (`globals()`, `vars()`, `eval`...). Sorted;
  // O(imports x file) for at most 256 imports (summary.cpp).
  std::vector<std::string> unused_imports(const std::vector<std::pair<std::string, std::string>>& imports) const;
  static constexpr int kMaxUncalledDepth = 8, kMaxUncalledWork = 64;
  // Dead code: some enclosing guard's condition is known to be the opposite of its branch
  // (`if args.flag:` with a store_true flag left False). Nothing there runs.
  bool guards_dead(const std::vector<std::pair<Node, bool>>& guards) const;
  // A function whose call sites hand their callees no values (session 39): a module-level function
  // (or one nested in it) of a script with a module-level `if __name__ == "__main__":` block that
  // nothing calls or names, here or in another module (diffpool train.py's benchmark_task beside
  // main()): the entry point is that block, so the function is no root. Memoized per outermost
  // function; O(mentions) each.
  bool unrun_function(int f) const;
  // Code after `if cond: continue` (or break) in the same or an enclosing block of
  // its loop or function, where `cond` is known True: it never runs. O(depth x preceding
  // statements) per query.
  bool after_taken_exit(Node at) const;
  const HotContext& function_hot_context(int f) const { return hot_function_[f]; }
  // Is the loop iterated once per epoch (nested in another loop, or in a function called
  // from a loop)?
  bool loop_runs_per_epoch(int loop) const;
  // The same for the iteration of the loader `loader_call` builds: a loop enclosing that
  // construction does not iterate one loader again (each pass builds its own: `for name in
  // datasets: loader = DataLoader(...); evaluate(loader)`), and a function called in a loop
  // elsewhere iterates this loader once per call when the calls handing it this loader are in
  // no such loop.
  bool loop_runs_per_epoch_for(int loop, Node loader_call) const;
  // A call site `ci` repeats inside its function without rebuilding `loader_call`: one of its
  // enclosing loops does not contain the construction.
  bool call_repeats_for(int ci, Node loader_call) const;
  // The loader call feeds a hot loop (iterated by one, returned from a Lightning
  // *_dataloader hook, or passed to Trainer.fit & co.).
  bool loader_feeds_training(Node loader_call) const;
  // Loader generators (model_generators.cpp). Function f is a generator every yield of which hands
  // out a loader's batches as they come: `yield from X`, or `yield t` as the whole body of `for t in
  // X:` (t the loop's plain target), X a loader expression (is_loader_expr) that is no parameter of f
  // (a parameter's is a pass-through generator: TypeInference::passed_through). Per yield, the site
  // (the `yield` node, or that `for` statement) and X; empty for any other function (at most
  // kMaxCandidates yields). A call of f is an iterator over those loaders' batches: a loader value
  // of the same batches (is_loader_expr, loader_origins), whose `next()` draws in hot code feed
  // training (loader_feeds_training), and FunctionFacts::returns_loader in other modules (guided-
  // diffusion's `load_data`: `while True: yield from loader`, set BF). O(yields) memoized lookups.
  std::vector<std::pair<Node, Node>> yielded_loaders(int f) const;
  // A call of such a generator of this module, or of another module's function returning a loader
  // (FunctionFacts::returns_loader, which such generators set): `next()` on what it returns draws
  // that loader's batches (a DataLoader itself is no iterator: a function whose result is drawn
  // with `next()` hands out an iterator over them).
  bool loader_generator_call(Node call) const;
  // The generators of this module that yield the batches of loader construction `loader_call`
  // (yielded_loaders, by loader_origins): 1 when one of them yields it inside a loop of its own
  // that does not contain the construction (`while True: yield from loader`: each pass iterates
  // the loader again and starts its workers anew), 0 when each yields it once per call, -1 when
  // none does. `inside`: the construction is written in such a generator (its only source of
  // iteration). O(functions + loader generators x yields) memoized lookups.
  int loader_reyielded(Node loader_call, bool* inside = nullptr) const;
  // `next(it)` / `it.next()` in hot code whose iterator may be (through names, parameters' call
  // sites and `self` stores: values) the call `call` of a loader generator (loader_generator_call):
  // the generator object is drawn once per step. Recorded once with fit_arguments_ (in memo_).
  bool drawn_per_step(Node call) const;
  // A loader that feeds no training and whose known uses draw a batch or a few once: every loop
  // iterating it ends its first pass (`for b in loader: ...; break`), or it is handed to a
  // development-run trainer's fit (`Trainer(fast_dev_run=True)`). DL001 is not reported there.
  bool loader_drawn_briefly(Node loader_call) const;
  // Function f is a generator (a `yield` of its own) defined in another function, where every
  // mention of its name is a call whose generator object is bound to a plain name that nothing
  // in that function reads (`context_generator = get_context_generator()`, its `next()`
  // commented out): its body never runs. O(identifiers of the enclosing function x calls),
  // memoized (model_generators.cpp).
  bool generator_never_drawn(int f) const;
  // `at` lies in the body of such a generator (at any depth of nested functions).
  bool in_undrawn_generator(Node at) const;
  // Every use of the batch in the `for` loop `loop` keeps it in host memory: a size query, a copy
  // into a host buffer or NumPy, or tensor methods and arithmetic whose result is accumulated
  // into a host tensor (`mean[i] += x[:, i].mean()`), and nothing in the loop performs a step.
  // Such a loop (dataset statistics, feature dumps) feeds no training: no batch reaches the GPU.
  bool loop_keeps_batches_on_host(int loop) const;
  // The names a `for` loop binds its element to, as the batch (`for x, y in loader`; an
  // `enumerate` index is not part of it): at most 16, in target order; empty for anything else.
  std::vector<std::string_view> loop_batch_names(Node for_statement) const;
  // Does the file move torch's default device (`torch.set_default_device("cuda")`, a CUDA default
  // tensor type)? Then a factory given no device is not known to build on the CPU. Memoized.
  bool default_device_moved() const;
  // A loader handed to parameters of other modules' functions that iterate them in hot loops:
  // whether one of those iterations runs once per epoch (the call runs in a loop here, or in a
  // function called in one, or the callee iterates the parameter in a loop nested in another).
  // nullopt when the loader reaches no such parameter.
  std::optional<bool> external_iteration_per_epoch(Node loader_call) const;
  // `num_workers=num_workers` of a parameter of a loader factory: the values the call sites
  // whose result feeds training (per epoch with `epoch`) pass it, in other modules
  // (ArgFacts::fed_values/epoch_values) and here (a name bound to the result iterated by a hot
  // loop or handed to another module's), the parameter's default where one leaves it out;
  // nullopt when the expression is no such parameter or no such site is known.
  std::optional<std::vector<Value>> site_use_values(Node expr, bool epoch) const;
  // A keyword of a loader construction that a `**kwargs` splat of its function's `**` parameter
  // supplies (keyword_arguments' forwarded keywords: `DataLoader(ds, **kwargs)` in a factory only
  // other modules call): the values the call sites pass under `key` (ArgFacts::dict_values of the
  // parameter, joined over the sites), where every site's keywords are known and the function
  // names the parameter only in `**` splats; nullopt otherwise. O(function) per question.
  std::optional<std::vector<Value>> forwarded_values(Node splat, std::string_view key) const;
  // The counts (a batch size, a worker count) the call sites pass under `key` into that forwarded
  // `**` parameter: every value a known int of at least one; nullopt where nothing is known or any
  // value is another (DL003 and BS001 stay silent then).
  std::optional<std::vector<long long>> forwarded_counts(Node splat, std::string_view key) const;
  // Function f is called once per pass of a loop in another module, or from a function so called
  // (IncomingCalls::rebuilt): the first such call site ("for_test.py:37"); nullopt otherwise.
  std::optional<std::string> rebuilt_by_other_modules(int f) const;

  // --- CUDA ---------------------------------------------------------------------------
  bool uses_cuda() const { return uses_cuda_; }
  // The abstract types of expressions (python/types.h); is_cuda() asks them first.
  const TypeInference& types() const { return *types_; }
  // May the expression evaluate to a tensor (or module) on a CUDA device?
  bool is_cuda(Node expr) const;
  // Is it a CUDA boolean tensor (a mask)?
  bool is_cuda_bool(Node expr) const;
  // Cpu: the host; Other: a device of another known type (`mps`, `xpu`, `hpu`, `npu`, `meta`,
  // `xla`...): not CUDA and not the host. Cuda also stands for "may be CUDA" (a join with it).
  enum class DeviceKind { NotDevice, Cpu, Cuda, Unknown, Other };
  DeviceKind device_kind(Node expr) const;
  // The kind of a device written as a string (`"cuda:1"`, `"xpu"`); with `prefix_only`, only the
  // literal start of an f-string is known (`f"xpu:{rank}"`: its type is what precedes the ':').
  static DeviceKind device_string_kind(std::string_view s, bool prefix_only = false);
  // Is the call a move to a CUDA device (`.cuda()`, `.to(cuda_device)`)?
  bool is_move_to_cuda(Node call) const;
  // Does the call load a model placed on the GPUs (a `places-on-gpus` row of the framework table:
  // `AutoModelForCausalLM.from_pretrained(name, device_map="auto")`)? Every value of its
  // placement keyword must be a placement: "auto", "balanced", "balanced_low_0", "sequential", a
  // CUDA device or ordinal, or a dict literal whose values all are (`{"": local_rank}`).
  bool places_on_gpus(Node call) const;
  // The dtype a tensor conversion call names: `.bool()`, `.float()`, `.long()`..., `.to(torch.bool)`,
  // `.to(dev, torch.bool)`, `.to(dtype=torch.bool)`, `.type(torch.float32)`: the dtype's canonical
  // name ("bool", "float32", "int64"...); "?" for a dtype that is not written as one
  // (`.to(x.dtype)`); "" when the call names no dtype (`.to(device)`, anything else). `moves`
  // (optional): whether it also names a device.
  std::string_view conversion_dtype(Node call, bool* moves = nullptr) const;
  // Does the expression evaluate to an nn.Module (a torch.nn class, a model zoo constructor,
  // or a subclass of nn.Module defined in the file)?
  bool is_module(Node expr) const { return is_module_value(expr); }
  // Does the expression derive from a batch produced by a loader loop?
  bool is_batch_value(Node expr) const;
  // `xs[-1]` of a list every append of which moves a value to the host, in the loop of the read
  // (model_batches.cpp host_state_last): the host state the previous pass left, whatever the
  // first element's device (the list's joined type).
  bool host_state_read(Node expr) const;
  // The step's data on any device: a batch (is_batch_value), or a parameter that another
  // module's calls hand the step's data (ArgFacts::step), read through subscripts and attributes.
  bool is_step_data(Node expr) const;
  bool step_data_at(Node expr, int depth) const;
  // A CPU tensor a loop fetches from a project data source object (model_batches.cpp).
  bool sourced_host_batch(const Binding& b, Node use) const;
  // `self.batch` whose every store in the class is a batch parameter of a method called in a loop.
  bool self_stored_batch(Node attr) const;
  // Function f is a generator every yield of which (`yield v`, no `yield from`) is anything but a
  // name bound to a parameter (FunctionFacts::yields_built): each yields what it builds or binds.
  bool yields_built(int f) const;
  // Every return of function `f` is built of Python values only: a list, tuple, dict or
  // comprehension whose elements are `.tolist()` results, string methods' results, literals,
  // f-strings or `str`/`int`/`float`/`bool`/`len` conversions (TANGO's `return [dat[i].tolist()
  // for i in dat]`). False for a function without returns. O(returns x elements).
  bool returns_python_values(int f) const;
  // A collate_fn argument (`collate_fn=collate`, `collate_fn=dataset.collate_fn`) whose every
  // return is Python values only (returns_python_values): a function of this file, a method of an
  // instance of a class of this file, or, in project mode, a method of an instance of another
  // module's class by its facts (FunctionFacts::returns_py_values). Its batches hold no tensor.
  bool collate_python_values(Node collate) const;
  // Is `name` (identifier text, or "self.x") assigned within the node's text range?
  bool assigned_within(std::string_view name, Node region) const;
  // Is `counter` a step counter: a name, or `self.x` of a method's class, that `increments` only
  // increments with `+= <int>` (at least once; a nested definition's are another scope's) and that
  // `stores` holds no other store of (`step = 0`, `self.step = 0`)? The hot region for both
  // (apply_guards: `if self.step == 0:`), or a loop's body and its function or statement (DL004's
  // once_per_run). From the name's bindings in the scope it is read in, or the class's indexed
  // `self` stores: O(the counter's stores), no walk of the regions.
  bool step_counter(Node counter, Node increments, Node stores) const;
  // Does the call invoke a function or class of the project (this file's, or by its qualified
  // name one of another module: ProjectLayout::is_project_name)? By names only, not by round.
  bool project_call(Node call) const;

  // --- project (src/python/semantic_project.cpp) --------------------------------------
  // What the other modules of a project need of this one: its functions' facts, its
  // module-level imports, and its calls to names `is_project_name` accepts.
  // `memo`: where the parse keeps unused_imports' answer (ParsedFile), or nullptr.
  ModuleSummary summarize(const std::function<bool(std::string_view)>& is_project_name,
                          UnusedImportsMemo* memo = nullptr) const;
  // "f" for a module-level function, "Class.method" for a method of a module-level class, else "".
  std::string local_name(int f) const;

  // A per-file memo for facts a check computes once (`compute` runs on the first call).
  template <class F>
  int memo(const std::string& key, F&& compute) const {
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    int v = compute();
    memo_[key] = v;
    return v;
  }

  // Walks the tree once, calling visit(node, frame) in pre-order with the context maintained.
  template <class F>
  void walk(F&& visit) const;

  // For the loader wrappers of other modules (loader_wrappers.h): the facts of the project function
  // of another module a call invokes, and of a parameter of function f from other modules' calls.
  const FunctionFacts* callee_facts(Node call, unsigned fields) const { return ext_callee_of(call, fields); }
  const ArgFacts* incoming_param_facts(int f, int param_index, unsigned fields) const {
    return ext_param(f, param_index, fields);
  }
  // The module-level names module_attribute() was asked (the checks deferred to a module's last
  // analysis list them in its summary, project mode).
  const std::set<std::string>& module_reads() const { return module_reads_; }

 private:
  friend class TypeInference;
  void collect();
  void resolve_calls();
  void index_calls();
  void resolve_closure_calls();
  void classify_loops();
  void compute_hot_functions();
  void compute_cuda();
  // One resolver entry: counts a work unit (throws BudgetExceeded past the budget) and holds a
  // level of the shared depth; false (nothing held) when the depth limit is reached.
  class Step {
   public:
    explicit Step(const SemanticModel& m);
    ~Step() {
      if (ok_) --m_.active_depth_;
    }
    Step(const Step&) = delete;
    Step& operator=(const Step&) = delete;
    explicit operator bool() const { return ok_; }

   private:
    const SemanticModel& m_;
    bool ok_;
  };
  // Project hooks (semantic_project.cpp): facts of other modules, each O(1) after resolution.
  void resolve_external_calls();
  bool resolve_typed_external_calls();
  // Forgets every memoized answer (after the project names of calls changed under them).
  void clear_memos();
  std::string external_name(int call_index) const;
  // A name this module never binds, read through its `from M import *` of project modules: the
  // first starred module (as written) whose facts define it, "M.name"; "" when none does.
  std::string star_imported_name(std::string_view name) const;
  // A callee that is one of the classes of a project dict of classes (`factory[key]`, or a name
  // bound to it): "factory[]" as written (qualified), which the project reads as any of them.
  std::string class_table_name(Node callee) const;
  // `{"a": A, "b": B}[key]` called, or a name bound to one: "a.A|b.B" of other modules' project names.
  std::string display_choice_name(Node callee) const;
  std::string table_reference(Node call) const;  // the qualified `factory` of `factory[k](...)`, or ""
  // What a callee stands for: itself, or (a name) the value of each of its bindings when every
  // one is a plain assignment (at most kMaxCandidates); empty when it cannot be read so.
  std::vector<Node> callee_expressions(Node fn) const;
  // Registries (project mode): the name of a module-level object as the facts take it (an
  // import's qualified name, or the canonical name of this module's own global), or "".
  std::string object_name(Node expr) const;
  // A module-level name of another project module read here (`CFG.num_workers` after `import
  // config as CFG`, `from config import DEVICE`, a star-imported name): its entry's facts
  // (`fields`: fact::kDevKind, fact::kConstValues), or null. The one lookup the device tracker
  // and the value resolver share; each name asked is kept for ModuleSummary::module_reads.
  const FunctionFacts* module_attribute(Node expr, unsigned fields) const;
  // Its constant values (FunctionFacts::const_values), empty when it has none.
  std::vector<Value> module_constant(Node expr) const;
  // The registry object a module-level definition is registered into by a decorator
  // (`@REG.register(...)` above it): its object_name, or "".
  std::string registry_of(Node definition) const;
  // `REG.get(key)` / `REG[key]` of a registry object: the union of the project functions or
  // classes registered there (ExternalFacts::registered), or "".
  std::string registry_lookup(Node expr) const;
  // `a, b = pair` where `pair` is a parameter every call site (here and in other modules) passes
  // a tuple display: whether that element may be CUDA; nullopt when not that shape.
  std::optional<bool> unpacked_param_cuda(const Binding& b) const;
  // The element a tuple target takes from a call of a function here whose returns are tuple displays.
  std::optional<bool> unpacked_return_cuda(const Binding& b) const;
  // `x == "auto"`, `k != 'meta'`: only ==/!= operators, an operand a string literal. A tensor
  // compared with a string is False (True for !=) without reading the tensor: a host bool.
  bool compares_with_string(Node comparison) const;
  // The facts (`fields`: fact::k*) of the project function of another module a call invokes.
  const FunctionFacts* ext_callee(int call_index, unsigned fields) const;
  const FunctionFacts* ext_callee_of(Node call, unsigned fields) const;
  // summarize(): what the CUDA taint of each outgoing call's arguments (made by a named
  // function, `arg_nodes`: index into out.calls and the argument nodes) and of each function's
  // returns (`returns_of`: function, index into out.functions) follows (TaintSources);
  // `call_out`: the outgoing call of each call node that gives exactly one.
  struct ArgNodes {
    int caller = -1;
    std::vector<Node> positional, keywords;
  };
  void taint_sources(ModuleSummary& out, const std::vector<std::pair<size_t, ArgNodes>>& arg_nodes,
                     const std::vector<std::pair<int, size_t>>& returns_of,
                     const std::unordered_map<const void*, size_t>& call_out) const;
  // The facts of every member a call of a class union invokes (`agent.update(r)` with `agent`
  // an A2C or a PPO): each may run. One element for a single callee; empty when one member has none.
  std::vector<const FunctionFacts*> ext_callees(int call_index, unsigned fields) const;
  const ArgFacts* ext_param(int function, int param_index, unsigned fields) const;
  bool ext_param_flag(Node identifier, unsigned field) const;  // a parameter binding with the flag
  // `data['tr_loader']` of a parameter every binding of which other modules hand a dict holding
  // a loader under that literal key (ArgFacts::loader_keys).
  bool ext_loader_item(Node subscript) const;
  // FunctionFacts::ret_loader_keys of function f: the literal keys under which every return, a
  // dict (SemanticModel::dict_entries), holds loaders; empty when some return holds none.
  std::vector<std::string> returned_loader_keys(int f) const;
  // The keys of the dicts of loaders that `e` holds as another module's functions return them
  // (a call, or a name every binding of which is one): their ret_loader_keys, joined; empty when
  // some binding is anything else.
  std::vector<std::string> ext_returned_loader_keys(Node e) const;
  // FunctionFacts::ret_loader_dicts of function f: kWholeResult when every return is a dict all
  // of whose values (dict_values_of) are loaders, bit i when element i of every returned tuple
  // display (the first eight) is one; 0 otherwise.
  unsigned returned_loader_dicts(int f) const;
  // `d[k]` (any key) of a name every binding of which is another module's call result (whole, or
  // the element of the assignment's own tuple target) that FunctionFacts::ret_loader_dicts calls a
  // dict of loaders: what stands for the loader there (the call for the whole result, the tuple
  // target's name for an element, as external_loader_element); empty otherwise.
  std::vector<Node> ext_loader_dict_item(Node subscript) const;
  void add_dict_entries(Node dict, uint32_t before, Kwargs& out, std::unordered_set<const void*>& visited) const;
  bool external_feeds_training(Node loader_call) const;
  // The functions of this module whose returns hand on `loader_call` (whole or as an element of
  // a returned tuple): the one that builds it, then, breadth first, each caller of one of them
  // that returns what the call gave it (MolCLR's `get_data_loaders()` returning the tuple its
  // `self.get_train_validation_data_loaders(ds)` builds: set AQ), kMaxLoaderRelays at most.
  // Their callers in other modules decide where it is iterated. O(relays x callers x returns).
  std::vector<int> loader_returners(Node loader_call) const;
  static constexpr size_t kMaxLoaderRelays = 4;
  // summarize(): whether a call site sits in a loop that is no setup loop with arguments the
  // same on every pass (or in a function of this module called so), and whether it would when
  // its function is called so from another module (OutgoingCall::rebuilds, rebuilds_if_caller).
  void rebuild_context(const CallSite& cs, bool& rebuilds, bool& if_caller) const;
  // Calls here (by node id) whose result, or an element of it, another module's function
  // iterates per epoch in a hot loop (OutgoingCall::result_per_epoch bits).
  std::unordered_map<const void*, unsigned> results_iterated_per_epoch() const;
  // Handed on: call ci's function returns, at the positions of `returned` (bits of its returned
  // tuple displays), names unpacked from the call's own tuple target (`a, b, n = get(...)` then
  // `return a, b, n`): the call's elements there (bit i element i). O(returns x elements).
  unsigned handed_on_elements(size_t ci, unsigned returned) const;
  // summarize()'s per-epoch parameter pass (summary_params.cpp): per function and parameter,
  // whether a hot loop iterates it (here, or through calls handing it to a function here or in
  // another module), per epoch, and the keys of its items iterated hot (sorted, at most
  // kMaxLoaderKeys); the calls whose result a hot loop iterates (OutgoingCall::result_feeds_training);
  // per call that builds an instance (`dataset = Cifar(...)`), the attributes of it a hot loop
  // iterates (`for batch in dataset.train`: OutgoingCall::attrs_fed, unsorted).
  struct ParamIteration {
    std::vector<std::vector<char>> hot_param, epoch_param;
    std::vector<std::vector<std::vector<std::string>>> hot_keys;
    std::unordered_set<const void*> iterated_calls;
    // Per call, the elements of its result (bit i: element i, the first eight) bound by a tuple
    // target of the assignment itself that a hot loop iterates (OutgoingCall::result_fed).
    std::unordered_map<const void*, unsigned> iterated_elements;
    std::unordered_map<const void*, std::vector<std::string>> attrs_iterated;
    // Calls whose whole result (a dict of loaders) a hot loop iterates per epoch under its keys.
    std::unordered_set<const void*> epoch_calls;
  };
  ParamIteration param_iteration() const;
  // The ParamSummary of each parameter of function f, by the pass's answers.
  std::vector<ParamSummary> param_summaries(int f, const ParamIteration& iteration) const;
  // The parameter of function f that is the batch size of every batch sampler it returns, or -1.
  int batch_size_param(int f) const;
  bool returns_first_item(int f) const;  // every return is `param[0]` of its first parameter
  // FunctionFacts::ret_elem_cuda of function f: per element of its returned tuple displays, the
  // CUDA taint (1 may be CUDA), when every return is one of the same arity; empty otherwise.
  std::vector<int> returned_elements_cuda(int f) const;
  // Per element of the tuple (or list) an expression holds, whether its CUDA taint may be CUDA,
  // for the first elements every candidate has (the shortest arity, at most kMaxTupleElements):
  // a tuple or list display, a name every binding of which is one of these (and that nothing
  // appends to or stores into), a call of a function whose every return is a tuple display
  // (a function here, joined over its returns: `return (ids, texts, speakers)` of 12 elements or
  // of 6; another module's: FunctionFacts::ret_elem_cuda), a parameter every call site of which
  // passes one (this module's sites and ArgFacts::elem_cuda; cached per parameter). Empty when
  // not known. So `batch = to_device(batch, device)` then `batch[0][0]` is host when element 0
  // of every returned tuple is.
  std::vector<char> elements_cuda(Node expr) const;
  std::vector<char> elements_cuda_impl(Node expr, int depth) const;
  std::vector<char> param_elements_cuda(const Binding& param, int depth) const;
  static constexpr size_t kMaxTupleElements = 16;
  bool returns_mask(int f, int depth) const;  // every return holds booleans (holds_bools)
  // The calls of this file constructing class `klass` by its name (`Trainer(args)`), the call
  // sites of its `__init__`; empty when a class of the file derives from it (its constructions
  // and `super().__init__` calls would pass other values).
  const std::vector<int>& constructor_calls(int klass) const;
  std::vector<int> init_sites(int f) const;  // callers(f), and for an __init__ its class's constructions
  mutable std::unordered_map<int, std::vector<int>> constructor_calls_;
  // Visits (call index, parameter) for each parameter of another module's function, iterated in
  // a hot loop there, that a call here passes the loader to; stops when `visit` returns true.
  bool each_external_hot_param(Node loader_call, const std::function<bool(size_t, const ParamSummary&)>& visit) const;
  bool each_external_hot_argument(const std::function<bool(size_t, const ParamSummary&, Node)>& visit) const;
  bool hot_param_per_epoch(size_t ci, const ParamSummary& p, Node passed) const;
  // A class of another project module whose instances hold or yield CUDA values (by its facts)
  // is instantiated or subclassed here.
  // Project mode: a move in this module (`x.to(d)`, `device=d`) names a device another module
  // makes CUDA (`from config import DEVICE`, `device = utils.get_device()`): the program uses CUDA.
  bool ext_devices_cuda() const;
  // FunctionFacts::devkind of a function's returns or a module-level name's values.
  int devkind_of(const std::vector<Node>& exprs) const;
  // The devices the attributes of the object a name holds may hold (ArgFacts::attr_devices):
  // (attribute, 1 the CPU / 2 may be CUDA / 3 another device), sorted, from the stores on the
  // name in the functions binding it (`conf.device = torch.device(...)`), what a function
  // returning the object stores (this module's, or another's: FunctionFacts::ret_attr_devices),
  // and what the call sites hand a parameter (this module's, or other modules': ArgFacts).
  // An attribute whose sources name different devices, none CUDA, is left out. At most 4 names
  // deep; O(bindings + call sites + the stores on the name) per level.
  std::vector<std::pair<std::string, int>> object_attr_devices(Node obj, int depth = 0) const;
  // `X.attr` stores by the text of X (attribute_stores_, indexed once): (attribute, object, value).
  mutable std::unordered_map<std::string, std::vector<std::tuple<std::string, Node, Node>>> stores_by_object_;
  mutable bool stores_by_object_built_ = false;
  mutable std::unordered_map<const void*, std::vector<std::pair<std::string, int>>> attr_devices_cache_;
  bool ext_classes_hold_cuda() const;
  bool function_called_in_loop(int f) const;
  std::string qualified_name_uncached(Node expr) const;
  std::vector<Value> values_uncached(Node expr) const;
  std::vector<Value> binding_values(const Binding& b) const;
  std::vector<Value> param_values(int function, int param_index) const;
  // A target of `a, b = f()`: its element of every return of the project function f.
  std::vector<Value> unpacked_return_values(Node call, const Binding& b) const;
  std::vector<Value> unpacked_name_values(Node name, const Binding& b) const;
  std::vector<Value> param_values_uncached(int function, int param_index) const;
  std::vector<Value> attribute_values(Node attr) const;
  // The values the elements of a container may take (model_element_values.cpp): a tuple, list or set
  // display's elements; `tuple(x)`, `list(x)`, `sorted(x)`, `set(x)` of such a container; a
  // comprehension or generator yielding its own loop variable (`k for k in ("a", "b") if c`: a
  // subset); through names (a list display and what `.append`/`.extend` add to it), `self.x`
  // set in `__init__`, and parameters from their call sites here and in other modules
  // (`ArgFacts::elem_values`). The candidates, or one Unknown among them.
  std::vector<Value> element_values(Node expr) const;
  std::vector<Value> element_values_uncached(Node expr) const;
  // argparse namespaces (model_argparse.cpp): a candidate value that is what parse_args() returns,
  // directly or through a project function that returns it; `args.<dest>` of such an object.
  bool namespace_value(const Value& v) const;
  bool namespace_call(Node call) const;
  // A name imported from another module whose entry is that module's parsed namespace
  // (FunctionFacts::namespace_object: `from option import args`), as a candidate value (the use
  // itself stands for it): that entry, or null. O(bindings).
  const FunctionFacts* imported_namespace(const Value& v) const;
  // `declared`: the values the namespace's parser gives `dest` when another module's call site
  // handed it (ArgFacts::ns_values; null: this module's parsers, argparse_default).
  // `read`: the `args.<dest>` node being read, when known; stores that run only after the `if` whose
  // test holds it are left out (stored_after_own_test, model_argparse.cpp).
  std::vector<Value> namespace_attribute(std::string_view dest, const std::vector<Value>* declared = nullptr,
                                         Node read = Node{}) const;
  // A candidate value standing for a parameter every call site of another module hands an
  // argparse namespace (param_values_uncached puts the parameter's node): those sites' facts.
  const ArgFacts* namespace_param(const Value& v) const;
  // The values of the attributes of the namespace `a` is (every candidate a namespace_value) as
  // they travel in ArgFacts::ns_values; false when `a` is not one.
  bool namespace_facts(Node a, std::vector<std::pair<std::string, std::vector<ScalarFact>>>& out) const;
  // A call made only when a namespace attribute differs from its known value (a guard of the call
  // that value decides against: `else: trainmask(args)` of `if 'pretrain' not in args.task:` with
  // default "ft_cls"): the dests of `a` those guards read leave `out` (unknown to the callee).
  void drop_contradicted_dests(Node call, Node a, std::vector<std::pair<std::string, std::vector<ScalarFact>>>& out) const;
  // A dict of settings handed across modules (dict_args.cpp): whether the call site's argument
  // `a` is a dict whose every entry is under a literal key, with the values of those keys as
  // they travel in ArgFacts::dict_values (keys whose values are all known); and what `d["key"]`
  // reads of a parameter d that only other modules' call sites hand such dicts (nullopt when d
  // is not one).
  bool dict_facts(Node a, std::vector<std::pair<std::string, std::vector<ScalarFact>>>& out) const;
  std::optional<std::vector<Value>> param_dict_item(Node subscript) const;
  // Whether `d["key"]` is such a read, without its values: the facts of d (with its key and
  // function where `key` and `function` are given), or null. O(bindings), where param_dict_item
  // also reads the function's stores into d.
  const ArgFacts* param_dict_arg(Node subscript, std::string* key = nullptr, int* function = nullptr) const;
  // A call whose receiver is a module of no known class (`model = checkpoint["model"]`) of a
  // method named as project nn.Modules' methods: "%.<method>" (FactsTable binds it), or "".
  std::string unknown_module_method(Node call) const;
  // A count divided among or multiplied by processes: `int((a + n - 1) / n)`, `(a + n - 1) // n`,
  // `math.ceil(a / n)` (ceil, true) or `a * n`, `n * a` (false), with `a` the count and `n` the
  // divisor or factor; false when `e` is neither.
  bool scaled_count(Node e, Node& count, Node& by, bool& ceil) const;
  // The candidates `x` turns into by that scaling (Value::at_least).
  std::vector<Value> min_max_values(Node call, bool is_min) const;
  std::vector<Value> scale_values(const std::vector<Value>& xs, Node by, bool ceil) const;
  // `if self.flag: ...; self.flag = False`: a latch, its branch runs once (model_guard_truth.cpp).
  bool latch_cleared(Node cond) const;
  bool is_cuda_impl(Node expr) const;
  // The CUDA taint of a call of a function here (or of another module, by its facts) by the
  // return's dependence on this call's arguments (TypeInference::return_dependence); nullopt
  // where it is unknown.
  std::optional<bool> site_return_cuda(int function, Node call) const;
  std::optional<bool> site_return_cuda(const FunctionFacts& f, Node call) const;
  // `d["key"]` (or what a name bound to `d`, or a call returning `d` itself, holds under it): a
  // store of that literal key into `d` in its scope puts a CUDA value there (depth at most 4).
  bool keyed_store_cuda(Node dict, const std::string& key, int depth) const;
  // The arguments of `call` that the return of another module's function `f` depends on
  // (FunctionFacts::dep_uses), in that order; nullopt where the dependence is unknown or a call
  // site does not bind every one of them plainly (a splat, a star parameter, an unresolved name).
  std::optional<std::vector<Node>> dep_site_arguments(const FunctionFacts& f, Node call) const;
  // A parameter of a function that no call here or in another module reaches (a forward called
  // through an unresolved module): its value at a call of a helper is unknown.
  bool unresolved_argument(Node a) const;
  bool branches_all_bind(Node if_statement, const std::vector<Binding>& list, int i) const;
  // What calling the argument `a` gives, for a return that calls its parameter (`d()`): a
  // lambda's body; `nothing` set for a value that cannot be called; null where unknown.
  Node called_result(Node a, bool& nothing) const;
  // `len(acc) == 0` guarding a branch that appends to `acc`, which the hot region never empties
  // again: true only until the branch first runs; `len(acc) < K` (K at most 1000) whose branch
  // appends to `acc` on every run: true at most K times (model_hotness.cpp).
  bool empty_until_filled(Node cond, Node hot_region) const;
  // `idx < K` on the loop's own enumerate index with K fixed in the loop, or `i in C` of a
  // collection of at most 1000 indices: the branch runs on a bounded number of steps of each pass
  // (model_guards.cpp). Memoized per (condition, hot region).
  bool bounded_index_guard(Node cond, Node hot_region) const;
  // The size of a collection of indices, when known (a display, `range` of constants,
  // `torch.randint(lo, hi, (k,))`, `random.sample(xs, k)`...); nullopt otherwise.
  std::optional<long long> index_collection_size(Node e, Node hot_region, int depth) const;
  bool is_cuda_uncached(Node expr, std::string_view k) const;
  // The functions of this module a container is handed to before a use of it (`use`, a name),
  // for a helper that fills it in place (LESS's `prepare_batch(batch)`): each (callee, parameter
  // index) of a call of the enclosing function that ends before the use and passes the name
  // itself for that parameter (not variadic), every binding in `reaching` (the use's, at most
  // kMaxCandidates) made before the call and not by the call's own statement. In the order of
  // the calls; O(the calls of the enclosing function).
  std::vector<std::pair<int, int>> handed_before(Node use, const std::vector<const Binding*>& reaching) const;
  bool is_cuda_bool_impl(Node expr) const;
  bool is_cuda_bool_uncached(Node expr) const;
  // `self.mask` read in a method of a class whose every store of the attribute (at most
  // kMaxCandidates) holds booleans and which the types place on CUDA (model_masks.cpp).
  bool self_attribute_cuda_mask(Node attr) const;
  // A tensor of booleans wherever it lives (a factory with `dtype=torch.bool`, `.bool()`, a
  // comparison), through names every binding of which is one (model_devices.cpp).
  bool holds_bools(Node expr, int depth) const;
  bool is_str_expr_at(Node expr, int depth) const;
  bool is_batch_impl(Node expr) const;
  bool is_batch_uncached(Node expr) const;
  bool batch_through_helper(Node call) const;
  bool sampled_batch(Node comp) const;
  void closure_targets(Node factory_call, std::vector<int>& targets) const;
  bool argparse_required(Node add_argument_call) const;
  // `args.x` of an option that takes a value and defaults to None (model_argparse.cpp): its
  // truth is the user's, unknown to guard_truth.
  bool value_option_unset(Node attr) const;
  // ... tested by an `if` of a function that does nothing with the defaults: a mode run with a value.
  bool value_option_mode(Node cond) const;
  bool is_loader_impl(Node expr) const;
  bool is_loader_uncached(Node expr) const;
  bool binding_is_cuda(const Binding& b) const;
  // `dict` is a `**kwargs` parameter and `key` a string literal: `kwargs[key]`, `kwargs.get(key)`
  // read one keyword, which the callers' facts (joined over every keyword) do not tell.
  bool keyword_dict_key(Node dict, Node key) const;
  // `x[k] = v` inside a loop that binds `k` to each key or index of `x` (`for k, v in x.items()`,
  // `for i in range(len(x))`): every element of x is replaced.
  bool elementwise_store(Node store) const;
  DeviceKind device_kind_impl(Node expr) const;
  DeviceKind device_kind_uncached(Node expr) const;
  // The loader constructions an expression may evaluate to (through names, wrappers, returns).
  const std::vector<Node>& loader_origins(Node expr) const;
  // What `c[key]` may be when every binding of the name c is a display: a dict comprehension's
  // value, a dict display's values (only the one under a string key the subscript writes), a
  // list or tuple display's elements, and the values `c[k] = v` stores in c's scope
  // (`loaders = {x: DataLoader(...) for x in ["train", "val"]}`; `loaders[phase]`). Empty
  // otherwise. O(bindings + elements + stores).
  std::vector<Node> subscripted_elements(Node subscript) const;
  // The target name of `a, b = f(...)` (f of another module) whose element the facts type as a
  // loader: an origin of its own, null otherwise.
  Node external_loader_element(const Binding& b) const;
  // A memoized boolean fact per node: 0 no, 1 yes, 2 in progress (a cycle answers no).
  template <class F>
  bool memo_bool(std::unordered_map<const void*, char>& cache, Node expr, F&& compute) const;
  HotContext frame_hot_context(int function, const std::vector<int>& loops,
                               const std::vector<std::pair<Node, bool>>& guards,
                               const std::vector<uint32_t>& guard_loop_depth, int lambda_depth) const;
  bool loop_performs_step(int loop, bool allow_forward) const;
  bool loop_contains_hot_loop(int loop, bool statements_only = false) const;
  // Per function: whether it holds a hot loop that trains or serves data (one iterating a loader,
  // or running `backward()` or an optimizer step outside its own nested hot loops), or calls a
  // function that does: of this module (through callers()), or of another (training_elsewhere:
  // its FunctionFacts::trains_loop). `nested` (optional, per loop): set for every loop such a hot
  // loop is nested in. A hot loop of forwards only (a planner's CEM iterations, a decoding loop,
  // a layer loop) counts for neither. Read by classify_loops and summarize (model_loops.cpp).
  // O(loops x depth + calls + functions).
  std::vector<char> training_loop_functions(std::vector<char>* nested) const;
  bool training_elsewhere(int call_index) const;
  // Per classification pass, from the current loop kinds, in O(loops + functions + calls).
  void compute_reachability();
  bool is_step_call(Node call, bool allow_forward = true) const;
  bool is_step_call_at(int call_index, bool allow_forward) const;  // memoized is_step_call
  bool loader_feeds_training_uncached(Node loader_call) const;
  void build_fit_arguments() const;  // fit_arguments_ and the drawn generator calls, once
  void build_indexes();
  bool is_module_value(Node expr) const;
  bool is_module_uncached(Node expr) const;
  bool is_optimizer_value(Node expr) const;
  int class_of_self(Node attr) const;
  // The attributes the methods of class `klass` store on `self` (`self.x = v`, `setattr(self,
  // "x", v)`), "*" for stores under computed names (`self.__dict__[k] = v`, `self.__dict__.update
  // (d)`, `vars(self).update(d)`, `setattr(self, k, v)`): FunctionFacts::self_stores. Every
  // class's at once on first use, O(self stores + subscript stores + update calls + calls).
  const std::set<std::string>& self_stores(int klass) const;
  // `self.DATA_WORKERS = 8` in the `__init__` of a plain configuration class (no base but
  // `object`, no decorator, one class of its name in the module): the host constants every store
  // of the attribute on `self` writes, all of them in the class's initializers, none augmented,
  // none by a subclass or under computed names (attribute_overridden), no class-level binding of
  // the name (class_level_constant's). Empty otherwise. O(stores of the attribute).
  std::vector<Value> init_constant(int klass, std::string_view name) const;
  // The attributes init_constant may answer for, per class (names of `self` stores in initializers).
  std::vector<std::set<std::string>> init_store_names() const;
  // Is `self.attr` in a method of class `klass` stored by a subclass (of this module or another:
  // ExternalFacts::subclass_stores), or by any method under computed names? Then its
  // initializer's value is a placeholder, not what the methods read (RT-DETR's BaseConfig with
  // `self.num_workers: int = 0`, overwritten by YAMLConfig's `self.__dict__[k] = cfg[k]`).
  bool attribute_overridden(int klass, std::string_view attr) const;
  mutable std::unordered_map<int, std::set<std::string>> overriding_stores_;  // attribute_overridden's memo
  // Is method f run only while its instance is built (model_attribute_values.cpp)? Memoized per function
  // once the model is built (each answer scans the file's text for the method's name).
  bool init_only_method(int f) const;
  mutable std::unordered_map<int, bool> init_only_memo_;
  mutable std::vector<std::set<std::string>> self_stores_;  // self_stores' per class, built on first use
  mutable bool self_stores_built_ = false;
  // `super()` / `super(Cls, self)`: the object of a `super().__init__(...)` call.
  bool is_super_call(Node obj) const;
  // `obj.attr` where every binding of `obj` builds an instance of a class of this file
  // (`dataset = Cifar(...)`): the values its initializers store in `self.attr`; empty otherwise.
  std::vector<Node> instance_attribute_stores(Node attr) const;
  // Applies the guards from index `from` on to `ctx` (amortization, once-per-epoch, flags).
  void apply_guards(HotContext& ctx, const std::vector<std::pair<Node, bool>>& guards, size_t from,
                    Node hot_region) const;
  bool branch_ends_run(Node condition, bool positive) const;
  // Session 39 (guards, class 5). `x is None` of a parameter: whether every call site (here, and
  // in other modules by their facts) passes a value that is never None (an instance of a project
  // class, a tensor, or a parameter handed on whose own sites do so, at most kMaxNeverNoneDepth
  // relays), a site leaving it out needing a default that is a known constant other than None.
  // Any splat, unknown value or site without a known type: false. O(sites x depth).
  bool param_never_none(int f, int pi, int depth = 0) const;
  bool arg_never_none(Node a, int depth) const;
  static constexpr int kMaxNeverNoneDepth = 4;
  bool some_live_site(int f, int pi, const std::vector<int>& sites, bool spawned) const;
  // `x is None` / `x is not None` of an operand: true when known None, false when known never None.
  std::optional<bool> none_truth(Node operand) const;
  // `isinstance(x, T)` with T builtin container or scalar types (dict, list, tuple, set, str, int,
  // float, bool, or a tuple of them) of a value typed a module or an optimizer (every
  // candidate of it: a parameter's type joins its call sites'): False. O(1) beyond the type.
  std::optional<bool> isinstance_truth(Node call) const;
  Node none_test_argument(Node call, bool is_none) const;
  // The known truth of a guard's condition: a constant, a name whose every binding in its scope
  // is the same constant (never declared global/nonlocal), `not`/`and`/`or` of known parts, a
  // comparison of known values (`x is None`, `device.type == "mps"`); nullopt when unknown.
  std::optional<bool> guard_truth(Node cond) const;
  std::optional<bool> guard_truth_uncached(Node cond) const;
  std::optional<bool> device_type_test(Node cond) const;  // `device.type == "mps"` on the GPU path
  // The truth of a guard on a parameter of `function` where it runs per step: from the
  // arguments of its hot call sites only (here and in other modules) and the default.
  std::optional<bool> hot_param_truth(int function, Node cond) const;
  std::optional<bool> hot_param_truth_uncached(int function, Node name) const;
  std::optional<Value> stable_constant(Node name) const;
  // The constants a name may hold wherever it is read, as stable_constant but several allowed
  // (a loop variable over `("bbox", "segm")` handed to a parameter); nullopt when one is unknown.
  std::optional<std::vector<Value>> stable_candidates(Node name) const;
  // A binding whose statement sits in a branch that never runs (an `if` whose condition is
  // known False, the `else` of one known True, an `elif` after a condition known True): it
  // reaches no use (lookup() leaves it out). Only once the model is built (types_ set).
  bool binding_dead(const Binding& b) const;
  // The branch conditions a binding's statement runs under within its scope, each with the
  // truth it needs (syntax only; memoized per binding).
  const std::vector<std::pair<Node, bool>>& binding_guards(const Binding& b) const;
  bool declared_global(std::string_view name) const;  // named by a `global`/`nonlocal` statement
  // `if flag:` whose own branch assigns `flag = False` (a name, or `self.flag`): runs once.
  bool flag_cleared_in_branch(Node cond) const;
  // `if self.x.item() == 0:` (or `int(self.x) == 0`, `self.x == 0`) whose branch runs
  // `self.x.fill_(1)`, a buffer nothing else but the initializers writes: runs once (a latch).
  bool buffer_latch_set(Node cond) const;
  // `args.rank = ...`, `opt.x += 1`: an attribute of that name is assigned on an object other
  // than `self` somewhere in the file (its argparse default is not its value everywhere).
  // `read`, when given: the `X.<attribute>` node read; a store that runs only after the `if`
  // whose test holds `read` does not count (model_detail::stored_after_own_test).
  bool attribute_reassigned(std::string_view attribute, Node read = Node{}) const;
  // `a == b`, `a is None`, `"mps" in s`, `a < b` of known operands (model_param_values.cpp).
  std::vector<Value> comparison_values(Node comparison) const;
  // Narrowing of a name's candidates at a use (model_values.cpp): `if x is None: x = v` before
  // the use drops the None of the bindings before it; `assert x in ("a", "b")` between a binding
  // and the use keeps the listed values.
  void narrow_at_use(Node use, const Binding& b, const std::vector<const Binding*>& reaching,
                     std::vector<Value>& vs) const;
  // `torch.distributed.get_backend(group)`: the backends the group may have (a group made with
  // `new_group(backend="gloo")`, the default group narrowed by the guards where it was taken).
  std::vector<Value> backend_values(Node call) const;
  std::vector<Value> group_backend(const Value& group, int depth) const;
  std::vector<Value> default_backend_at(Node at) const;
  // `assert name in (literals)` statements, by (scope, name): (statement, the literal sequence).
  const std::vector<std::pair<Node, Node>>& membership_asserts(int scope, const std::string& name) const;
  bool is_argparse_vars(Node e) const;  // `vars(args)`, args from parse_args()

  const ExternalFacts* facts_ = nullptr;
  mutable std::vector<signed char> loader_class_;  // per class: -1 not computed (loader_class)
  bool constructs_loader_class(int call_index) const;
  mutable std::vector<int> loader_positional_;  // per loader class: the most positional arguments a call may pass
  int named_loader_init(int function) const;
  bool positional_within(Node call, int limit) const;
  mutable std::set<std::string> module_reads_;  // module_attribute(): the names asked
  std::vector<std::string> ext_name_;  // per call index: the project name it may invoke, or ""
  std::string_view src_;
  Node root_{};
  const Settings& settings_;
  std::vector<Scope> scopes_;
  std::vector<Function> functions_;
  std::vector<Class> classes_;
  std::vector<Loop> loops_;
  std::vector<CallSite> calls_;
  std::unordered_map<const void*, int> call_index_;   // call node id -> calls_ index
  std::unordered_map<const void*, int> loop_by_node_;
  std::vector<std::vector<int>> callers_;              // function -> call indices
  std::vector<std::vector<int>> callees_by_call_;      // call index -> functions
  // Closures a call hands to a helper that calls them (closures_run_by), and the reverse.
  // runs_by_call_: callees and closures together (what the call runs, for hotness and
  // reachability); run_sites_: per function, the call sites that run it.
  std::vector<std::vector<int>> closures_by_call_;
  std::vector<std::vector<int>> runs_by_call_;
  std::vector<std::vector<int>> run_sites_;
  std::vector<HotContext> hot_function_;
  std::unordered_map<std::string, std::vector<Node>> argparse_args_;  // dest -> add_argument calls, in order
  mutable std::unordered_map<std::string, std::vector<Value>> argparse_cache_;  // dest -> defaults
  // `obj.attr = value` (obj not self), `obj.attr += ...` and setattr(obj, "attr", value): attr ->
  // (obj, value; null when the value is not read). setattr with a computed name: under "*".
  std::unordered_map<std::string, std::vector<std::pair<Node, Node>>> attribute_stores_;
  bool sets_defaults_ = false;  // some `parser.set_defaults(...)`: defaults of dests no add_argument declares
  mutable std::unordered_map<const void*, char> namespace_cache_;  // call id -> 0 no, 1 yes, 2 in progress
  // The facts of other modules' functions this module calls that return argparse namespaces
  // (FunctionFacts::returns_namespace), at most 8; built on first use.
  mutable std::vector<const FunctionFacts*> ext_namespaces_;
  mutable bool ext_namespaces_built_ = false;
  const std::vector<const FunctionFacts*>& ext_namespaces() const;
  // The values another module's namespace function gives `dest` (empty: none declares it).
  std::vector<Value> ext_namespace_values(std::string_view dest) const;
  // Parameters' nodes whose values stand for namespaces handed by other modules -> their facts.
  mutable std::unordered_map<const void*, const ArgFacts*> namespace_params_;
  // namespace_facts' table per kind of candidate (a parameter's facts, or null: this module's
  // parsers), built once per model.
  mutable std::unordered_map<const void*, std::vector<std::pair<std::string, std::vector<ScalarFact>>>> namespace_tables_;
  std::vector<std::pair<std::string, Node>> self_assignments_;  // "Class.attr" -> value
  // `self.a, self.b = f(...)` (a call, not a display): "Class.attr" -> (the call, the attribute
  // in the target pattern); the attribute takes the element of the call's result at its position.
  std::unordered_map<std::string, std::vector<std::pair<Node, Node>>> self_unpacked_by_key_;
  std::vector<Node> subscript_assignments_;  // `d["k"] = v` statements
  std::vector<Node> subscript_augmented_;    // `d["k"] += v` statements
  std::vector<Node> update_calls_;           // `d.update(...)` calls
  // Names `x` of the file with a call `x.update(...)`, `x.setdefault(...)` or `x.__setitem__(...)`:
  // a dict filled by a method call holds what no display shows (built once; O(log names) a query).
  std::set<std::string> method_filled_;
  // CUDA taint: per scope, names that may hold CUDA values; per class, self attributes.
  std::vector<uint32_t> scope_start_, scope_end_;        // scope ranges, scopes in source order
  std::vector<char> loader_call_;                        // per call index
  std::map<std::pair<int, std::string>, std::vector<Node>> appends_;  // (scope, name) -> x.append(v)
  std::unordered_map<std::string, std::vector<Node>> self_appends_;  // "Class.attr" -> self.attr.append(v)
  // "Class.attr" -> the right side v of each `self.attr += v` (any augmented operator) in a method
  // of the class: the attribute then holds the result, a tensor on v's device when v is one.
  std::unordered_map<std::string, std::vector<Node>> self_augmented_;
  std::map<std::pair<int, std::string>, std::vector<Node>> subscript_stores_;  // (scope, name) -> `x[k] = v`
  // Indexes built once (the analysis reads them from every call site).
  std::unordered_map<const void*, int> class_by_node_, function_by_node_;
  std::unordered_map<std::string, std::vector<int>> classes_by_name_;     // in class order
  std::unordered_map<std::string, std::vector<int>> self_assignments_by_key_;  // indices, in order
  // The indices in self_assignments_ of the stores `self.attr = v` keyed "Class.attr" (the class's
  // name and the attribute's; key or class klass's), in order; empty when there is none. O(1).
  std::span<const int> self_stores(const std::string& key) const;
  std::span<const int> self_stores(int klass, std::string_view attr) const;
  std::vector<std::vector<int>> calls_by_caller_;  // function -> call indices, in order
  std::vector<std::vector<int>> calls_in_loop_;    // loop -> indices of calls nested in it, in order
  std::vector<std::vector<int>> loops_by_function_;
  mutable std::vector<signed char> step_call_[2];  // per call index, allow_forward: -1 unknown
  // Reachability over the call graph for the current loop kinds (compute_reachability).
  std::vector<char> nested_hot_;               // per loop: a loop nested in it is hot
  std::vector<char> nested_hot_statement_;     // ... a `for`/`while` loop nested in it is hot
  bool cold_comprehensions_dropped_ = false;   // the walk enters only hot comprehension loops
  void drop_cold_comprehensions();
  std::vector<char> function_has_hot_loop_;    // per function: it or a function it calls has a hot loop
  std::vector<char> function_steps_[2];        // per function, allow_forward: it or a callee steps
  mutable std::vector<signed char> called_in_loop_;  // per function (lazy): called from a loop
  // Loader identity: for-loop / while-next loops per loader construction (built on first use).
  mutable bool loops_by_loader_built_ = false;
  mutable std::unordered_map<const void*, std::vector<int>> loops_by_loader_;
  mutable std::unordered_map<const void*, std::vector<Node>> origins_cache_;  // in progress: absent from done
  mutable std::unordered_set<const void*> origins_active_;
  mutable std::unordered_map<const void*, bool> feeds_training_cache_;
  mutable bool fit_arguments_built_ = false;
  // Calls of torch.multiprocessing.spawn / start_processes (param_values), found in one scan.
  mutable bool spawn_calls_built_ = false;
  mutable std::vector<int> spawn_calls_;
  mutable std::unordered_set<const void*> fit_arguments_;  // loader calls passed to fit/validate/...
  mutable std::unordered_map<std::string, int> memo_;
  mutable std::map<std::pair<const void*, const void*>, bool> first_iteration_flag_;  // (condition, hot region)
  mutable std::map<std::pair<const void*, const void*>, bool> bounded_index_guard_;  // (condition, hot region)
  // Per hot region (bounded_index_guard): does it leave the loop (`break`, `return`), and the
  // texts it stores to or calls methods on (`x = ...`, `self.n += 1`, `seen.append(...)`).
  struct RegionStores {
    bool exits = false;
    bool complete = true;  // false: the walk's budget ran out (nothing is proven fixed)
    std::unordered_set<std::string> stored, receivers;
  };
  mutable std::unordered_map<const void*, RegionStores> region_stores_;
  const RegionStores& region_stores(Node region) const;
  mutable bool global_names_built_ = false;
  mutable std::unordered_set<std::string> global_names_;  // names in global/nonlocal statements
  mutable std::unordered_set<std::string> assigned_attributes_;  // attribute names assigned (not on self)
  mutable std::unordered_map<const void*, signed char> hot_param_truth_cache_;  // as guard_truth_cache_
  bool hot_functions_ready_ = false;  // compute_hot_functions() has finished
  mutable std::unordered_map<const void*, signed char> guard_truth_cache_;  // -1 unknown, 0, 1; 2 in progress
  mutable std::unordered_map<const Binding*, std::vector<std::pair<Node, bool>>> binding_guards_;
  mutable std::unordered_map<const void*, std::string> qualified_cache_;  // node id -> qualified_name
  // Names read through star imports of project modules (ExternalFacts::star_import), per name.
  mutable std::unordered_map<std::string, std::string> star_import_cache_;
  mutable int has_star_import_ = -1;
  mutable std::unordered_map<int, bool> uncalled_memo_;  // uncalled_method() per function
  mutable std::unordered_map<int, bool> unreferenced_memo_;  // unreferenced_class() per class
  mutable signed char reads_own_namespace_ = -1;  // the text reads its own namespace (globals() ...): -1 unknown
  mutable std::vector<int> uncalled_active_;              // the methods being asked about
  mutable int uncalled_work_ = 0;  // the module has a `from M import *` (-1 not yet known)
  // Value memo: done entries hold the candidates; an entry in progress answers unknown.
  struct ValuesEntry {
    bool done = false;
    std::vector<Value> values;
  };
  mutable std::unordered_map<const void*, ValuesEntry> values_cache_;
  mutable std::map<std::pair<int, int>, ValuesEntry> param_cache_;
  mutable std::unordered_map<const void*, ValuesEntry> elem_values_cache_;  // element_values()
  mutable bool inserts_built_ = false;
  mutable std::set<std::pair<int, std::string>> inserted_names_;  // (scope, name) of `name.insert(...)`
  mutable bool asserts_built_ = false;
  mutable std::map<std::pair<int, std::string>, std::vector<std::pair<Node, Node>>> membership_asserts_;
  mutable std::unordered_map<const void*, Kwargs> kwargs_cache_;
  mutable std::unordered_map<const void*, char> cuda_cache_;  // node id -> 0 no, 1 yes, 2 in progress
  // param_elements_cuda's memo per (function, parameter index); an entry in progress is empty.
  mutable std::map<std::pair<int, int>, std::vector<char>> param_elems_cache_;
  // isinstance_narrowing's index, built on first use from the `isinstance(name, T)` calls: per name,
  // the consequence blocks of ifs testing a host type, and the ifs converting a tensor.
  struct IsinstanceIfs {
    std::vector<Node> host_blocks;
    std::vector<Node> tensor_conversions;
  };
  mutable std::unordered_map<std::string, IsinstanceIfs> isinstance_ifs_;
  mutable bool isinstance_ifs_built_ = false;
  mutable std::unordered_map<const void*, char> cuda_bool_cache_;
  mutable std::unordered_map<const void*, char> batch_cache_;
  mutable std::unordered_map<const void*, char> loader_cache_;
  mutable std::unordered_map<const void*, char> module_cache_;
  mutable std::unordered_map<const void*, char> device_cache_;  // DeviceKind + 1; 0 in progress
  std::vector<char> lightning_class_;  // per class: a LightningModule
  mutable std::vector<const StepHook*> step_hook_;  // per function, once step_hook_ready_
  mutable std::vector<char> step_hook_ready_;
  mutable int active_depth_ = 0;
  mutable unsigned long long work_ = 0;
  unsigned long long budget_ = 0;
  bool uses_cuda_ = false;
  bool lightning_gpu_ = false;
  std::unique_ptr<TypeInference> types_;
  static const std::vector<int> kNoCallers;
};

// ---- the walk ---------------------------------------------------------------------------
// What a node type means to the walk, per symbol of the grammar (built once from the type
// names, so the same answers as comparing kind()): the walk reads one table entry per node
// instead of comparing its type name with each context-opening type.
namespace walk_detail {
enum Class : unsigned char { Plain, Loop, Function, If, Else, Lambda, Conditional };
const unsigned char* classes();  // indexed by symbol; Plain past the grammar's symbols (ERROR)
uint32_t symbol_count();
}  // namespace walk_detail

template <class F>
void SemanticModel::walk(F&& visit) const {
  enum Push { None, LoopBody, FunctionBody, Guard, NegGuard, LambdaBody };
  struct Item {
    Node node{};
    Node ctx{};  // the loop, the function definition, or the guard's condition
    int loop;  // LoopBody: the loop's index
    Push push;
    bool exit;
  };
  static const unsigned char* classes = walk_detail::classes();
  static const uint32_t symbol_count = walk_detail::symbol_count();
  const ChildIndex* index = current_child_index();
  WalkFrame frame;
  std::vector<WalkFrame> saved;
  std::vector<Item> stack;
  stack.push_back({root_, Node{}, -1, None, false});
  while (!stack.empty()) {
    Item item = stack.back();
    stack.pop_back();
    if (item.exit) {
      switch (item.push) {
        case LoopBody: frame.loops.pop_back(); break;
        case FunctionBody: frame = saved.back(); saved.pop_back(); break;
        case Guard: case NegGuard: frame.guards.pop_back(); frame.guard_loop_depth.pop_back(); break;
        case LambdaBody: --frame.lambda_depth; break;
        default: break;
      }
      continue;
    }
    switch (item.push) {
      case LoopBody: frame.loops.push_back(item.loop); break;
      case FunctionBody: {
        saved.push_back(frame);
        WalkFrame f;
        f.function = function_at(start(item.node));
        f.klass = f.function >= 0 ? functions_[f.function].klass : -1;
        frame = f;
        break;
      }
      case Guard: case NegGuard:
        frame.guards.push_back({item.ctx, item.push == Guard});
        frame.guard_loop_depth.push_back(static_cast<uint32_t>(frame.loops.size()));
        break;
      case LambdaBody: ++frame.lambda_depth; break;
      default: break;
    }
    Node n = item.node;
    visit(n, frame);
    // The node's children and fields from the installed ChildIndex, found once (field() and the
    // child iteration would each search it again); tree-sitter when none is installed.
    const ChildIndex::Entry* entry = index && !is_null(n) ? index->find(n) : nullptr;
    auto child_field = [&](FieldName name) { return entry ? index->field(*entry, name.id()) : field(n, name); };
    TSSymbol symbol = is_null(n) ? 0 : ts_node_symbol(n);
    walk_detail::Class cls = is_null(n) || symbol >= symbol_count ? walk_detail::Plain
                                                                  : static_cast<walk_detail::Class>(classes[symbol]);
    // The one child that opens a context (a loop or function body, a guarded branch).
    Push special_push = None;
    Node special{}, special_ctx{};
    int special_loop = -1;
    // `x if cond else y`: x is guarded by cond as `if cond:` guards its body, y as the else.
    Node cond_true{}, cond_false{}, cond_expr{};
    switch (cls) {
      case walk_detail::Loop:  // for, while, a comprehension
        if (int li = loop_index(n);
            li >= 0 && (!cold_comprehensions_dropped_ || !loops_[li].comprehension || loops_[li].kind == LoopKind::Hot)) {
          special_push = LoopBody;
          special = child_field("body");
          special_ctx = n;
          special_loop = li;
        }
        break;
      case walk_detail::Function:
        special_push = FunctionBody;
        special = child_field("body");
        special_ctx = n;
        break;
      case walk_detail::If:  // an if statement, an elif clause
        special_push = Guard;
        special = child_field("consequence");
        if (!is_null(special)) special_ctx = child_field("condition");
        break;
      case walk_detail::Else:
        if (Node p = entry ? entry->parent : parent(n); is(p, "if_statement")) {
          special_push = NegGuard;
          special = child_field("body");
          special_ctx = field(p, "condition");
        }
        break;
      case walk_detail::Lambda:
        special_push = LambdaBody;
        special = child_field("body");
        break;
      case walk_detail::Conditional:
        if (named_count(n) == 3) {
          cond_true = named_child(n, 0);
          cond_expr = named_child(n, 1);
          cond_false = named_child(n, 2);
        }
        break;
      default: break;
    }
    // The children collect() enumerates: named, not extras. Error recovery marks some ERROR
    // nodes as extras; what they hold is not analyzed (collect() never indexed it).
    auto push_child = [&](Node c) {
      Push push = None;
      Node ctx{};
      if (special_push != None && !is_null(special) && same(c, special)) {
        push = special_push;
        ctx = special_ctx;
      } else if (!is_null(cond_expr) && (same(c, cond_true) || same(c, cond_false))) {
        push = same(c, cond_true) ? Guard : NegGuard;
        ctx = cond_expr;
      }
      int loop = push == LoopBody ? special_loop : -1;
      if (push != None) stack.push_back({c, ctx, loop, push, true});
      stack.push_back({c, ctx, loop, push, false});
    };
    if (entry) {
      const Node* kids = index->children(*entry);
      for (uint32_t i = entry->count; i-- > 0;)
        if (index->is_named_code(*entry, i)) push_child(kids[i]);
    } else {
      for_each_named_child_reverse(n, push_child);
    }
  }
}

}  // namespace stoker::python
