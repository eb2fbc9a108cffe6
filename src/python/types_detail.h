#pragma once

// Helpers shared by the files of the type inference (types.cpp, types_classes.cpp).

#include <string_view>
#include <vector>

#include "python/semantic_model.h"

namespace stoker::python::type_detail {

bool starts_with(std::string_view s, std::string_view p);

// The last dotted part of a qualified name: "torch.nn.Module" -> "Module".
std::string_view last_part(std::string_view s);

// The bindings a use of a name sees, comprehension variables scoped to their comprehension.
std::vector<const Binding*> visible(const SemanticModel& m, Node use);

}  // namespace stoker::python::type_detail
