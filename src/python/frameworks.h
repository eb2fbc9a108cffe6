// Framework knowledge as data: the rows of data/frameworks.txt (embedded at build time), parsed
// once and indexed by qualified name. Adding a framework is adding rows to that file; the kinds
// of rows are described there and in docs/architecture.md ("Framework table").
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace stoker::python {

// A method a framework calls once per step (row `step-hook`), with the parameters it passes on
// the device it trains on: `module` (its model) or `batch` (a batch: tensors or a container of them).
struct StepHook {
  enum class Arg : char { Module, Batch };
  std::vector<std::pair<std::string, Arg>> params;
};

class FrameworkTable {
 public:
  // A loader option a framework configuration object carries (`TrainingArguments`).
  struct LoaderOption {
    std::string option;  // num_workers, pin_memory, batch_size
    std::string key;     // the configuration keyword (dataloader_num_workers)
    std::string default_value;  // as written in the table ("0", "True", "8")
  };

  // The table embedded in the binary, parsed on first use (thread-safe).
  static const FrameworkTable& get();
  // Parses table text (one row per line); throws std::runtime_error naming the bad line.
  static FrameworkTable parse(std::string_view text);

  // Calling or constructing `qualified` means the program uses CUDA.
  bool uses_cuda(std::string_view qualified) const { return uses_cuda_.count(std::string(qualified)) > 0; }
  // The framework class index of `qualified` (its instances are framework objects), or -1: a class
  // named by an `object` row, or a class of an `object-family` (a class of the package whose name
  // ends in the suffix: `transformers.LlamaTokenizer`) or one of the family's constructing
  // classmethods (`transformers.AutoTokenizer.from_pretrained`).
  int object_class(std::string_view qualified) const;
  const std::string& class_name(int klass) const { return classes_[klass]; }
  // Does method `method` of framework class `klass` hand back its arguments on the device?
  bool prepares(int klass, std::string_view method) const;
  // Does it hand back its first argument prepared (`accelerator.skip_first_batches(loader, n)`)?
  bool prepares_first(int klass, std::string_view method) const;
  // Does the method return a loader whose batches are on the device (`trainer.get_eval_dataloader`)?
  bool returns_device_loader(int klass, std::string_view method) const;
  // Does the method return tensors (or a tuple of them) on the device (`trainer.prediction_step`)?
  bool returns_device_tensors(int klass, std::string_view method) const;
  // Row `device-tensor`: one tensor on the device (a subset of returns_device_tensors).
  bool returns_device_tensor(int klass, std::string_view method) const;
  // Does the method return host values (strings, lists of them: a tokenizer's `decode`), whatever
  // it is given (row `host-result`)?
  bool returns_host(int klass, std::string_view method) const;
  // An encoding into CPU tensors (row `host-encoding`): what method `method` of framework class
  // `klass` returns (`__call__`: calling an instance) when its keyword `keyword` is the string
  // `value` (a tokenizer's `return_tensors="pt"`): one tensor (`tensor`) or a mapping of them (a
  // BatchEncoding).
  struct HostEncoding {
    std::string keyword, value;
    bool tensor = false;
  };
  // The row of the method, or null.
  const HostEncoding* host_encoding(int klass, std::string_view method) const;
  // Is any framework's method of this name a `prepare` (for receivers whose class is unknown)?
  bool is_prepare_method(std::string_view method) const { return prepare_names_.count(std::string(method)) > 0; }
  // Is `attribute` of framework class `klass` its device (the one it trains on: CUDA when the
  // machine has a GPU, so "may be CUDA")?
  bool is_device_attribute(int klass, std::string_view attribute) const;
  // The framework class of the objects attribute `attribute` of `klass` holds (`trainer.args`:
  // TrainingArguments), or -1.
  int attribute_class(int klass, std::string_view attribute) const;
  // Is `attribute` of `klass` the module it trains, on its device (`trainer.model`)?
  bool is_device_module(int klass, std::string_view attribute) const;
  // The keyword that passes the module a constructor of `klass` moves to its device (`model`
  // of `Trainer(model=...)`, also its first positional argument), or empty.
  std::string_view moved_module_keyword(int klass) const;
  // Does the method return its first argument with its tensors on the device (`gather`,
  // `pad_across_processes`)?
  bool returns_on_device(int klass, std::string_view method) const;
  // Does the function (not a method) return a loader of the same kind as its first argument
  // (`accelerate.skip_first_batches(loader, n)`: its batches, workers and device)?
  bool wraps_first(std::string_view qualified) const { return wraps_first_.count(std::string(qualified)) > 0; }
  // Does constructing `qualified` give an iterator of host batches, a loader for the loops
  // though not a DataLoader construction for the DL/BS rules (row `host-batches`: torchtext's
  // legacy `BucketIterator`)? Its batches are host tensors, so moving them is TX001's copy.
  bool host_batches(std::string_view qualified) const { return host_batches_.count(std::string(qualified)) > 0; }
  // Does `qualified`, `CLASS.METHOD` of a `host-batches` row's METHOD, return a tuple of such
  // iterators (`BucketIterator.splits((train, val, test), ...)`)?
  bool host_batch_tuple(std::string_view qualified) const { return host_batch_tuples_.count(std::string(qualified)) > 0; }
  // Does the function `qualified` return a tuple whose first element is the engine that trains
  // the model it is given, a module on the GPU (row `engine-tuple`: `deepspeed.initialize`)?
  bool engine_tuple(std::string_view qualified) const { return engine_tuples_.count(std::string(qualified)) > 0; }
  // Does `qualified` return its first argument as it is (row `identity`: the legacy
  // `torch.autograd.Variable(x)`): its type, device and batch-ness flow through.
  bool identity(std::string_view qualified) const { return identity_.count(std::string(qualified)) > 0; }
  // Does `qualified` hand back its positional arguments as they are (row `passes-args`: apex's
  // `model, optimizer = amp.initialize(model, optimizer)`): the one argument when given one, else
  // a tuple of them in order, each keeping its type, class and device.
  bool passes_args(std::string_view qualified) const { return passes_args_.count(std::string(qualified)) > 0; }
  // Does iterating what `qualified` returns yield tensors on the GPU (row `device-params`: apex's
  // `amp.master_params(optimizer)`, the parameters amp's optimizer steps, on CUDA)?
  bool device_params(std::string_view qualified) const { return device_params_.count(std::string(qualified)) > 0; }
  // A function that returns a module wrapping the module passed to it (`DistributedDataParallel`,
  // `torch.compile`): the wrapper has the wrapped module's class, and its device as `place` says.
  struct ModuleWrapper {
    enum class Place { Same, DeviceIds, Cuda };
    std::string keyword;  // the keyword of the wrapped module (also the first positional argument)
    Place place = Place::Same;  // Cuda: the wrapper puts it on CUDA; DeviceIds: when given device_ids
  };
  // The wrapper row of `qualified`, or null when it wraps nothing.
  const ModuleWrapper* module_wrapper(std::string_view qualified) const;
  // Does the function's output shape depend on tensor values (SY003)?
  bool is_shape_sync(std::string_view qualified) const { return shape_sync_.count(std::string(qualified)) > 0; }
  // Does the framework call method `method` of a class derived from `base` once per training or
  // evaluation step (`LightningModule.training_step`, the HF `Trainer`'s `compute_loss`)? Null
  // when not; else the parameters the framework passes on its device.
  const StepHook* step_hook(std::string_view base, std::string_view method) const;
  // The method names of every step-hook row.
  const std::unordered_set<std::string>& step_hook_methods() const { return step_hook_methods_; }
  // The loader options of a configuration class (empty when it is none).
  const std::vector<LoaderOption>& loader_config(std::string_view qualified) const;
  // The configuration keyword of a trainer class (empty when it is none).
  std::string_view trainer_config_keyword(std::string_view qualified) const;
  // The keyword that makes a constructed `qualified` trainer a development run when it is True or
  // a positive int (Lightning's `fast_dev_run`: a few batches of each loader, once), or empty.
  std::string_view dev_run_keyword(std::string_view qualified) const;
  // The keyword that makes a call of `qualified` (a loader of a package's models:
  // `transformers.AutoModelForCausalLM.from_pretrained`, row `places-on-gpus`) return a model
  // placed on the GPUs when given a placement (`device_map="auto"`), or empty.
  std::string_view placement_keyword(std::string_view qualified) const;
  // The methods that method `method` of library class `base` runs on its instance (row `runs`):
  // for a project subclass of `base` that does not define `method`, a call of it runs the
  // subclass's own (or inherited) methods of these names, with its arguments, and returns what
  // the last one returns (a vectorized environment's `step(actions)`: `step_async(actions)`, then
  // `step_wait()`). Empty when there is no such row.
  const std::vector<std::string>& runs(std::string_view base, std::string_view method) const;
  // Is `name` a method of torch.Tensor (rows `tensor-methods`): a listed name, the in-place
  // variant of one (`abs_`), or a private or special name (`_values`, `__getitem__`: left to the
  // readers as they were)? A method that is not, called on a value typed a tensor, says the value
  // is no tensor (TypeInference::call_type; the CUDA taint then follows the call's arguments only).
  bool tensor_method(std::string_view name) const;
  // Does method `name`, called on a value typed a tensor, give what the value holds on its device
  // (rows `held-value-methods`: a mapping's accessors, a distribution's samplers)?
  bool held_value_method(std::string_view name) const { return held_value_methods_.count(std::string(name)) > 0; }
  // Is `qualified` (`torch.log`) a function of one tensor whose result is on its argument's device
  // (rows `same-device-functions`)?
  bool same_device_function(std::string_view qualified) const {
    return same_device_functions_.count(std::string(qualified)) > 0;
  }
  // What a library function returns on the host whatever it is given (row `host-function`:
  // `torchaudio.load(path)`, a CPU tensor and an int): one part, or a tuple of parts in order.
  enum class HostPart : char { Tensor, Value };
  struct HostResult {
    std::vector<HostPart> parts;
    bool tuple = false;
  };
  // The row of `qualified`, or null.
  const HostResult* host_function(std::string_view qualified) const {
    auto it = host_functions_.find(std::string(qualified));
    return it == host_functions_.end() ? nullptr : &it->second;
  }
  // Is framework class `klass` a library module whose call computes on its input's device (row
  // `same-device-modules`: `torchaudio.transforms.Resample`): calling an instance gives a tensor
  // on its first argument's device.
  bool same_device_module(int klass) const { return same_device_modules_.count(klass) > 0; }
  // Is `qualified` (`munch.Munch`) a library mapping class built as `dict(...)` is, from keyword
  // values or one mapping (rows `mapping-classes`)?
  bool mapping_class(std::string_view qualified) const { return mapping_classes_.count(std::string(qualified)) > 0; }
  size_t rows() const { return rows_; }

 private:
  std::unordered_set<std::string> uses_cuda_, shape_sync_, prepare_names_, wraps_first_, step_hook_methods_,
      host_batches_, host_batch_tuples_, identity_, engine_tuples_, passes_args_, device_params_, tensor_methods_,
      held_value_methods_, same_device_functions_, mapping_classes_;
  std::vector<std::string> classes_;
  std::unordered_map<std::string, int> class_index_;
  // The classes of a package whose names end in a suffix (row `object-family`): one framework class.
  struct Family {
    std::string package, suffix;
    std::vector<std::string> constructors, excluded;  // classmethods returning instances; excluded suffixes
    int klass = -1;
  };
  std::vector<Family> families_;
  std::unordered_set<std::string> host_result_;  // "class\0method"
  std::unordered_map<std::string, HostResult> host_functions_;
  std::unordered_set<int> same_device_modules_;
  std::unordered_map<std::string, HostEncoding> host_encoding_;  // "class\0method"
  std::unordered_set<std::string> prepare_, prepare_first_, device_, device_loader_, device_result_, device_tensor_, device_module_,
      to_device_;  // "class\0member"
  std::unordered_map<std::string, int> attribute_;  // "class\0member" -> framework class
  std::unordered_map<int, std::string> moves_module_;
  std::unordered_map<std::string, StepHook> step_hooks_;  // "class\0method"
  std::unordered_map<std::string, std::vector<LoaderOption>> loader_config_;
  std::unordered_map<std::string, std::string> trainer_;
  std::unordered_map<std::string, std::string> dev_run_;
  std::unordered_map<std::string, ModuleWrapper> wrappers_;
  std::unordered_map<std::string, std::vector<std::pair<std::string, std::string>>> places_;  // method -> (package, keyword)
  std::unordered_map<std::string, std::vector<std::string>> runs_;  // "class\0method" -> the methods it runs
  size_t rows_ = 0;
};

}  // namespace stoker::python
