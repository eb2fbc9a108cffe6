// What one module of a project learns about the others (src/python/project.h computes it from
// the per-module summaries): facts about its functions from their callers in other modules
// (incoming), and facts about the project functions it calls (callees). The semantic model
// reads them through `ExternalFacts`; without one (nullptr) it analyzes the file alone.
#pragma once

#include <compare>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stoker::python {

// A host scalar an argument may hold (the value lattice of the model without expressions:
// an expression of another file is Unknown here).
struct ScalarFact {
  enum class Kind { Unknown, Int, Float, Str, Bool, None };
  Kind kind = Kind::Unknown;
  long long i = 0;
  double f = 0;
  std::string s;
  bool b = false;
  bool operator==(const ScalarFact&) const = default;
};

// What an argument (joined over call sites) may be.
struct ArgFacts {
  bool passed = false;     // some call site passes a value for it
  bool defaulted = false;  // some call site leaves it to its default
  bool cuda = false;       // may be a tensor (or module) on a CUDA device
  bool module = false;     // an nn.Module
  bool loader = false;     // a data loader (or an iteration wrapper of one)
  bool device_cuda = false;  // a device that may be CUDA
  bool batch = false;        // a host batch (SemanticModel::is_batch_value, not CUDA by its taint)
  bool step = false;         // the step's data, a batch or part of one on any device (is_step_data)
  // By the caller's abstract types (python/types.h), stronger than `cuda` (the CUDA taint):
  bool tensor = false;   // some call site passes a tensor that may be on CUDA
  bool untyped = false;  // some call site passes a value of another known type (a host value...)
  // The abstract type (python/types.h kind and device, as numbers) joined over the call sites
  // that pass a value: 0 (Bottom) none passed yet; Unknown as soon as one site's is unknown.
  int type_kind = 0, type_device = 0;
  // The same over the call sites in a hot context only (per step): what a guard on the
  // parameter sees where the function runs per step.
  bool hot_passed = false, hot_defaulted = false;
  std::vector<ScalarFact> hot_values;
  // The project class of the instance every passing call site passes, by its canonical name
  // (ExternalFacts::canonical): "" no site passes a value, "?" some site passes something else.
  std::string klass;
  // The framework class (data/frameworks.txt `object`, its qualified name) of the instance every
  // passing call site passes (`DPOTrainer(dpo, accelerator=self.accelerator)` of an Accelerator):
  // "" no site passes a value, "?" some site passes something else. Travels with kType.
  std::string framework;
  // The project function (or class) every passing call site hands by name, by its canonical name
  // (`monotonic_alignment_function=maximum_path` of an imported function, set BJ
  // finetune-hf-vits): "" no site passes a value, "?" some site passes something else. A call of
  // the parameter in the callee calls it (SemanticModel::passed_function_names). Travels with
  // kArgClass.
  std::string func;
  std::vector<ScalarFact> values;  // at most 16; more, or an expression, adds Unknown
  // When every passing call site passes a tuple of the same length (a display of at most 8, or a
  // name or call whose elements SemanticModel::elements_cuda knows): whether each element may be
  // CUDA (the taint), so `targets, n = pair` unpacks a host value beside CUDA tensors and
  // `targets[0]` reads a host element. `elems_mixed`: some site passes something else.
  std::vector<char> elem_cuda;
  std::vector<std::pair<int, int>> elem_types;  // the same sites: each element's abstract type, joined
  bool elems_mixed = false;
  // The values the elements of the container every passing site passes may take (a tuple of
  // strings, `tuple(k for k in ("segm", "bbox") if ...)`), joined over those sites: one Unknown
  // among them when a site's are not known (SemanticModel::element_values).
  std::vector<ScalarFact> elem_values;
  // An argparse namespace (SemanticModel::namespace_value: `parser.parse_args()`, a helper
  // returning one, a parameter handed one): 1 when every passing call site passes one, 2 when
  // some site passes something else (0: none passed yet; 3: only sites handing on a parameter of
  // a method no call passes, which add nothing to the join). With 1, the values its attributes
  // hold at the sites, joined: each dest with an explicit `default=` (or a value the caller's
  // module stores), sorted by name, at most kMaxNamespaceDests; a dest absent is unknown
  // (`args.num_workers` of `build_loaders(args)` in another module reads its default there).
  int ns = 0;
  std::vector<std::pair<std::string, std::vector<ScalarFact>>> ns_values;
  // A dict of settings (SemanticModel::dict_facts: a display, `dict(k=v)`, a name bound to one
  // with its literal-key stores, every entry under a literal key): 1 when every passing call site
  // passes one, 2 when some site passes something else (0: none passed yet). With 1, the values
  // its literal keys hold at the sites, joined: each key whose values are all known constants,
  // sorted, at most kMaxDictKeys; a key absent is unknown (`torch.device(cfg["device"])` of
  // `train(modelConfig)` handed Main.py's display). Read with fact::kDictArg.
  int dict = 0;
  std::vector<std::pair<std::string, std::vector<ScalarFact>>> dict_values;
  // The devices an object's attributes hold, when every passing call site's object stores one
  // there (SemanticModel::object_attr_devices: `conf = get_config()` with `conf.device =
  // torch.device("cuda:0" if ... else "cpu")` in config.py, handed to `face_learner(conf)`):
  // (attribute, 1 the CPU / 2 may be CUDA / 3 another device), sorted by attribute, at most
  // kMaxAttrDevices; an attribute some site's object lacks, or whose devices differ without CUDA,
  // is dropped. Read with kDevice (`conf.device` of the parameter).
  std::vector<std::pair<std::string, int>> attr_devices;
  // A dict of loaders (a display, `dict(k=v)`, a name bound to one and its literal-key stores:
  // SemanticModel::dict_entries): the literal keys under which some passing site's dict holds a
  // loader, sorted, at most kMaxLoaderKeys, read with kLoader (`data = {'tr_loader': tr_loader};
  // Solver(data)` in one module, `self.tr_loader = data['tr_loader']` in Solver's).
  std::vector<std::string> loader_keys;
  // A `**kwargs` parameter: the keywords the call sites put into it, sorted, at most
  // kMaxKwNames (`DataLoader(dataset, shuffle=True, batch_size=bs)` of a wrapper `def
  // DataLoader(*args, **kwargs)`); `kw_known` some site's were collected, `kw_open` some site
  // splats its own `**`/`*`, or the names passed the cap (join_sorted kept the first ones): the
  // keys are not known. Read with kValues.
  std::vector<std::string> kw_names;
  bool kw_known = false, kw_open = false;
  // The same as passed/defaulted/values over the call sites whose result feeds training
  // (IncomingCalls::result_feeds_training or result_per_epoch: `fed_*`) and over those whose
  // result is iterated per epoch (`epoch_*`): a loader built from the parameter takes the options
  // of the call sites that use it (msn's `init_data(num_workers=0)` iterated by a step loop,
  // another site's default 8 iterated per epoch). Read with kUseValues.
  bool fed_passed = false, fed_defaulted = false, epoch_passed = false, epoch_defaulted = false;
  std::vector<ScalarFact> fed_values, epoch_values;
  bool operator==(const ArgFacts&) const = default;
  void join(const ArgFacts& o);
  void join_hot(const ArgFacts& site);  // a hot call site's facts into the hot_* fields
  void join_use(const ArgFacts& site, bool epoch);  // ... into the fed_* (and epoch_*) fields
};

