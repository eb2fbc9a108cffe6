// A syntactic form of guard shared by the semantic model's value and hotness code
// (model_argparse.cpp, model_hotness.cpp).
#pragma once

#include "python/syntax.h"

namespace stoker::python::model_detail {

// A condition that tests flags only: a name or attribute (`args.web`, `debug`), a level of one
// compared with zero as its truth is (`opt.debug > 0`, `!= 0`, `>= 1`: CenterNet's debug level,
// set F), `not` of one, or `and`/`or` of such. A store under such a guard known False is an
// opt-in left off (a store_true flag's branch, `if opt.debug > 0: opt.num_workers = 0` with the
// default 0); one under a comparison of a choice (`opts.dataset == "coco"`) is another
// configuration's path, kept as a candidate value. Syntactic, O(size of the condition).
bool flag_test(Node cond, std::string_view src);

}  // namespace stoker::python::model_detail
