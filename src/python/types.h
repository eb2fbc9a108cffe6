// Abstract types of Python expressions: a small bounded lattice (host scalar, host container,
// tensor or module with a device, data loader, optimizer, device, object of a project or
// framework class, unknown) inferred from torch API knowledge, the project's classes and
// functions, and the framework table (src/python/frameworks.h). "May be CUDA" is a property of
// a type: only tensors and modules whose device may be CUDA (and containers holding them).
// docs/architecture.md, "Abstract types", describes the lattice and the sources of types.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "python/syntax.h"

namespace stoker::python {

class SemanticModel;
struct Binding;
struct FunctionFacts;

// Where a tensor or module lives. Unresolved: nothing known (the CUDA taint of the semantic
// model decides); Cpu: not CUDA (the host, or a device of another type: `mps`, `xpu`...); Any:
// may be CPU or CUDA (counts as "may be CUDA").
enum class TypeDevice : uint8_t { Unresolved, Cpu, Cuda, Any };

struct AbstractType {
  enum class Kind : uint8_t {
    Bottom,         // no candidate (yet): the identity of join
    None,           // Python None: joined with X it is X (an optional X)
    HostScalar,     // int, float, bool, str
    HostContainer,  // list, tuple, dict, set, range, numpy array; `device`: of its elements
    Host,           // a host value of several kinds
    Tensor,         // `device`: where it lives
    Module,         // an nn.Module; `device`: where its parameters live
    Loader,         // a data loader; `device`: where its batches are (Cuda: prepared by a framework)
    Optimizer,
    Device,         // a torch.device or device string; `device`: the one it names
    Object,         // an instance of a project class that is not a module, or of a framework class
    ModuleMember,   // an unresolved attribute of a module (a config value, a submodule, a method):
                    // read, a host value; called, a tensor on the module's `device`
    Unknown,        // top
  };
  Kind kind = Kind::Unknown;
  TypeDevice device = TypeDevice::Unresolved;
  int klass = -1;      // Module/Object: the project class (SemanticModel::classes()), -1 none; <= -2: a class
                       // of another project module (TypeInference::ext_class)
  int framework = -1;  // Object: the framework class (FrameworkTable), or -1
  bool tensors = false;  // HostContainer: every element, at every depth, is a tensor (a list of CPU
                         // index tensors: its elements are CPU tensors, not host values of any kind)