// How a function defined in this module is called from the other modules.
struct IncomingCalls {
  bool called = false;  // called, or imported by name, by another module
  // Called by another module only from code a guard known False silences (OutgoingCall::dead):
  // such calls leave `called` (and the hotness) unset.
  bool dead_called = false;
  bool hot = false;             // from a hot context (a training loop, a hot function)
  long long every = 0;          // amortization when every hot call site is guarded (as HotContext)
  bool once_per_epoch = false;
  bool flag_guarded = false;
  bool in_loop = false;         // from inside a loop (its own loops then run once per epoch)
  bool result_feeds_training = false;  // what it returns (a loader) is iterated by a hot loop
  // What it returns is iterated per epoch by a hot loop of the caller's module or of a function
  // the caller hands it to: bit i element i of a returned tuple (`train_loader, val_loader =
  // get_loaders()`), kWholeResult the result itself.
  unsigned result_per_epoch = 0;
  // Elements of a returned tuple that a hot loop of the caller's module (or of a function the
  // caller hands them to) iterates, per epoch or not: bit i element i (`train_loader,
  // valid_loader, test_loader = get_data_loaders()`, the test loader iterated once after training).
  unsigned result_fed = 0;
  // Attributes of the instance it constructs (a class called: its `__init__`) that a hot loop
  // of the caller's module iterates (`for batch in dataset.train` after `dataset = Cifar(...)`),
  // sorted, at most kMaxFedAttrs: a loader `__init__` stores there feeds training.
  std::vector<std::string> attrs_fed;
  std::string via;              // "engine.py:12": the first hot call site, for the message
  // Called once per pass of a loop that is no setup loop (an epoch loop, a loop around a hot
  // loop), with arguments that do not change from pass to pass (OutgoingCall::rebuilds), or from
  // a function so called (relayed): what it builds is rebuilt every pass (DL004). `rebuilt_via`
  // the first such call site in the caller's module ("for_test.py:37"), for the message.
  bool rebuilt = false;
  std::string rebuilt_via;
  bool operator==(const IncomingCalls&) const = default;
};

