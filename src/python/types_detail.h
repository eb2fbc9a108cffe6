#pragma once

// Helpers shared by the files of the type inference (types.cpp, types_classes.cpp), some of them
// also read by the device analysis and SY003 (host_attributes, tensor_like, record_fields).

#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "python/model_internal.h"
#include "python/semantic_model.h"
#include "python/types.h"

namespace stoker::python::type_detail {

// The model's (model_internal.h): a prefix test, the last dotted part of a qualified name.
using model_detail::last_part;
using model_detail::starts_with;

// The bindings a use of a name sees, comprehension variables scoped to their comprehension.
std::vector<const Binding*> visible(const SemanticModel& m, Node use);

// An item read (`x[...]`) that is used as a mapping: itself subscripted by a string literal
// (`data["info"]["num_objects"]`), or the object of a `.items()`, `.keys()` or `.values()` call. A
// tensor takes neither, so the item is no tensor (types_keyed.cpp).
bool mapping_read(const SemanticModel& m, Node item);

// `dict()`, `collections.OrderedDict()` or `collections.defaultdict(int | float)`: an empty mapping
// (typed as a `{}` display is, its item stores filling it; types.cpp).
bool empty_mapping_call(const SemanticModel& m, Node e);

// A tensor, or a container whose every element is one (AbstractType::tensors).
bool tensor_like(const AbstractType& t);

// The fields of a dataclass or NamedTuple class of the file (`loss: torch.Tensor`, `n: int = 0` in
// its body), in order: the annotated names and their defaults (or null). Empty for other classes.
std::vector<std::pair<std::string_view, Node>> record_fields(const SemanticModel& m, int klass);

// Attributes of tensors and modules that are host values (`width`, `height`: a PIL image's);
// with the `is_` ones, never a tensor (TypeInference's attribute types, SemanticModel::is_cuda).
const std::set<std::string, std::less<>>& host_attributes();

// A type's device as the facts carry it (FunctionFacts::ret_device, ret_elems): the TypeDevice,
// with kTensorsFact added for a container of tensors (TypeInference::from_fact reads it back).
constexpr int kTensorsFact = 16;
int device_fact(const AbstractType& t);

// A generator of the module that yields slices of one parameter (`for i in range(0, len(t), bs):
// yield t[i:i + bs]`; of the first element of a `*tensors` parameter, `tensor = tensors[0]`, or
// `yield tuple(x[i:i + bs] for x in tensors)`): that parameter's index in Function::params, else
// -1. FunctionFacts::yields_param carries it for other modules as kYieldsSlices - index.
int sliced_param(const SemanticModel& m, int function);
constexpr int kYieldsSlices = -2;

}  // namespace stoker::python::type_detail