  static AbstractType of(Kind k, TypeDevice d = TypeDevice::Unresolved) {
    AbstractType t;
    t.kind = k;
    t.device = d;
    return t;
  }
  static AbstractType unknown() { return {}; }
  static AbstractType bottom() { return of(Kind::Bottom); }
  bool operator==(const AbstractType& o) const {
    return kind == o.kind && device == o.device && klass == o.klass && framework == o.framework && tensors == o.tensors;
  }
  // A value that never lives on a GPU (scalars, host containers of host values, objects...).
  bool is_host() const;
};

// The least upper bound of two types.
AbstractType join(const AbstractType& a, const AbstractType& b);
TypeDevice join(TypeDevice a, TypeDevice b);

// The answer the type gives to "may this expression be a CUDA tensor (or module)?".
enum class CudaAnswer : uint8_t { Host, Cuda, Undecided };
CudaAnswer cuda_answer(const AbstractType& t);

// How what a function returns depends on its parameters, so that a call is typed with its own
// arguments rather than with the join over every call site (`default(v, d)`: `v if exists(v)
// else d`; `xyxy2xywh(x)`: `y = torch.zeros_like(x) ... return y`). The return is the join of
// a part that does not depend on the arguments (`fixed`) and, per parameter used, either the
// argument itself or a tensor on the argument's device. `known` false: some return depends on
// the parameters in another way (the context-free join over the call sites applies).
// Computed once per function (src/python/types_returns.cpp); evaluated per call site in
// O(parameters used).
struct ReturnDependence {
  bool known = false;
  AbstractType fixed = AbstractType::bottom();
  std::vector<Node> fixed_nodes;  // the argument-independent expressions whose type leaves the CUDA taint to decide
  struct Use {
    int param = -1;       // index into the function's parameters (self is 0 for methods)
    bool device = false;  // a tensor on the argument's device, not the argument itself
    bool called = false;  // what calling the argument gives (`d()` of a `default(v, d)`)
    // The argument moved to CUDA (`return variable.cuda()`, SR-GNN's `trans_to_cuda`): a module
    // keeps its class on CUDA, a tensor is a CUDA tensor, whatever the argument's own taint
    // (device and called unset).
    bool moved = false;
    bool operator==(const Use&) const = default;
  };
  std::vector<Use> uses;  // at most kMaxUses
  static constexpr size_t kMaxUses = 8;
  // FunctionFacts::dep_uses' second: 0 the argument itself, 1 a tensor on its device,
  // kCalledFact a called use (its device not kept), kMovedFact a moved use.
  static constexpr int kCalledFact = 2;
  static constexpr int kMovedFact = 3;
};

// The inference, owned by the SemanticModel (one per file). Every entry is a `Step` of the
// model (work budget, shared depth limit); results are memoized per (node, destructuring path);
// a node met again while it is being inferred answers Bottom (optimistic within a cycle).
class TypeInference {
 public:
  explicit TypeInference(const SemanticModel& m) : m_(m) {}
  // The type of an expression.
  AbstractType type_of(Node expr) const { return value(expr, Path{}); }
  CudaAnswer cuda(Node expr) const { return cuda_answer(type_of(expr)); }
  // The type of the elements an iteration over `iterable` yields.
  AbstractType element_of(Node iterable) const { return iter(iterable, Path{}); }
  // The type a binding gives its name (its part of an unpacked value).
  AbstractType binding_type(const Binding& b) const { return binding_part(b, Path{}); }
  // Does iterating the expression iterate a data loader by its type (a loader a framework
  // prepared or built: device batches), also through enumerate/tqdm/zip/iter/islice?
  bool is_loader_iteration(Node iterable) const;
  // The same, for a loader whose batches are on the host by its type (a DataLoader of host data,
  // torchtext's iterators: data/frameworks.txt `host-batches`).
  bool is_host_loader_iteration(Node iterable) const;
  // A `for` target (not unpacked) over a loader iteration whose batches are not on CUDA by the
  // loader's type: a batch a bare `batch.to(device)` moves in place (its fields, not a module).
  bool in_place_batch(const Binding& b) const;
  // For a framework `prepare` call (`accelerator.prepare(a, b, c)`): the argument that the
  // target (an identifier in the assignment's target pattern; null: the whole result of a
  // one-argument call) receives prepared. Null otherwise.
  Node prepared_source(Node call, Node target) const;
  // Project mode: what the other modules need of module-level class `klass` (module kind, the
  // types of its attributes, what iterating an instance yields), into its "Class" facts.
  void class_facts(int klass, FunctionFacts& out) const;
  // Project mode: what function `function` returns by its types, whole and per element of a
  // returned tuple display (FunctionFacts::ret_kind, ret_device, ret_elems).
  void return_facts(int function, FunctionFacts& out) const;
  // How function `function` returns depends on its parameters (computed once, memoized).
  const ReturnDependence& return_dependence(int function) const;
  // A call of `function` (defined here) typed by its return dependence with this call's
  // arguments; false where the dependence is unknown or an argument cannot be read.
  bool site_return(int function, Node call, AbstractType& out) const;
  // What the functions `targets` (defined here) called at `call` return (types_calls.cpp).
  AbstractType callees_return(const std::vector<int>& targets, Node call, bool every_returns) const;
  // The same for a function of another project module by its facts (FunctionFacts::dep_*).
  bool site_return(const FunctionFacts& f, Node call, AbstractType& out) const;
  // The argument `call` passes to parameter `param` of `function` (here), or its default; null
  // when it passes none (or unpacks `*args`/`**kwargs`).
  Node site_argument(int function, int param, Node call) const;
  // Project mode: the dependence of `function` as facts (FunctionFacts::dep_*).
  void dependence_facts(int function, FunctionFacts& out) const;
  // A type as the facts carry it (kind and device as numbers); unknown when out of range.
  static AbstractType from_fact(int kind, int device);
  // Project mode: the canonical name (ExternalFacts::canonical) of the class of an instance
  // type (a module-level class here, or one of another module), or "" when it has none.
  std::string class_name(const AbstractType& t) const;
  // A path into nested tuples: (indices, length), at most 7 levels.
  struct Path {
    uint64_t code = 0;  // low 4 bits: length; then 8 bits per index
    size_t size() const { return code & 0xF; }
    int at(size_t i) const { return static_cast<int>((code >> (4 + 8 * i)) & 0xFF); }
    Path rest() const;
    Path append(const Path& tail) const;  // invalid (size 15) when too long
    static Path single(int i);
    bool valid() const { return size() != 0xF; }
  };
  // The class, or class union ("A|B", project_facts.h), of the instances `expr` (at `path` into
  // its tuples) may be: the class of its type, else, where the join of several classes lost it,
  // the union of its bindings' classes (`model = A()` then `if c: model = B(model)`) or of a
  // conditional expression's branches. "" when one candidate is not an instance of a project
  // class or the union is too large. Bounded: at most 17 bindings, at most 2 levels of names.
  std::string class_names(Node expr, Path path, int depth = 0) const;
  // The classes of this module a value may be an instance of, where class_names gives a union
  // of two or more of them and nothing else (`(A(...) if c else B(...)).to(dev)` handed to a
  // parameter); empty otherwise.
  std::vector<int> local_class_union(Node expr) const;
  // The class union of the instances `expr` may be when its type lost the class in a join of
  // several (`agent = A2C(...)` in one branch, `agent = PPO(...)` in another): "A|B" when every
  // member is a class of another project module (all modules or all not), else "".
  std::string external_union(Node expr) const;

