// Dicts a helper of this module fills from another argument's items (soundstorm's
// `accum_log(logs, {"loss": loss.item(), "critic_loss": critic_loss})`, whose body runs
// `for key, new_value in new_logs.items(): log[key] = log.get(key, 0.) + new_value`): read by the
// types (TypeInference::keyed_value) and by the CUDA taint (SemanticModel::keyed_store_cuda), so
// `logs["critic_loss"]` is what the display holds under that key.
#pragma once

#include <utility>
#include <vector>

#include "python/semantic_model.h"

namespace stoker::python {

class TypeInference;

// The (filled, source) parameter pairs of function f: a store `P[k] = ...` under `for k, v in
// Q.items()` (or `for k in Q` / `Q.keys()`), P and Q parameters that f never rebinds, the stored
// value reading the item (`v`, or `Q[k]`). O(the stores into f's parameters).
std::vector<std::pair<int, int>> param_fills(const SemanticModel& m, int f);

// The source arguments of the calls in `name`'s function that hand that name (the same binding
// scope) to a function of this module filling it: one per such call and fill. O(the calls of
// the function).
std::vector<Node> dict_fill_sources(const SemanticModel& m, const TypeInference& types, Node name);

}  // namespace stoker::python
