// Integer arithmetic on constant values that the analysis folds (`a * b` of two literals, `x += n` of
// argparse defaults). Python's int is unbounded; ours is long long: a result past its range is not
// a value the analysis knows, so these return nothing instead of overflowing (undefined behaviour).
#pragma once

#include <optional>
#include <string_view>

namespace stoker::python {

// The result of `a op b` for op among + - * // (floor division as Python rounds it) and the
// augmented forms += -= *=; nothing on overflow, division by zero or another operator.
inline std::optional<long long> checked_int_op(std::string_view op, long long a, long long b) {
  long long r = 0;
  if (op == "+" || op == "+=") return __builtin_add_overflow(a, b, &r) ? std::nullopt : std::optional(r);
  if (op == "-" || op == "-=") return __builtin_sub_overflow(a, b, &r) ? std::nullopt : std::optional(r);
  if (op == "*" || op == "*=") return __builtin_mul_overflow(a, b, &r) ? std::nullopt : std::optional(r);
  if (op == "//" || op == "//=") {
    if (b == 0 || (b == -1 && a == static_cast<long long>(1ULL << 63))) return std::nullopt;
    long long q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  }
  return std::nullopt;
}

}  // namespace stoker::python