struct ParamSummary {
  std::string name;
  bool keyword_only = false;
  bool star = false;        // *args
  bool double_star = false;  // **kwargs
  bool iterated_hot = false;  // iterated by a hot loop of the function (or of one it calls)
  bool called = false;        // the function calls it (`closure()`): a function passed there runs there
  // iterated by a hot loop that runs once per iteration of an enclosing loop of the function
  // (or of one it calls): its own epoch loop
  bool iterated_per_epoch = false;
  // The literal keys under which the items of the parameter (a dict) are iterated by a hot loop
  // of the function, or of one it hands them to (`self.tr_loader = data['tr_loader']` in
  // __init__, iterated by a method's loop), sorted, at most kMaxLoaderKeys; per epoch with
  // iterated_per_epoch. A caller's dict display feeds training under those keys.
  std::vector<std::string> hot_keys;
  // The function converts it to NumPy before any other read (SemanticModel::param_enters_numpy):
  // a loader batch handed here reaches the GPU only as arrays built from it (DL002; rec28b).
  bool enters_numpy = false;
  bool operator==(const ParamSummary&) const = default;
};

// What a value's CUDA taint follows in its function (speed15, FactsTable's taint relay): when
// one of these may be CUDA, the value may be CUDA (as SemanticModel::is_cuda would find).
// `params`: the function's own parameters (indices into its params, self 0), as other modules
// hand them; `calls`: what the module's outgoing calls return (indices into
// ModuleSummary::calls). Only certain dependences are listed (operands of arithmetic, names
// bound to them, a returned argument); the rounds confirm the rest.
struct TaintSources {
  std::vector<int> params;
  std::vector<int> calls;
  bool empty() const { return params.empty() && calls.empty(); }
  bool operator==(const TaintSources&) const = default;
};

