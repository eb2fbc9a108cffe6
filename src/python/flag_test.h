// A syntactic form of guard shared by the semantic model's value and hotness code
// (model_argparse.cpp, model_hotness.cpp).
#pragma once

#include "python/syntax.h"

namespace stoker::python::model_detail {

// A condition that tests flags only: a name or attribute (`args.web`, `debug`), `not` of one, or
// `and`/`or` of such. A store under such a guard known False is an opt-in left off (a store_true
// flag's branch); one under a comparison of a choice (`opts.dataset == "coco"`) is another
// configuration's path, kept as a candidate value. Syntactic, O(size of the condition).
bool flag_test(Node cond);

}  // namespace stoker::python::model_detail
