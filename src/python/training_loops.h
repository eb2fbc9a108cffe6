// Functions that hold a hot loop which trains or serves data (s34 azd): shared by the loop
// classification (model_loops.cpp: a loop around only forward-only hot loops keeps its own
// forwards as steps) and the module summary (summary.cpp: FunctionFacts::trains_loop, which other
// modules read the same way). Internal to those files.
#pragma once

#include <vector>

#include "python/semantic_model.h"

namespace stoker::python::model_detail {

// Per function of `m`: whether it holds such a loop: one of its hot loops `trains(loop)` (iterates
// a loader, or runs `backward()` or an optimizer step outside its own nested hot loops), or it
// calls a function that does: one of this module (through SemanticModel::callers) or of another
// module (`ext_hot(call index)`: its facts say it holds one, FunctionFacts::trains_loop). `nested` (optional, per loop): set for every loop such a hot loop is nested
// in. A hot loop of forwards only (a planner's CEM iterations, a sampler's denoising steps, a
// layer loop) counts for neither. O(loops x depth + calls + functions).
template <class Trains, class ExtHot>
std::vector<char> training_loop_functions(const SemanticModel& m, Trains&& trains, ExtHot&& ext_hot,
                                          std::vector<char>* nested) {
  const auto& loops = m.loops();
  std::vector<char> out(m.functions().size(), 0);
  if (nested) nested->assign(loops.size(), 0);
  std::vector<int> work;
  auto seed = [&](int f) {
    if (f >= 0 && static_cast<size_t>(f) < out.size() && !out[f]) {
      out[f] = 1;
      work.push_back(f);
    }
  };
  for (size_t j = 0; j < loops.size(); ++j) {
    if (loops[j].kind != LoopKind::Hot || !trains(static_cast<int>(j))) continue;
    if (nested)
      for (int p = loops[j].parent_loop; p >= 0 && !(*nested)[p]; p = loops[p].parent_loop) (*nested)[p] = 1;
    seed(loops[j].function);
  }
  const auto& calls = m.calls();
  for (size_t ci = 0; ci < calls.size(); ++ci)
    if (calls[ci].caller >= 0 && ext_hot(static_cast<int>(ci))) seed(calls[ci].caller);
  while (!work.empty()) {
    int f = work.back();
    work.pop_back();
    for (int ci : m.callers(f)) seed(calls[ci].caller);
  }
  return out;
}

}  // namespace stoker::python::model_detail