 private:
  AbstractType value(Node expr, Path path) const;   // the type of expr[path...]
  AbstractType iter(Node iterable, Path path) const;  // an element of iterating expr, at path
  AbstractType value_uncached(Node expr, Path path) const;
  AbstractType iter_uncached(Node iterable, Path path) const;
  AbstractType base_type(Node expr) const;             // value at the empty path, by node kind
  AbstractType binding_part(const Binding& b, Path path) const;
  AbstractType call_type(Node call) const;
  // call_type with `fn` for the called expression (the call's own function, or an attribute a
  // name called as a function refers to: SemanticModel::called_references).
  AbstractType call_type_of(Node call, Node fn) const;
  // What calling an instance of project class `klass` (here >= 0, or another module's <= -2)
  // gives when its `forward` returns CPU tensors (or containers of them) by its types; unknown
  // otherwise (a module's output is on its device).
  AbstractType host_forward(int klass) const;
  // The join of what method `name` returns (at `path`), found on project class `klass` (>= 0) or
  // its nearest base defining it; unknown when none defines it, or that one has no return or
  // yields. O(bases + the returns). Serves class_iter's `__next__` and host_forward's `forward`.
  AbstractType method_returns(int klass, std::string_view name, Path path) const;
  AbstractType instance_iter(const AbstractType& object, Path path) const;  // iterating an Object of a project class
  // `d["key"]` where every value d may hold is a dict display (through names, parameters from
  // call sites, conditional expressions) that gives the key: the join of those values' types
  // and of every store of that key in the file (`x["key"] = v`, `x["key"] += v`,
  // `x.update(key=v)`). Unknown otherwise.
  AbstractType keyed_value(Node subscript) const;
  // `batch["k"]` of a loader's batch whose collate_fn (a function of this file) gathers the
  // dataset items' host values under k: a host list (Accelerate moves only tensors).
  bool collated_host_list(Node batch, const std::string& key) const;
  AbstractType keyed(Node container, const std::string& key, std::vector<std::string_view>& names) const;
  AbstractType attribute_type(Node attr) const;
  AbstractType member_type(int klass, std::string_view attr, TypeDevice owner) const;
  // The stores of `self.attr` ("Class.attr") another method can see: each value with the path
  // into it (an element of an unpacked call's result), less those a later store of the same
  // method overwrites (a statement of a block enclosing them: `self.dl = DataLoader(...)` then
  // `(..., self.dl) = accelerator.prepare(..., self.dl)` in `__init__`).
  std::vector<std::pair<Node, Path>> self_stores(const std::string& key) const;
  // `self.x = self.x.to(dev)` after `self.x = Net(...)` in the same block of a method: for the
  // read `attr` in the value of such a store of its own attribute, the value of the nearest
  // earlier store of that attribute among the block's statements, with no other store of it
  // between; null otherwise. attribute_type reads it where that value is typed a module.
  Node earlier_self_store(Node attr) const;
  AbstractType param_type(int function, int param_index, Path path, bool iterate) const;
  AbstractType param_type_from_sites(int function, int param_index, Path path, bool iterate) const;
  AbstractType annotated_type(int function, int param_index) const;  // a host type the annotation declares
  AbstractType instance_of(int klass) const;
  // What a framework's `prepare` hands back for `argument` (prepared_type), else unknown.
  AbstractType prepared(Node argument) const;
  // What `prepare` hands back for `v` of type `t`: a module, tensor or loader on the device
  // (also `v` a module, a loader, or a library loader factory's result by its expression), an
  // optimizer as it is; nullopt for anything else.
  std::optional<AbstractType> prepared_type(AbstractType t, Node v) const;
  // A call of a library's loader factory (a function named "...loader" that neither this file
  // nor another project module defines), or a name or attribute bound only to such calls.
  bool library_loader(Node expr) const;
  // A mark on a self store's path (self_stores; above the 60 bits of indices and length, below
  // the iteration mark of the memo keys): the store stands for the attribute handed back
  // prepared by a framework, so its value is read on the device.
  static constexpr uint64_t kPreparedStore = 1ULL << 62;
  // The type of a store of self_stores: `v` at `p` (unmarked), as `prepare` hands it back
  // (prepared_type) where `p` carries kPreparedStore.
  AbstractType store_type(Node v, Path p) const;
  AbstractType arith(const AbstractType& a, const AbstractType& b) const;
  AbstractType self_type(Node identifier) const;
  // The device a framework puts `self` on where it calls the method as a step hook whose table
  // row names `self=module` (a Lightning module's hooks: the accelerator, TypeDevice::Any in a
  // program that uses CUDA); Unresolved for any other expression.
  TypeDevice hook_self_device(Node expr) const;
  // Return dependence (types_returns.cpp): adds what `expr` (in function `function`) contributes
  // to the return, the argument itself (or, with `device`, a tensor on its device) per parameter
  // used; false when it depends on the parameters in another way.
  bool dependence(Node expr, int function, bool device, int depth, ReturnDependence& out) const;
  AbstractType narrowed(Node use, const Binding& b, AbstractType t) const;
  bool mentions_parameters(Node expr, int function, int depth) const;
  bool stable_local(const Binding& b, int function) const;
  // A parameter's name read at `use`, every item of which a store of the function's scope
  // (`scope`) before the use replaces by that item moved to CUDA (`for k in batch: batch[k] =
  // batch[k].to(device)` with a device that may be CUDA, `.cuda()`): O(the stores into the name).
  bool items_moved_to_cuda(Node use, int scope) const;
  // The join of two types where a value on the host either way stays host (a CPU tensor or a
  // numpy array: a CPU tensor).
  static AbstractType host_join(const AbstractType& a, const AbstractType& b);
  static AbstractType device_of(const AbstractType& t);  // a tensor on t's device
  // The type of a part of a dependence at a call (the argument, or a tensor on its device).
  AbstractType use_type(Node argument, bool device) const;
  // The type of an element of a value of type t, destructured by `path` further.
  static AbstractType element(const AbstractType& t, size_t depth);
  Path target_path(Node target) const;  // position of an identifier in its target pattern
  // -1 unknown, 0 not a module class, 1 an nn.Module (or LightningModule) class.
  int module_class(int klass) const;
  int base_class(int klass) const;  // a base class defined here, or -1
  // A construction (of a module) run while torch's default device is CUDA: inside `with
  // torch.device("cuda"):`, or after a statement of its block `torch.set_default_tensor_type(
  // torch.cuda.HalfTensor)` / `torch.set_default_device("cuda")` with no such statement setting
  // another default between them. Its parameters are built on the GPU.
  bool built_on_cuda_default(Node call) const;
  // `self.attr` that neither the class nor a base of it stores (member_type found nothing): what
  // the subclasses that do store it give it, this file's (their stores) and other modules'
  // (ExternalFacts::subclass_attr_types). Unknown when none does, or one's type is not known.
  AbstractType subclass_member_type(int klass, std::string_view attr, TypeDevice owner) const;
  // The framework class (FrameworkTable) a project class derives from: a base named in the table,
  // through bases here or another project module's class facts; -1 none.
  int framework_base(int klass) const;
  // Classes of other project modules (project mode): instances carry klass = -2 - index.
  const FunctionFacts* ext_class(int klass) const;           // klass <= -2: its facts
  const FunctionFacts* ext_base(int klass, std::string* name = nullptr) const;  // an imported base's facts
  int ext_instance_class(Node call) const;  // the klass (<= -2) of the instance a call builds, or -1
  // What a function of another project module returns by its facts (unknown if they do not say).
  static AbstractType ext_return(const FunctionFacts& f);
  // The facts of the function of another project module a call invokes: a function named
  // through imports, or a method of an instance of another module's class.
  const FunctionFacts* ext_function(Node call, unsigned fields) const;
  // The facts of each project function a call of one of several invokes (a registry lookup's
  // union: `build = REG.get(name); build(args)`); empty unless every member has facts.
  std::vector<const FunctionFacts*> ext_union_functions(Node call, unsigned fields) const;
 public:
  // `obj.method` (an attribute, not called) of an instance of another project module's class:
  // that method's facts, or null.
  const FunctionFacts* ext_method(Node attribute, unsigned fields) const;
  // A loader expression (a DataLoader construction, or a name bound once to one) whose collate_fn
  // builds Python values only (SemanticModel::collate_python_values): a framework's `prepare`
  // leaves its batches on the host.
  bool python_value_batches(Node loader) const;
  // `waveglow.infer(mel)`: a method, not of nn.Module's own API nor private, of a module of no
  // known class that may be on CUDA, called with a tensor that may be on CUDA: it runs the
  // network there (a step; a tensor that may be on CUDA). False for anything else.
  bool runs_module_method(Node call) const;
  // `tokenizer(texts, return_tensors="pt")`, `tokenizer.encode(text, return_tensors="pt")`: a
  // call of a framework object's method (`__call__`: of the object) that encodes what it is given
  // into CPU tensors, its keyword given the string the table's `host-encoding` row names. 0: no
  // such call; 1: one CPU tensor; 2: a mapping of them (a BatchEncoding). O(1) type queries.
  int host_encoding(Node call) const;
  // The yields of `function` (value, is `yield from`; not those of nested definitions and
  // lambdas), at most kMaxCandidates + 1; memoized. Also read by SemanticModel::yielded_loaders.
  const std::vector<std::pair<Node, bool>>& yields(int function) const;
  // The classes of other project modules (names as written here) whose instances this module
  // binds to a name on a CUDA device (`model = Net().cuda()`, `Trainer(model=model)`).
  std::vector<std::string> cuda_instance_classes() const;
  // `self.attr` in a method of class `klass` (>= 0) reads a buffer or parameter the class or a
  // base here registers (`self.register_buffer("attr", t)`) of an instance that may be on CUDA
  // (class_on_cuda): the tensor lives where the module does.
  bool buffer_on_cuda(int klass, std::string_view attr) const;
  // Decides which classes have instances on CUDA (class_on_cuda) and the buffers each class
  // registers, once: SemanticModel calls it before any CUDA question, so that the inference it
  // runs never meets a question in progress (whose partial answer the memos would keep).
  void decide_buffer_devices() const;

