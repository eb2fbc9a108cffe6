// Class-level constants of a plain configuration class (s28 andev): shared by the value resolver
// (model_attribute_values.cpp, `opt.num_workers` after `opt = Config()`) and the module summary
// (semantic_project.cpp, the "Class.name" entries other modules read). Internal to those files.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "python/model_internal.h"

namespace stoker::python::model_detail {

// A plain configuration class: no decorator (not a dataclass) and no base but `object`.
inline bool plain_config_class(const Class& c) {
  if (is(parent(c.node), "decorated_definition")) return false;
  for (const auto& b : c.bases)
    if (b != "object" && b != "builtins.object") return false;
  return true;
}

// Joins `vs` into `out` when it is non-empty and every value is a known constant; false otherwise.
inline bool add_known_values(std::vector<Value>& out, const std::vector<Value>& vs) {
  if (vs.empty()) return false;
  for (const Value& v : vs)
    if (v.kind == Value::Kind::Unknown || v.kind == Value::Kind::Expr) return false;
  add_values(out, vs);
  return true;
}

// `class Config(object): num_workers = 4; display = False` (no base but `object`, no decorator:
// not a dataclass): the values of every binding of `name` in the class body, all host constants,
// when the class's methods store nothing of that name on `self` (`stores`: SemanticModel's
// self_stores of the class, "*" for computed names). Empty otherwise. `binding_values` is the
// model's. O(bindings of the name).
inline std::vector<Value> class_level_constant(const SemanticModel& m, int klass, std::string_view name,
                                               const std::set<std::string>& stores,
                                               const std::function<std::vector<Value>(const Binding&)>& binding_values) {
  const Class& c = m.classes()[static_cast<size_t>(klass)];
  if (!plain_config_class(c)) return {};
  if (stores.count("*") || stores.count(std::string(name))) return {};
  const auto& bindings = m.scopes()[static_cast<size_t>(c.scope)].bindings;
  auto it = bindings.find(name);
  if (it == bindings.end() || it->second.empty() || it->second.size() > SemanticModel::kMaxCandidates) return {};
  std::vector<Value> out;
  for (const Binding& b : it->second) {
    if (b.kind != Binding::Kind::Assign || b.unpack_index >= 0 || is_null(b.value)) return {};
    if (!add_known_values(out, binding_values(b))) return {};
  }
  return out;
}

}  // namespace stoker::python::model_detail
