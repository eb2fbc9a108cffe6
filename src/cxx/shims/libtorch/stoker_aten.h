// stoker's shim of the ATen / c10 / torch-extension API that PyTorch C++ and CUDA extensions use
// (tensors, TORCH_CHECK, AT_DISPATCH_*, the c10 macros, pybind11's module definitions), so that
// extension sources parse without PyTorch installed. Written for stoker from PyTorch's C++ API
// documentation; declarations only. Real extension headers bring in the standard library, and
// extension code relies on it: this shim does too (extension files are few and heavy anyway).
#pragma once
#ifndef STOKER_ATEN_SHIM_H
#define STOKER_ATEN_SHIM_H

#include <algorithm>
#include <cassert>
#include <climits>
#include <cmath>
#include <cstring>
#include <math.h>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "stoker_torch.h"

// c10/macros/Macros.h
#if defined(__CUDACC__) || defined(__CUDA__)
#define C10_HOST_DEVICE __host__ __device__
#define C10_DEVICE __device__
#define C10_HOST __host__
#else
#define C10_HOST_DEVICE
#define C10_DEVICE
#define C10_HOST
#endif
#define C10_WARP_SIZE 32
#define C10_MAX_THREADS_PER_BLOCK(val) 1024
#define C10_LAUNCH_BOUNDS_0 __attribute__((launch_bounds(1024)))
#define C10_LAUNCH_BOUNDS_1(max_threads) __attribute__((launch_bounds(max_threads)))
#define C10_LAUNCH_BOUNDS_2(max_threads, min_blocks) __attribute__((launch_bounds(max_threads, min_blocks)))
#define C10_UNUSED __attribute__((__unused__))
#define C10_LIKELY(expr) (expr)
#define C10_UNLIKELY(expr) (expr)
#define C10_ALWAYS_INLINE inline
#define C10_API
#define TORCH_API
#define C10_RESTRICT __restrict
#define C10_CUDA_KERNEL_LAUNCH_CHECK() ((void)0)
#define C10_CUDA_CHECK(expr) ((void)(expr))
#define AT_CUDA_CHECK(expr) ((void)(expr))
#define TORCH_CUDABLAS_CHECK(expr) ((void)(expr))
#define TORCH_CHECK_NOT_IMPLEMENTED(cond, ...) ((void)(cond))
#define TORCH_CHECK_INDEX(cond, ...) ((void)(cond))
#define TORCH_CHECK_TYPE(cond, ...) ((void)(cond))
#define TORCH_INTERNAL_ASSERT_DEBUG_ONLY(...) ((void)0)

// ATen/Dispatch.h: the real macros switch over the tensor's dtype and run the lambda once per
// case with `scalar_t` set; the shim runs it for one type, which is what the analysis needs (the
// lambda's calls and launches, with real types).
#define STOKER_DISPATCH(TYPE, T, ...) [&] { (void)(TYPE); using scalar_t = T; return __VA_ARGS__(); }()
#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) STOKER_DISPATCH(TYPE, float, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...) STOKER_DISPATCH(TYPE, float, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND(T1, TYPE, NAME, ...) STOKER_DISPATCH(TYPE, float, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND2(T1, T2, TYPE, NAME, ...) STOKER_DISPATCH(TYPE, float, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND3(T1, T2, T3, TYPE, NAME, ...) STOKER_DISPATCH(TYPE, float, __VA_ARGS__)
#define AT_DISPATCH_REDUCED_FLOATING_TYPES(TYPE, NAME, ...) STOKER_DISPATCH(TYPE, at::Half, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES(TYPE, NAME, ...) STOKER_DISPATCH(TYPE, float, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...) STOKER_DISPATCH(TYPE, float, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND(T1, TYPE, NAME, ...) STOKER_DISPATCH(TYPE, float, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND2(T1, T2, TYPE, NAME, ...) STOKER_DISPATCH(TYPE, float, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND3(T1, T2, T3, TYPE, NAME, ...) STOKER_DISPATCH(TYPE, float, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND_HALF(TYPE, NAME, ...) STOKER_DISPATCH(TYPE, float, __VA_ARGS__)
#define AT_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...) STOKER_DISPATCH(TYPE, int64_t, __VA_ARGS__)
#define AT_DISPATCH_INDEX_TYPES(TYPE, NAME, ...) \
  [&] { (void)(TYPE); using index_t = int64_t; return __VA_ARGS__(); }()