// What a function (or method) defined in a project module does, as its callers need it.
struct FunctionFacts {
  bool method = false;        // params[0] is self
  bool has_hot_loop = false;  // it (or a function it calls) runs a hot loop
  // ... one that trains or serves data (SemanticModel::training_loop_functions: iterates a
  // loader, or runs `backward()` or an optimizer step outside its nested hot loops), not one of
  // forwards only (a planner's CEM iterations, a decoding loop): what makes a loop around the call
  // an epoch loop (classify_loops).
  bool trains_loop = false;
  bool steps = false;         // performs a training step (backward, optimizer step) outside hot loops
  bool steps_forward = false;  // ... or a module forward
  bool returns_cuda = false;
  bool returns_loader = false;
  bool returns_module = false;
  bool returns_tensor = false;  // by its abstract types: a tensor that may be on CUDA (kReturnsTensor)
  // Every return a tuple display (no starred element): per element that every return has (the
  // shortest arity, at most 16), 1 when its CUDA taint may be CUDA, 0 when it is host (`return
  // loss, Munch(real=l.item())`: `loss, logs = f(...)` in another module unpacks a CUDA loss and
  // a host record; `batch[0]` of `batch = to_device(...)` is host). Empty otherwise. Read with
  // kReturnsCuda.
  std::vector<int> ret_elem_cuda;
  // What it returns by its abstract types (kind and device as numbers, -1 unknown), and when a
  // return is a tuple display, the type of each element (at most 8; kind -1 unknown), so that
  // `model, flag = f(...)` in another module unpacks element-wise.
  int ret_kind = -1, ret_device = 0;
  // Every return is an instance of this framework class (data/frameworks.txt `object`, its
  // qualified name: `return Accelerator(...)` of a helper), so the caller's result is typed as one.
  std::string ret_framework;
  std::vector<std::pair<int, int>> ret_elems;
  int yield_kind = -1, yield_device = 0;  // a generator: the type of what it yields
  // A generator that yields the elements of this parameter (`for x in it: yield x`): its index;
  // one yielding slices of it (`yield t[i:i + bs]`): type_detail::kYieldsSlices - index (<= -2);
  // -1: neither.
  int yields_param = -1;
  // A generator no yield of which is a parameter as handed (SemanticModel::yields_built): what it
  // yields is built per pass (`yield collate_fn(batch)`), not the same collection every time.
  bool yields_built = false;
  // Every return is built of Python values only (SemanticModel::returns_python_values: lists,
  // tuples, dicts or comprehensions of `.tolist()` results, strings, literals, conversions): a
  // collate_fn of another module's dataset class (`collate_fn=train_dataset.collate_fn`) whose
  // batches hold no tensor. Read with kReturnType.
  bool returns_py_values = false;
  // Every return is an instance of this project class (canonical name), or of one of a few
  // ("A|B": a class union, sorted, at most kMaxClassUnion members; `return A() if c else B()`).
  std::string returns_class;
  // Per element of `ret_elems`: the class (or class union) of that element's instances in every
  // returned tuple, "" unknown (`return model, criterion` of a builder function).
  std::vector<std::string> ret_elem_classes;
  // A module-level function or class registered by a decorator that is a method of a registry
  // object (`@REGISTRY.register(...)`, `@REGISTRY.register`): that object's name as this module
  // writes it (qualified through imports, or canonical for a module-level object of its own).
  std::string registry;
  std::vector<ParamSummary> params;
  // A module-level class ("Class" entries): what an instance is, for the modules that build
  // one or subclass it. Types are python/types.h's AbstractType kind and device, as numbers
  // (a class index of the defining module does not travel).
  bool is_class = false;
  int module_kind = -1;  // 1 an nn.Module, 0 not one, -1 unknown (a base of unknown kind)
  int iter_kind = -1;    // the type of an element of iterating an instance (its __iter__), -1 unknown
  int iter_device = 0;
  struct Attr {
    std::string name;
    int kind = 0, device = 0;
    // An instance of a framework class (data/frameworks.txt `object`): its qualified name, so a
    // subclass of another module calls the framework's methods on it (`self.accelerator.prepare(
    // ...)` of an Accelerator the base's `__init__` stores); empty otherwise.
    std::string framework;
    bool operator==(const Attr&) const = default;
  };
  std::vector<Attr> attrs;  // `self.attr` of the class and its bases, where the type is known; sorted
  std::string framework;    // the framework class it derives from (data/frameworks.txt), or empty
  // A "Class" entry: its bases as the module writes them, qualified through its imports (at most
  // 4): a method the class does not define is its base's (FactsTable::resolve).
  std::vector<std::string> bases;
  // A method: the methods it calls on `self` (at most 16, in order): through an instance of a
  // subclass of another module they run the subclass's overrides.
  std::vector<std::string> self_calls;
  // A "Class" entry: the methods its methods call on `self` once per step, unamortized (in a hot
  // loop or a hot method: `for _ in range(n): self.train_step()`), sorted, at most 16: a subclass
  // of another module overriding one (`SequenceTrainer.train_step`) runs it per step. Read with kHotSelfCalls.
  std::vector<std::string> hot_self_calls;
  // A "Class" entry: the attributes its methods store on `self` (`self.num_workers = ...`,
  // `setattr(self, "name", v)`), sorted, at most 16; {"*"} when there are more or a method stores
  // under computed names (`self.__dict__[k] = cfg[k]`, `self.__dict__.update(d)`, `setattr(self,
  // k, v)`). On an instance of this class, its bases' methods read those values, not what their
  // own initializers assign (ExternalFacts::subclass_stores).
  std::vector<std::string> self_stores;
  // A "Class" entry: what the attributes its methods (and its bases' of the module) store follow
  // in the CUDA taint, as the instance's callers hand them: `self.avg = self.sum / self.count` with
  // `self.sum += val * n` in `update(self, val, n=1)` follows parameters 1 and 2 of `update` (index
  // into that method's params, self 0; `__init__`: the construction's arguments). Sorted, at most
  // 32. An attribute none of whose stores follows a parameter (`self.run = wandb.init(...)`) is
  // absent: handing the instance's methods CUDA values does not make it CUDA (SemanticModel::
  // is_cuda_impl's member types per instance). Read with kClass.
  struct AttrSource {
    std::string attr, method;
    int param = 0;
    auto operator<=>(const AttrSource&) const = default;
  };
  std::vector<AttrSource> attr_sources;
  // A module-level name bound once to a dict display whose values all name classes (`factory =
  // {"a": ATrainer, "b": BTrainer}`): those names, qualified through the imports (at most 8). The
  // table reads `factory[key]` as any of the classes ("factory[]", FactsTable).
  std::vector<std::string> table_classes;
  // Every return is a batch sampler (torch's BatchSampler, or a class of the module iterating
  // one) whose batch size is this parameter (index into `params`), -1 otherwise: BS001 reads a
  // `batch_sampler=make_batch_sampler(sampler, 4)` of another module.
  int batch_size_param = -1;
  // Every return is the one loader construction of the function (whole, directly or through a
  // name bound only to it) whose `num_workers` is this parameter, named `num_workers` (index into
  // `params`), with no `persistent_workers`, `**` or `*` argument: a loader wrapper whose call
  // sites decide the workers, judged there (StyleTTS2's `build_dataloader(..., num_workers=2)`,
  // set AM; loader_wrappers.h). -1 otherwise. Read with kReturnsLoader.
  int workers_param = -1;
  // Every return is a dict holding loaders under these literal keys (a display, or a comprehension
  // over a literal sequence of strings: ChangeFormer's `{x: DataLoader(...) for x in ['train',
  // 'val']}`, set BA), sorted, at most kMaxLoaderKeys; empty otherwise. A caller handing the result
  // on hands a dict of loaders (ArgFacts::loader_keys). Read with kReturnsLoader.
  std::vector<std::string> ret_loader_keys;
  // Every return is a dict all of whose values are loaders, keys unknown (a comprehension over
  // `datasets.items()`): kWholeResult; bit i: element i of every returned tuple display is one
  // (egnn's `return dataloaders, charge_scale`, set BM). A caller's `d[k]` of the name it binds
  // to that element (or to the result) is a loader (SemanticModel::ext_loader_dict_item). Read
  // with kReturnsLoader.
  unsigned ret_loader_dicts = 0;
  // Every return is its first parameter's element 0 (`return examples[0]`: a collate_fn, or a
  // class's `__call__`, over a dataset whose items are whole batches). Read with kBatchSize.
  bool returns_first_item = false;
  // Every return is a tensor of booleans by its expression (SemanticModel::holds_bools: a
  // comparison, `&` of masks, a call of a function here returning one), whatever its device:
  // `rand_span_mask = mask_from_frac_lengths(lens, frac)` of another module is a mask, on CUDA
  // when the call is. Read with kReturnsMask.
  bool returns_mask = false;
  // How the return depends on the parameters (python/types.h ReturnDependence), so that a call in
  // another module is typed with its own arguments: `dep_known`; the type (kind and device as
  // numbers, Bottom none) and CUDA taint of the part independent of the arguments; per parameter
  // used, its index into `params` and 1 when the return is a tensor on the argument's device, 0
  // when it is the argument itself.
  bool dep_known = false;
  int dep_kind = 0, dep_device = 0;
  bool dep_cuda = false;
  std::vector<std::pair<int, int>> dep_uses;
  // A device: what the function returns when every return names one (`"cuda" if
  // torch.cuda.is_available() else "cpu"`, `torch.device("cuda")`), or, for an entry of a
  // module-level name bound to a device (`DEVICE = torch.device(...)`), what it holds. 0 not a
  // device or unknown, 1 the CPU, 2 may be CUDA, 3 another device (SemanticModel::DeviceKind).
  int devkind = 0;
  // The devices the attributes of what every return hands back hold (a settings object the
  // function fills: `conf = edict(); conf.device = torch.device(...); return conf`), as
  // ArgFacts::attr_devices. Read with kDevKind.
  std::vector<std::pair<std::string, int>> ret_attr_devices;
  // A module-level name (its own entry, as for devices) bound only by module-level assignments of
  // host constants that no `global` statement of its module and no attribute store of the project
  // (`config.batch_size = 32`, ModuleSummary::module_stores) rebinds: the values it may hold (at
  // most 16), so `CFG.num_workers` / `from config import num_workers` resolve in another module.
  std::vector<ScalarFact> const_values;
  // A "Class" entry: a DataLoader subclass built from its constructor's arguments as the
  // DataLoader is (SemanticModel::loader_class): constructing it is a loader construction.
  bool loader_class = false;
  // loader_class: the most positional arguments a call may pass, -1 any (an initializer with
  // named parameters: SemanticModel::named_loader_init).
  int loader_positional = -1;
  // What its returns' CUDA taint follows when `returns_cuda` is false (TaintSources): the
  // FactsTable sets `returns_cuda` when a source becomes CUDA, in the same table.
  TaintSources returns_follow;
  // Every return is an argparse namespace (`args = parser.parse_args(); ...; return args` in a
  // `configs.add_args(parser)` helper): the values of each attribute its module's parsers declare
  // (defaults joined with the module's stores into namespaces), sorted by name, at most
  // kMaxNamespaceDests, so that `args = add_args(parser)` in another module reads
  // `args.train_batch_size`.
  bool returns_namespace = false;
  std::vector<std::pair<std::string, std::vector<ScalarFact>>> namespace_values;
  // Every return is a parser this module builds (`parser = argparse.ArgumentParser(...)`, then
  // `return parser`: DeiT's and MDETR's `get_args_parser()`), not a namespace: namespace_values
  // then hold its module's declared defaults, which a module parsing with it reads
  // (`parents=[main.get_args_parser()]` in a launcher, or its `parse_args()`).
  bool returns_parser = false;
  // A module-level name bound once to this module's parsed namespace (`args =
  // parser.parse_args()` in MGN-pytorch's option.py, which main.py imports: `from option import
  // args`): the name itself is the namespace, namespace_values its dests' values (with
  // returns_namespace set, as for the module-level parser's entry). Read with kNamespace.
  bool namespace_object = false;
  bool operator==(const FunctionFacts&) const = default;
};