 private:
  // An instance of class `klass` (>= 0) or of a subclass here may be on CUDA: bound to a name
  // on CUDA or moved there in place here (`q = Queue(...).to(device)`, `model.cuda()`), stored
  // by a method of a class that is (a submodule), a framework class that trains on the
  // accelerator (a Lightning module), or, in project mode, an instance another module places on
  // CUDA (ExternalFacts::class_on_cuda). All classes at once on the first question, memoized:
  // O(bindings + self stores x classes).
  bool class_on_cuda(int klass) const;
  // The klass (<= -2) of a class of another project module, by the name this module writes (or
  // a canonical one), or -1 when the project has no such class.
  int ext_class_index(std::string_view written) const;
  // A class by its canonical name: a module-level class here (>= 0), one of another module
  // (<= -2), or -1.
  int class_by_canonical(const std::string& name) const;
  AbstractType instance_type(int klass, TypeDevice module_device) const;  // klass >= 0 or <= -2
  AbstractType returned_instance(const FunctionFacts& f) const;  // its `returns_class`, or unknown
  // Attribute `attr` of the class of another project module named `cls` (ExternalFacts::class_attr,
  // recorded per attribute); `present`: its facts name the attribute (typed or not).
  AbstractType ext_member(std::string_view cls, std::string_view attr, TypeDevice owner, bool* present = nullptr) const;
  AbstractType class_iter(int klass, Path path) const;       // iterating an instance of a class here
  bool registered_tensor(int klass, std::string_view attr) const;  // self.register_buffer("attr", ...)
  int class_of_callee(Node fn) const;  // the project class a callee names, or -1
  // `table[key]` (or `{...}[key]`) where every element the subscript may read (SemanticModel::
  // subscripted_elements: a dict display's values, only the one under a literal key) names a
  // module-level class of this file: those classes (at most kMaxCandidates); empty otherwise.
  std::vector<int> table_classes(Node fn) const;
  int framework_class_of_callee(Node fn) const;
  const std::vector<Node>& constructor_calls(int klass) const;
  // What iterating a call of `function` gives: what it yields (a generator), else what its
  // returns iterate; Bottom, with `any` left false, when it has neither.
  AbstractType call_iter(int function, Path path, bool& any) const;
  // The type of a loader construction: a torch DataLoader of host batches is on the CPU.
  AbstractType loader_type(Node call) const;
  AbstractType host_batch_iterator(Node call) const;  // data/frameworks.txt `host-batches`
  bool loader_iteration(Node iterable, bool host, bool device = false) const;
  // A generator that yields the elements of one of its parameters: that parameter's index, or -1.
  int passed_through(int function) const;
  // `name[i] = v` in a scope: the values stored into the items of that name.
  const std::vector<Node>& item_stores(const std::pair<int, std::string>& key) const;
  // The right sides of the `name[k] += v` statements into a name of a scope.
  const std::vector<Node>& augmented_item_stores(const std::pair<int, std::string>& key) const;
  // The device of the tensors stored into the name's items under dict keys (a string literal, or
  // a loop target over the name itself, its keys() or items()), outside the stores reading it;
  // Unresolved when none is a CUDA tensor.
  TypeDevice keyed_device_stores(Node name) const;
  TypeDevice moved_device(const Binding* b) const;  // in-place moves of the binding's name