namespace pybind11 {
class handle {};
class object : public handle {
 public:
  template <typename T> T cast() const;
};
class none : public object {};
class str : public object { public: str(const char* s = ""); };
class dict : public object {};
class list : public object {};
class tuple : public object {};
class module_ : public object {
 public:
  template <typename Function, typename... Extra> module_& def(const char* name, Function&& f, const Extra&... extra);
  module_ def_submodule(const char* name, const char* doc = nullptr);
  object attr(const char* name) const;
};
using module = module_;
struct arg {
  explicit arg(const char* name);
  template <typename T> arg& operator=(const T& value);
  arg& noconvert(bool flag = true);
};
template <typename... Guards> struct call_guard {};
struct gil_scoped_release { gil_scoped_release(); };
struct gil_scoped_acquire { gil_scoped_acquire(); };
enum class return_value_policy { automatic, take_ownership, copy, move, reference, reference_internal };
template <typename... Args> struct init_t {};
template <typename... Args> init_t<Args...> init();
template <typename Factory> init_t<> init(Factory&& f);
template <typename T, typename... Options>
class class_ : public object {
 public:
  template <typename... Extra> class_(handle scope, const char* name, const Extra&... extra);
  template <typename Function, typename... Extra> class_& def(const char* name, Function&& f, const Extra&... extra);
  template <typename... Args, typename... Extra> class_& def(init_t<Args...> init, const Extra&... extra);
  template <typename Member, typename... Extra> class_& def_readwrite(const char* name, Member m, const Extra&... extra);
  template <typename Member, typename... Extra> class_& def_readonly(const char* name, Member m, const Extra&... extra);
  template <typename Getter, typename... Extra> class_& def_property_readonly(const char* name, Getter g, const Extra&... extra);
  template <typename Getter, typename Setter, typename... Extra>
  class_& def_property(const char* name, Getter g, Setter s, const Extra&... extra);
  template <typename Function, typename... Extra> class_& def_static(const char* name, Function&& f, const Extra&... extra);
};
template <typename T>
class enum_ : public object {
 public:
  enum_(handle scope, const char* name);
  enum_& value(const char* name, T value, const char* doc = nullptr);
  enum_& export_values();
};
namespace literals {
arg operator""_a(const char* name, decltype(sizeof(0)));
}  // namespace literals
}  // namespace pybind11
namespace pybind11 {
template <typename... Args>
struct overload_cast_impl {
  template <typename Return> constexpr auto operator()(Return (*pf)(Args...)) const -> decltype(pf) { return pf; }
  template <typename Return, typename Class>
  constexpr auto operator()(Return (Class::*pmf)(Args...)) const -> decltype(pmf) { return pmf; }
  template <typename Return, typename Class>
  constexpr auto operator()(Return (Class::*pmf)(Args...) const) const -> decltype(pmf) { return pmf; }
};
template <typename... Args> constexpr overload_cast_impl<Args...> overload_cast{};
}  // namespace pybind11
namespace py = pybind11;
using namespace pybind11::literals;
#define PYBIND11_MODULE(name, variable) \
  __attribute__((unused)) static void stoker_pybind11_module_##name(::pybind11::module_& variable)
#ifndef TORCH_EXTENSION_NAME
#define TORCH_EXTENSION_NAME stoker_extension
#endif

// torch/library.h: operator registration.
namespace torch {
class Library {
 public:
  template <typename Schema, typename Function> Library& def(Schema&& schema, Function&& f);
  template <typename Schema> Library& def(Schema&& schema);
  template <typename Name, typename Function> Library& impl(Name&& name, Function&& f);
};
}  // namespace torch
#define TORCH_LIBRARY(ns, m) __attribute__((unused)) static void stoker_torch_library_##ns(torch::Library& m)
#define TORCH_LIBRARY_FRAGMENT(ns, m) __attribute__((unused)) static void stoker_torch_library_fragment_##ns(torch::Library& m)
#define TORCH_LIBRARY_IMPL(ns, k, m) \
  __attribute__((unused)) static void stoker_torch_library_impl_##ns##_##k(torch::Library& m)
#define TORCH_SELECTIVE_NAME(n) n
#define TORCH_FN(f) (&f)

#endif