// Which parts of an answer a query reads (its recorded fingerprint covers only those).
namespace fact {
// incoming_param
constexpr unsigned kValues = 1, kCuda = 2, kModule = 4, kLoader = 8, kDevice = 16, kType = 64, kHotValues = 128,
                   kArgClass = 256, kElemValues = 512, kBatch = 1024, kUseValues = 4096;
constexpr unsigned kPlain = 32;  // the parameter has no default and no call site in its module:
                                 // values that are all unknown read as no facts
// incoming
constexpr unsigned kHot = 1, kInLoop = 2, kResult = 4, kCalled = 8, kRebuilt = 16;
// callee
constexpr unsigned kSteps = 1, kHotLoop = 2, kReturnsCuda = 4, kReturnsLoader = 8, kReturnsModule = 16,
                   kParams = 32, kClass = 64,  // kClass: is_class, module_kind, iter_*, framework
                   kReturnType = 128,          // ret_kind, ret_device, ret_elems, ret_elem_classes, yield_*
                   kReturnsClass = 256,
                   kExists = 512,  // whether the project defines the name at all
                   kTable = 1024,  // table_classes
                   kBatchSize = 2048,  // batch_size_param
                   kReturnDep = 4096,  // dep_*
                   kDevKind = 8192,    // devkind
                   kConstValues = 16384,  // const_values
                   kLoaderClass = 32768,  // loader_class
                   kNamespace = 65536,    // returns_namespace, returns_parser, namespace_values
                   kReturnsMask = 131072;  // returns_mask
// A "Class" entry's attribute types (`attrs`) and stores are not in kClass's fingerprint: most
// readers of a class ask only what it is. An attribute's type is asked one attribute at a time
// (ExternalFacts::class_attr); these two bits are for the readers of the rest:
constexpr unsigned kAttrsCuda = 4194304;    // whether some attribute may be on CUDA (or any device)
constexpr unsigned kAttrSources = 8388608;  // attr_sources
}  // namespace fact

