// The C++ checks, one line each.
#include "cxx/check.h"

namespace stoker::cxx {

std::unique_ptr<Check> make_cu001(CheckContext&);
std::unique_ptr<Check> make_cu002(CheckContext&);
std::unique_ptr<Check> make_cu003(CheckContext&);
std::unique_ptr<Check> make_cu004(CheckContext&);
std::unique_ptr<Check> make_cu005(CheckContext&);
std::unique_ptr<Check> make_cu006(CheckContext&);
std::unique_ptr<Check> make_cu007(CheckContext&);
std::unique_ptr<Check> make_cu008(CheckContext&);
std::unique_ptr<Check> make_cu009(CheckContext&);
std::unique_ptr<Check> make_dl001_libtorch(CheckContext&);
std::unique_ptr<Check> make_bs001_libtorch(CheckContext&);
std::unique_ptr<Check> make_tx001_libtorch(CheckContext&);
std::unique_ptr<Check> make_sy001_libtorch(CheckContext&);
std::unique_ptr<Check> make_sy004_libtorch(CheckContext&);

std::vector<std::unique_ptr<Check>> make_checks(CheckContext& ctx) {
  std::vector<std::unique_ptr<Check>> checks;
  for (auto make : {make_cu001, make_cu002, make_cu003, make_cu004, make_cu005, make_cu006, make_cu007, make_cu008,
                    make_cu009, make_dl001_libtorch, make_bs001_libtorch, make_tx001_libtorch, make_sy001_libtorch,
                    make_sy004_libtorch})
    checks.push_back(make(ctx));
  return checks;
}

}  // namespace stoker::cxx