  const SemanticModel& m_;
  struct Key {
    const void* id;
    uint64_t path;
    bool operator==(const Key& o) const { return id == o.id && path == o.path; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<const void*>()(k.id) ^ (std::hash<uint64_t>()(k.path) * 0x9E3779B97F4A7C15ULL);
    }
  };
  // path bit 63 set: an iteration entry. In progress: `done` false.
  struct Entry {
    bool done = false;
    AbstractType type;
  };
  mutable std::unordered_map<Key, Entry, KeyHash> memo_;
  mutable std::map<std::pair<const void*, std::string>, Entry> keyed_memo_;  // (container, key)
  mutable std::vector<signed char> module_class_;  // per class: -2 not computed
  mutable std::vector<int> framework_base_;        // per class: -3 not computed, -4 in progress
  mutable std::vector<signed char> class_cuda_;    // per class: 1 on CUDA (empty: not computed)
  mutable std::vector<std::set<std::string, std::less<>>> buffers_;  // per class: names it registers
  mutable bool buffers_built_ = false;
  mutable std::vector<std::vector<int>> subclasses_;  // per class: the classes here deriving from it
  mutable bool subclasses_built_ = false;
  mutable bool constructors_built_ = false;
  mutable std::unordered_map<int, std::vector<Node>> constructors_;
  mutable std::unordered_map<int, std::vector<std::pair<Node, bool>>> yields_;
  mutable std::vector<std::string> ext_classes_;  // names as this module writes them
  mutable bool dataset_cuda_built_ = false, dataset_cuda_ = false;
  mutable bool item_stores_built_ = false;
  mutable std::map<std::pair<int, std::string>, std::vector<Node>> item_stores_;
  mutable bool augmented_item_stores_built_ = false;
  mutable std::map<std::pair<int, std::string>, std::vector<Node>> augmented_item_stores_;
  mutable bool moves_built_ = false;
  mutable std::unordered_map<const Binding*, TypeDevice> moves_;
  mutable std::vector<ReturnDependence> dependences_;  // per function
  mutable std::vector<signed char> dependence_state_;  // per function: 0 not computed, 1 in progress, 2 done
};

}  // namespace stoker::python