// The facts one module sees. Every query is recorded with the fingerprint of the parts of the
// answer it reads (`fields`), so that the project re-analyzes a module only when something it
// used has changed.
class ExternalFacts {
 public:
  virtual ~ExternalFacts() = default;
  // Calls from other modules of a function of this module ("f" or "Class.method").
  virtual const IncomingCalls* incoming(std::string_view local_name, unsigned fields) const = 0;
  // Facts about parameter `index` of that function from those calls (index 0 is self for methods).
  virtual const ArgFacts* incoming_param(std::string_view local_name, int index, unsigned fields) const = 0;
  // A project function or class method this module may call, by the name the module writes
  // ("engine.train_one_epoch", ".utils.MetricLogger.update": leading dots are relative).
  virtual const FunctionFacts* callee(std::string_view name, unsigned fields) const = 0;
  // Some other module hands this one CUDA values (or a CUDA device).
  virtual bool cuda() const = 0;
  // The canonical name of the project function or class `name` (as this module writes it)
  // stands for: its defining module's dotted name and its local name ("pkg.models.Net"), the
  // same whichever module writes it and through whichever re-export; "" when it names nothing
  // the project defines. A local name of this module when `local` is set.
  virtual std::string canonical(std::string_view name, bool local = false) const = 0;
  // The project functions or classes registered into the registry object `name` (as this module
  // writes it) by decorators anywhere in the project (FunctionFacts::registry), as a union of
  // canonical names ("a.build_x|b.build_y", sorted); "" when none or more than kMaxClassUnion.
  virtual std::string registered(std::string_view name) const { (void)name; return {}; }
  // A name this module never binds, bound by a project module it star-imports (`from utils
  // import *`, through further star imports of those) to an import of a library outside the
  // project (`import torch`): that import's qualified name ("torch", "torch.nn.functional");
  // "" otherwise.
  virtual std::string star_import(std::string_view name) const { (void)name; return {}; }
  // Does another module's text name `name` after a dot or as a string (ModuleSummary::
  // attribute_names)? True when unknown.
  virtual bool attribute_mentioned(std::string_view name) const { (void)name; return true; }
  // Does another module's text write `name` as a word anywhere (code, strings, comments:
  // ProjectLayout::word_elsewhere)? True when unknown.
  virtual bool word_mentioned(std::string_view name) const { (void)name; return true; }
  // Does a module other than this one, connected to it by imports (ProjectLayout::component:
  // none else can hold one of its objects), write `name` after a dot or as a whole string: its
  // summary's attribute_names (which leave out dead calls and calls on library objects), or,
  // for a module without a summary (one the prefilter left out), its text
  // (ProjectLayout::dotted_by)? True when unknown.
  virtual bool attribute_reachable(std::string_view name) const { (void)name; return true; }
  // Could the dotted name (as this module writes it, or qualified) be the project's
  // (ProjectLayout::is_project_name)? True when unknown.
  virtual bool project_name(std::string_view name) const { (void)name; return true; }
  // Might other modules call into this one (any IncomingCalls at all)? Not recorded: without
  // any, every incoming query answers nothing anyway.
  virtual bool has_incoming() const { return true; }
  // Does a subclass in another module of this module's class `local_class` (directly or through
  // further subclasses) store the attribute `attr` on `self`, or attributes under computed names
  // (FunctionFacts::self_stores)? Then what the class's initializer assigns it is not what its
  // methods read.
  virtual bool subclass_stores(std::string_view local_class, std::string_view attr) const {
    (void)local_class;
    (void)attr;
    return false;
  }
  // The types (FunctionFacts::Attr kind and device) that the subclasses in other modules of this
  // module's class `local_class` (directly or through further subclasses) give the attribute
  // `attr` they store on `self` (their "Class" entries' attrs), each distinct pair once, sorted,
  // at most kMaxSubclassAttrTypes; {-1, 0} among them when a subclass stores it with a type not
  // known (or the pairs passed the cap). Empty when none stores it. A method of the class reading
  // `self.attr` that neither it nor a base stores runs on an instance of one of them.
  virtual std::vector<std::pair<int, int>> subclass_attr_types(std::string_view local_class, std::string_view attr) const {
    (void)local_class;
    (void)attr;
    return {};
  }
  // Does another module bind an instance of this module's class `local_class` on CUDA, or store
  // one as a submodule of a class that is (ModuleSummary::cuda_instances)? Then the buffers the
  // class registers are on CUDA.
  virtual bool class_on_cuda(std::string_view local_class) const {
    (void)local_class;
    return false;
  }
  // The type of attribute `attr` of the project class `name` (as this module writes it, or
  // canonical): its "Class" entry's FunctionFacts::Attr, nullptr when the entry has none of that
  // name or `name` is no project class. Recorded per (class, attribute), so that a change of the
  // class's other attributes does not analyze this module again.
  virtual const FunctionFacts::Attr* class_attr(std::string_view name, std::string_view attr) const {
    // (An implementation recording its queries records this one per attribute: ModuleEnv.)
    const FunctionFacts* f = callee(name, fact::kClass);
    if (!f || !f->is_class) return nullptr;
    for (const auto& a : f->attrs)
      if (a.name == attr) return &a;
    return nullptr;
  }
  // Does a module the prefilter left out (no summary: a launcher script without torch), which
  // imports this one, call `name` by its bare name (ProjectLayout::called_by: RTVC's
  // encoder_train.py `from encoder.train import train` ... `train(**vars(args))`)? Its calls are
  // no IncomingCalls. True when unknown.
  virtual bool left_out_call(std::string_view name) const { (void)name; return true; }
};

