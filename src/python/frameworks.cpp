#include "python/frameworks.h"

#include <cctype>
#include <sstream>
#include <stdexcept>

namespace stoker::python {

extern const char* const kFrameworkTable;  // generated/framework_table.cpp

namespace {
std::string member_key(std::string_view klass, std::string_view member) {
  std::string k(klass);
  k.push_back('\0');
  k.append(member);
  return k;
}
}  // namespace

const FrameworkTable& FrameworkTable::get() {
  static const FrameworkTable table = parse(kFrameworkTable);
  return table;
}

FrameworkTable FrameworkTable::parse(std::string_view text) {
  FrameworkTable t;
  size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    size_t nl = text.find('\n');
    std::string line(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream in(line);
    std::vector<std::string> cols;
    for (std::string c; in >> c;) cols.push_back(c);
    if (cols.empty()) continue;
    auto bad = [&](const char* why) {
      throw std::runtime_error("framework table line " + std::to_string(line_no) + ": " + why);
    };
    auto need = [&](size_t n) {
      if (cols.size() != n) bad("wrong number of columns");
    };
    auto add_class = [&](const std::string& name) {
      auto [it, fresh] = t.class_index_.try_emplace(name, static_cast<int>(t.classes_.size()));
      if (fresh) t.classes_.push_back(name);
      return it->second;
    };
    const std::string& kind = cols[0];
    if (kind == "uses-cuda") {
      need(2);
      t.uses_cuda_.insert(cols[1]);
    } else if (kind == "object") {
      need(2);
      add_class(cols[1]);
    } else if (kind == "prepare") {
      need(3);
      add_class(cols[1]);
      t.prepare_.insert(member_key(cols[1], cols[2]));
      t.prepare_names_.insert(cols[2]);
    } else if (kind == "prepare-first") {
      need(3);
      add_class(cols[1]);
      t.prepare_first_.insert(member_key(cols[1], cols[2]));
      t.prepare_names_.insert(cols[2]);
    } else if (kind == "device-loader" || kind == "device-result" || kind == "device-tensor") {
      need(3);
      add_class(cols[1]);
      (kind == "device-loader" ? t.device_loader_ : t.device_result_).insert(member_key(cols[1], cols[2]));
      if (kind == "device-tensor") t.device_tensor_.insert(member_key(cols[1], cols[2]));
    } else if (kind == "device") {
      need(3);
      add_class(cols[1]);
      t.device_.insert(member_key(cols[1], cols[2]));
    } else if (kind == "attribute") {
      need(4);
      add_class(cols[1]);
      t.attribute_[member_key(cols[1], cols[2])] = add_class(cols[3]);
    } else if (kind == "device-module") {
      need(3);
      add_class(cols[1]);
      t.device_module_.insert(member_key(cols[1], cols[2]));
    } else if (kind == "moves-module") {
      need(3);
      t.moves_module_[add_class(cols[1])] = cols[2];
    } else if (kind == "to-device") {
      need(3);
      add_class(cols[1]);
      t.to_device_.insert(member_key(cols[1], cols[2]));
    } else if (kind == "wraps-first") {
      need(2);
      t.wraps_first_.insert(cols[1]);
    } else if (kind == "wraps-module") {
      need(4);
      ModuleWrapper w{cols[2], ModuleWrapper::Place::Same};
      if (cols[3] == "cuda") w.place = ModuleWrapper::Place::Cuda;
      else if (cols[3] == "device-ids") w.place = ModuleWrapper::Place::DeviceIds;
      else if (cols[3] != "same") bad("unknown wrapper placement");
      t.wrappers_[cols[1]] = std::move(w);
    } else if (kind == "host-batches") {
      if (cols.size() < 2) bad("wrong number of columns");
      t.host_batches_.insert(cols[1]);
      for (size_t i = 2; i < cols.size(); ++i) t.host_batch_tuples_.insert(cols[1] + "." + cols[i]);
    } else if (kind == "engine-tuple") {
      need(2);
      t.engine_tuples_.insert(cols[1]);
    } else if (kind == "identity") {
      need(2);
      t.identity_.insert(cols[1]);
    } else if (kind == "passes-args") {
      need(2);
      t.passes_args_.insert(cols[1]);
    } else if (kind == "device-params") {
      need(2);
      t.device_params_.insert(cols[1]);
    } else if (kind == "shape-sync") {
      need(2);
      t.shape_sync_.insert(cols[1]);
    } else if (kind == "loader-config") {
      need(5);
      if (cols[2] != "num_workers" && cols[2] != "pin_memory" && cols[2] != "batch_size")
        bad("unknown loader option");
      add_class(cols[1]);
      t.loader_config_[cols[1]].push_back({cols[2], cols[3], cols[4]});
    } else if (kind == "step-hook") {
      if (cols.size() < 3) bad("wrong number of columns");
      StepHook hook;
      for (size_t i = 3; i < cols.size(); ++i) {
        auto eq = cols[i].find('=');
        std::string what = eq == std::string::npos ? "" : cols[i].substr(eq + 1);
        if (eq == 0 || (what != "module" && what != "batch")) bad("a step-hook parameter is NAME=module or NAME=batch");
        hook.params.emplace_back(cols[i].substr(0, eq), what == "module" ? StepHook::Arg::Module : StepHook::Arg::Batch);
      }
      t.step_hooks_[member_key(cols[1], cols[2])] = std::move(hook);
      t.step_hook_methods_.insert(cols[2]);
    } else if (kind == "dev-run") {
      need(3);
      add_class(cols[1]);
      t.dev_run_[cols[1]] = cols[2];
    } else if (kind == "object-family") {
      // object-family PACKAGE SUFFIX [CLASSMETHOD | -EXCLUDED-SUFFIX ...]
      if (cols.size() < 3) bad("wrong number of columns");
      Family f;
      f.package = cols[1];
      f.suffix = cols[2];
      f.klass = add_class(cols[1] + ".*" + cols[2]);
      for (size_t i = 3; i < cols.size(); ++i) {
        if (cols[i][0] == '-') f.excluded.push_back(cols[i].substr(1));
        else f.constructors.push_back(cols[i]);
      }
      t.families_.push_back(std::move(f));
    } else if (kind == "host-result") {
      need(3);
      add_class(cols[1]);
      t.host_result_.insert(member_key(cols[1], cols[2]));
    } else if (kind == "host-encoding") {
      // host-encoding CLASS METHOD KEYWORD VALUE RESULT
      need(6);
      if (cols[5] != "tensor" && cols[5] != "mapping") bad("a host-encoding result is tensor or mapping");
      add_class(cols[1]);
      t.host_encoding_[member_key(cols[1], cols[2])] = HostEncoding{cols[3], cols[4], cols[5] == "tensor"};
    } else if (kind == "runs") {
      // runs CLASS METHOD METHOD2 [METHOD3 ...]
      if (cols.size() < 4) bad("wrong number of columns");
      t.runs_[member_key(cols[1], cols[2])].assign(cols.begin() + 3, cols.end());
    } else if (kind == "places-on-gpus") {
      need(4);
      t.places_[cols[2]].emplace_back(cols[1], cols[3]);
    } else if (kind == "tensor-methods" || kind == "held-value-methods" || kind == "same-device-functions" ||
               kind == "mapping-classes") {
      if (cols.size() < 2) bad("wrong number of columns");
      auto& names = kind == "tensor-methods"          ? t.tensor_methods_
                    : kind == "held-value-methods"    ? t.held_value_methods_
                    : kind == "same-device-functions" ? t.same_device_functions_
                                                      : t.mapping_classes_;
      names.insert(cols.begin() + 1, cols.end());
    } else if (kind == "host-function") {
      // host-function FUNCTION RESULT: RESULT `tensor`, `value`, or a tuple of them by commas
      need(3);
      std::vector<HostPart> parts;
      std::string_view r = cols[2];
      while (true) {
        size_t comma = r.find(',');
        std::string_view p = r.substr(0, comma);
        if (p == "tensor") parts.push_back(HostPart::Tensor);
        else if (p == "value") parts.push_back(HostPart::Value);
        else bad("host-function result is not tensor, value, or a comma-separated tuple of them");
        if (comma == std::string_view::npos) break;
        r = r.substr(comma + 1);
      }
      t.host_functions_[cols[1]] = HostResult{std::move(parts), cols[2].find(',') != std::string::npos};
    } else if (kind == "same-device-modules") {
      if (cols.size() < 2) bad("wrong number of columns");
      for (size_t i = 1; i < cols.size(); ++i) t.same_device_modules_.insert(add_class(cols[i]));
    } else if (kind == "trainer") {
      need(3);
      add_class(cols[1]);
      t.trainer_[cols[1]] = cols[2];
    } else {
      bad("unknown row kind");
    }
    ++t.rows_;
  }
  return t;
}

bool FrameworkTable::tensor_method(std::string_view name) const {
  if (name.empty() || name.front() == '_') return true;
  std::string n(name);
  if (tensor_methods_.count(n)) return true;
  // An in-place variant: `abs_`, `add_`, `masked_fill_`, `clamp_min_`.
  if (n.size() < 2 || n.back() != '_') return false;
  n.pop_back();
  return tensor_methods_.count(n) > 0;
}

const FrameworkTable::ModuleWrapper* FrameworkTable::module_wrapper(std::string_view qualified) const {
  auto it = wrappers_.find(std::string(qualified));
  return it == wrappers_.end() ? nullptr : &it->second;
}

const StepHook* FrameworkTable::step_hook(std::string_view base, std::string_view method) const {
  auto it = step_hooks_.find(member_key(base, method));
  return it == step_hooks_.end() ? nullptr : &it->second;
}

int FrameworkTable::object_class(std::string_view qualified) const {
  auto it = class_index_.find(std::string(qualified));
  if (it != class_index_.end()) return it->second;
  if (families_.empty()) return -1;
  // A class of a family (`transformers.LlamaTokenizer`, `transformers.models.clip.CLIPProcessor`),
  // or one of its constructing classmethods (`transformers.AutoTokenizer.from_pretrained`).
  auto ends_with = [](std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  auto member_of = [&](const Family& f, std::string_view q) {
    size_t dot = q.rfind('.');
    if (dot == std::string_view::npos || q.size() <= f.package.size() + 1 || q.compare(0, f.package.size(), f.package) != 0 ||
        q[f.package.size()] != '.')
      return false;
    std::string_view name = q.substr(dot + 1);
    if (name.empty() || !std::isupper(static_cast<unsigned char>(name[0])) || !ends_with(name, f.suffix)) return false;
    for (const auto& x : f.excluded)
      if (ends_with(name, x)) return false;
    return true;
  };
  for (const Family& f : families_) {
    if (member_of(f, qualified)) return f.klass;
    size_t dot = qualified.rfind('.');
    if (dot == std::string_view::npos) continue;
    std::string_view method = qualified.substr(dot + 1);
    for (const auto& c : f.constructors)
      if (method == c && member_of(f, qualified.substr(0, dot))) return f.klass;
  }
  return -1;
}

bool FrameworkTable::returns_host(int klass, std::string_view method) const {
  return klass >= 0 && host_result_.count(member_key(classes_[klass], method)) > 0;
}

const FrameworkTable::HostEncoding* FrameworkTable::host_encoding(int klass, std::string_view method) const {
  if (klass < 0 || host_encoding_.empty()) return nullptr;
  auto it = host_encoding_.find(member_key(classes_[klass], method));
  return it == host_encoding_.end() ? nullptr : &it->second;
}

const std::vector<std::string>& FrameworkTable::runs(std::string_view base, std::string_view method) const {
  static const std::vector<std::string> kNone;
  if (runs_.empty()) return kNone;
  auto it = runs_.find(member_key(base, method));
  return it == runs_.end() ? kNone : it->second;
}

bool FrameworkTable::prepares(int klass, std::string_view method) const {
  return klass >= 0 && prepare_.count(member_key(classes_[klass], method)) > 0;
}

bool FrameworkTable::prepares_first(int klass, std::string_view method) const {
  return klass >= 0 && prepare_first_.count(member_key(classes_[klass], method)) > 0;
}

bool FrameworkTable::returns_device_loader(int klass, std::string_view method) const {
  return klass >= 0 && device_loader_.count(member_key(classes_[klass], method)) > 0;
}

bool FrameworkTable::returns_device_tensors(int klass, std::string_view method) const {
  return klass >= 0 && device_result_.count(member_key(classes_[klass], method)) > 0;
}

bool FrameworkTable::returns_device_tensor(int klass, std::string_view method) const {
  return klass >= 0 && device_tensor_.count(member_key(classes_[klass], method)) > 0;
}

bool FrameworkTable::is_device_attribute(int klass, std::string_view attribute) const {
  return klass >= 0 && device_.count(member_key(classes_[klass], attribute)) > 0;
}

int FrameworkTable::attribute_class(int klass, std::string_view attribute) const {
  if (klass < 0) return -1;
  auto it = attribute_.find(member_key(classes_[klass], attribute));
  return it == attribute_.end() ? -1 : it->second;
}

bool FrameworkTable::is_device_module(int klass, std::string_view attribute) const {
  return klass >= 0 && device_module_.count(member_key(classes_[klass], attribute)) > 0;
}

std::string_view FrameworkTable::moved_module_keyword(int klass) const {
  auto it = moves_module_.find(klass);
  return it == moves_module_.end() ? std::string_view{} : std::string_view(it->second);
}

bool FrameworkTable::returns_on_device(int klass, std::string_view method) const {
  return klass >= 0 && to_device_.count(member_key(classes_[klass], method)) > 0;
}

const std::vector<FrameworkTable::LoaderOption>& FrameworkTable::loader_config(std::string_view qualified) const {
  static const std::vector<LoaderOption> kNone;
  auto it = loader_config_.find(std::string(qualified));
  return it == loader_config_.end() ? kNone : it->second;
}

std::string_view FrameworkTable::trainer_config_keyword(std::string_view qualified) const {
  auto it = trainer_.find(std::string(qualified));
  return it == trainer_.end() ? std::string_view{} : std::string_view(it->second);
}

std::string_view FrameworkTable::dev_run_keyword(std::string_view qualified) const {
  auto it = dev_run_.find(std::string(qualified));
  return it == dev_run_.end() ? std::string_view{} : std::string_view(it->second);
}

std::string_view FrameworkTable::placement_keyword(std::string_view qualified) const {
  size_t dot = qualified.rfind('.');
  if (dot == std::string_view::npos) return {};
  auto it = places_.find(std::string(qualified.substr(dot + 1)));
  if (it == places_.end()) return {};
  for (const auto& [package, keyword] : it->second)
    if (qualified.size() > package.size() + 1 && qualified.compare(0, package.size(), package) == 0 &&
        qualified[package.size()] == '.')
      return keyword;
  return {};
}

}  // namespace stoker::python