constexpr size_t kMaxAttributeNames = 8192;
constexpr size_t kMaxFedAttrs = 8;  // IncomingCalls::attrs_fed
constexpr size_t kMaxLoaderKeys = 8;  // ArgFacts::loader_keys, ParamSummary::hot_keys
constexpr size_t kMaxKwNames = 16;    // ArgFacts::kw_names
constexpr size_t kMaxNamespaceDests = 256;  // FunctionFacts::namespace_values
constexpr size_t kMaxDictKeys = 64;  // ArgFacts::dict_values
constexpr size_t kMaxAttrDevices = 8;  // ArgFacts::attr_devices, FunctionFacts::ret_attr_devices
constexpr size_t kMaxSubclassAttrTypes = 4;  // ExternalFacts::subclass_attr_types

// IncomingCalls::result_per_epoch: the whole result (the other bits are tuple elements, at most 8).
constexpr unsigned kWholeResult = 1u << 31;

// A class union ("A|B") or a registry has at most this many members; more reads as unknown.
constexpr size_t kMaxClassUnion = 4;

// The pieces of `s` between the separators; empty pieces kept only when `keep_empty`
// ("a..b" -> {a, "", b} or {a, b}). Dotted module names and class unions are read with it.
std::vector<std::string> split_on(std::string_view s, char sep, bool keep_empty);
// The members of a union name ("A|B" -> {A, B}; a plain name -> itself).
inline std::vector<std::string> union_members(std::string_view name) { return split_on(name, '|', false); }
// The union of two names (members sorted, duplicates merged), "" when either is empty or the
// union would have more than kMaxClassUnion members.
std::string union_join(std::string_view a, std::string_view b);
// Each member with `suffix` appended, joined again by '|' ("A|B", ".__call__" -> "A.__call__|B.__call__").
std::string union_suffix(std::string_view name, std::string_view suffix);
// Adds to the sorted `dst` the strings of `src` it lacks, in `src`'s order, while it holds fewer
// than `cap` (ArgFacts::loader_keys and kw_names, ParamSummary::hot_keys, IncomingCalls::attrs_fed).
// True when a string of `src` was left out for the cap (kw_names: the keywords are then open).
bool join_sorted(std::vector<std::string>& dst, const std::vector<std::string>& src, size_t cap);

}  // namespace stoker::python

namespace stoker::python {

// A call from this module to a name that may be a project function (the project resolves it).
struct OutgoingCall {
  std::string callee;  // as the module writes it: "engine.train_one_epoch", ".utils.Logger.update"
  uint32_t line = 0;   // 1-based
  bool hot = false;
  long long every = 0;
  bool once_per_epoch = false;
  bool flag_guarded = false;
  bool in_loop = false;
  // In a loop that is no setup loop, its arguments the same on every pass, or made by a function
  // of this module called so (IncomingCalls::rebuilt); `rebuilds_if_caller`: when the calling
  // function is itself called so from another module (relayed).
  bool rebuilds = false;
  bool rebuilds_if_caller = false;
  bool result_feeds_training = false;  // a hot loop iterates what the call returns
  unsigned result_per_epoch = 0;       // IncomingCalls::result_per_epoch
  unsigned result_fed = 0;             // IncomingCalls::result_fed
  std::vector<std::string> attrs_fed;  // IncomingCalls::attrs_fed: `obj.attr` of the result iterated hot
  bool splat = false;                  // *args / unreadable **kwargs: other arguments unknown
  // ... and what a `*args` / `**kwargs` spreads may be CUDA (`model(*batch[2:])`, `f(**inputs)`
  // of CUDA tensors): the callee's `*`/`**` parameters it may bind may be CUDA.
  bool splat_cuda = false;
  // ... and what a `*args` spreads may be CUDA: so may the named positional parameters it may
  // bind. An unreadable `**d` hands its values to no named parameter: which one a key reaches is
  // unknown (a `**kwargs` most likely takes it), and a parameter it does not reach keeps its
  // default (issue 10, session 31: a `reverse=False` beside `**kwargs`).
  bool star_cuda = false;
  // The call sits in a branch a guard known False silences (`if args.do_predict:` of a
  // store_true flag): it calls nothing (IncomingCalls::dead_called), its arguments pass no type.
  bool dead = false;
  // The function making the call ("f", "Class.method"; "" at module level) and, when the call
  // is not hot by this module's own loops, how it runs when that function runs per step (its
  // guards: amortization, once per epoch, a flag): the project passes on the hotness (and the
  // per-epoch calls) another module gives the function (a forward that calls a submodule of a
  // third module) without a round per module.
  std::string caller;
  bool hot_if_caller = false;
  long long caller_every = 0;
  bool caller_once_per_epoch = false;
  bool caller_flag_guarded = false;
  std::vector<ArgFacts> positional;
  std::vector<std::pair<std::string, ArgFacts>> keywords;
  // Per argument not known to be CUDA (parallel to `positional` and `keywords`, or empty): what
  // its CUDA taint follows in the calling function (TaintSources): the FactsTable relays the
  // calling function's incoming CUDA arguments (and its calls' CUDA returns) to the callee's
  // parameters in the same table, transitively, instead of one round per module.
  std::vector<TaintSources> positional_follow;
  std::vector<TaintSources> keyword_follow;
};

// What the project keeps of one analyzed module (the semantic model's summary).
struct ModuleSummary {
  bool uses_cuda = false;
  std::vector<std::pair<std::string, FunctionFacts>> functions;  // "f", "Class.method", "Class"
  std::vector<std::pair<std::string, std::string>> imports;      // module-level name -> qualified
  std::vector<std::string> star_imports;                          // `from M import *`: M, as written
  // The names of `imports` the module never writes again (SemanticModel::unused_imports), sorted.
  std::vector<std::string> unused_imports;
  // The names the module's text writes after a dot (`obj.name`) or as a whole string literal
  // (`getattr(obj, "name")`), sorted, at most kMaxAttributeNames; {"*"} when there are more: a
  // method of another module no text names is never called by name.
  std::vector<std::string> attribute_names;
  std::vector<OutgoingCall> calls;
  // Project classes of other modules (as written) whose instances this module places on a CUDA
  // device (`Net().cuda()`, a model handed to a Trainer): their module uses CUDA.
  std::vector<std::string> cuda_instances;
  // Attributes this module stores on a project module (`config.batch_size = 32` after `import
  // config`), qualified as written ("config.batch_size"), sorted, at most 256: that module's
  // constant no longer resolves (FunctionFacts::const_values).
  std::vector<std::string> module_stores;
  // Module-level names of other project modules this one reads as values (`CFG.num_workers`,
  // `from config import DEVICE`), as written, sorted, at most 256: a module the prefilter left out
  // (a constants module without torch) is analyzed once another reads it, as a called one is.
  std::vector<std::string> module_reads;
};

}  // namespace stoker::python
