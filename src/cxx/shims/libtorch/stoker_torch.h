// stoker's LibTorch shim: the part of the LibTorch C++ API that stoker's rules read, declared
// so that LibTorch programs parse without LibTorch installed (header-free mode). Written for
// stoker from the LibTorch API documentation; declarations only, never compiled into a program.
// Defaults that rules depend on are kept: DataLoaderOptions batch_size 1 and workers 0;
// Tensor::to non_blocking false.
#pragma once
#ifndef STOKER_TORCH_SHIM_H
#define STOKER_TORCH_SHIM_H

// Self-contained: no standard header but the three smallest, because <string>, <vector> and
// <memory> would cost more to parse than everything else stoker does with a file. Where LibTorch
// takes or returns a std:: container or pointer, the shim uses the stand-ins below, which
// convert from and to any type (so user code that passes a std::vector or keeps a result in a
// std::shared_ptr still type-checks when it includes those headers itself).
#include <cstddef>
#include <cstdint>
#include <initializer_list>
// Real LibTorch includes <vector>, <string>, <memory> and <tuple>, and programs use them without
// including them. stoker defines these macros when the analyzed file names std:: entities from
// one of them (a textual scan), so such a file still parses and the others pay nothing.
#ifdef STOKER_SHIM_STD_VECTOR
#include <vector>
#endif
#ifdef STOKER_SHIM_STD_STRING
#include <string>
#endif
#ifdef STOKER_SHIM_STD_MEMORY
#include <memory>
#endif
#ifdef STOKER_SHIM_STD_TUPLE
#include <tuple>
#endif
#ifdef STOKER_SHIM_STD_CMATH
#include <cmath>
#endif
#ifdef STOKER_SHIM_STD_ALGORITHM
#include <algorithm>
#endif
#ifdef STOKER_SHIM_STD_CASSERT
#include <cassert>
#endif

namespace stoker_shim {
template <bool B, typename T = void> struct enable_if {};
template <typename T> struct enable_if<true, T> { using type = T; };
template <typename T> struct is_arithmetic { static constexpr bool value = __is_arithmetic(T); };
// std::vector<T> / c10::ArrayRef<T>
template <typename T>
struct List {
  List();
  List(std::initializer_list<T> values);
  List(const T& one);  // c10::ArrayRef's one-element constructor
  template <typename Container, typename = decltype(static_cast<const Container*>(nullptr)->begin())>
  List(const Container& values);
  template <typename Container> operator Container() const;
  T* begin() const;
  T* end() const;
  size_t size() const;
  bool empty() const;
  T& operator[](size_t i) const;
  bool equals(const List& other) const;
  List slice(size_t start) const;
  List slice(size_t start, size_t length) const;
  T& front() const;
  T& back() const;
  void push_back(const T& value);
  const T* data() const;
  List vec() const;
};
// std::string
struct String {
  String(const char* s);
  template <typename S, typename = decltype(static_cast<const S*>(nullptr)->c_str())>
  String(const S& s);
  template <typename S> operator S() const;
  const char* c_str() const;
  size_t size() const;
};
// std::shared_ptr<T> / std::unique_ptr<T>
template <typename T>
struct Ptr {
  Ptr();
  Ptr(decltype(nullptr));
  template <typename P, typename = decltype(static_cast<const P*>(nullptr)->get())>
  Ptr(const P& p);
  template <typename P> operator P() const;
  T* operator->() const;
  T& operator*() const;
  T* get() const;
  explicit operator bool() const;
};
template <typename OStream, typename T>
auto operator<<(OStream& os, const List<T>& list) -> decltype(os << 1);
}  // namespace stoker_shim

namespace c10 {
enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
enum class ScalarType : int8_t { Byte, Char, Short, Int, Long, Half, Float, Double, Bool, BFloat16 };
constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kUInt8 = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char;
constexpr ScalarType kInt8 = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short;
constexpr ScalarType kInt32 = ScalarType::Int;
constexpr ScalarType kInt64 = ScalarType::Long;
constexpr ScalarType kFloat16 = ScalarType::Half;
constexpr ScalarType kFloat64 = ScalarType::Double;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kFloat32 = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
struct Device {
  Device(DeviceType type, int8_t index = -1);
  Device(const char* device_string);
  DeviceType type() const;
  bool is_cuda() const;
  bool is_cpu() const;
  const char* str() const;
  int8_t index() const;
  bool has_index() const;
  bool operator==(const Device& other) const;
  bool operator!=(const Device& other) const;
};
struct Scalar {
  Scalar(int v);
  Scalar(long v);
  Scalar(long long v);
  Scalar(double v);
  Scalar(float v);
  Scalar(bool v);
  template <typename T> T to() const;
};
using IntArrayRef = stoker_shim::List<int64_t>;
template <typename T>
struct optional {
  optional();
  optional(decltype(nullptr));
  optional(const T& value);
  bool has_value() const;
  T value() const;
  T value_or(const T& other) const;
  const T& operator*() const;
  const T* operator->() const;
  explicit operator bool() const;
};
}  // namespace c10

namespace at {
using c10::Device;
using c10::DeviceType;
using c10::Scalar;
using c10::ScalarType;
}  // namespace at
namespace c10 {
enum class Layout : int8_t { Strided, Sparse };
constexpr Layout kStrided = Layout::Strided;
enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };
// c10/util/Half.h, BFloat16.h: 16-bit floats that convert from and to float on host and device.
#if defined(__CUDACC__) || defined(__CUDA__)
#define STOKER_HD __host__ __device__
#else
#define STOKER_HD
#endif
struct Half {
  unsigned short x;
  STOKER_HD Half();
  STOKER_HD Half(float value);
  STOKER_HD operator float() const;
};
struct BFloat16 {
  unsigned short x;
  STOKER_HD BFloat16();
  STOKER_HD BFloat16(float value);
  STOKER_HD operator float() const;
};
// Tensor::type(), the old dispatch argument.
struct DeprecatedTypeProperties {
  ScalarType scalarType() const;
  operator ScalarType() const;
  bool is_cuda() const;
};
template <typename T> struct DefaultPtrTraits { typedef T* PtrType; };
template <typename T> struct RestrictPtrTraits { typedef T* __restrict__ PtrType; };
template <typename T, size_t N>
struct TensorAccessor {
  STOKER_HD TensorAccessor<T, N - 1> operator[](int64_t i) const;
  STOKER_HD int64_t size(int64_t d) const;
  STOKER_HD int64_t stride(int64_t d) const;
};
template <typename T>
struct TensorAccessor<T, 1> {
  STOKER_HD T& operator[](int64_t i) const;
  STOKER_HD int64_t size(int64_t d) const;
  STOKER_HD int64_t stride(int64_t d) const;
};
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits, typename index_t = int64_t>
struct GenericPackedTensorAccessor {
  STOKER_HD TensorAccessor<T, N - 1> operator[](index_t i) const;
  STOKER_HD index_t size(index_t d) const;
  STOKER_HD index_t stride(index_t d) const;
  STOKER_HD T* data() const;
};
template <typename T, size_t N, template <typename U> class PtrTraits, typename index_t>
struct GenericPackedTensorAccessor<T, 1, PtrTraits, index_t> {
  STOKER_HD T& operator[](index_t i) const;
  STOKER_HD index_t size(index_t d) const;
  STOKER_HD index_t stride(index_t d) const;
  STOKER_HD T* data() const;
};
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor32 = GenericPackedTensorAccessor<T, N, PtrTraits, int32_t>;
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor64 = GenericPackedTensorAccessor<T, N, PtrTraits, int64_t>;
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor = GenericPackedTensorAccessor<T, N, PtrTraits, int64_t>;
}  // namespace c10
namespace at {
using c10::Layout;
using c10::MemoryFormat;
using c10::DeprecatedTypeProperties;
using c10::TensorAccessor;
using c10::DefaultPtrTraits;
using c10::PackedTensorAccessor32;
using c10::PackedTensorAccessor64;
using c10::GenericPackedTensorAccessor;
struct TensorOptions {
  TensorOptions();
  TensorOptions(c10::Device device);
  TensorOptions(c10::DeviceType device_type);
  TensorOptions(c10::ScalarType dtype);
  TensorOptions(c10::DeprecatedTypeProperties type);
  TensorOptions device(c10::Device d) const;
  TensorOptions dtype(c10::ScalarType t) const;
  TensorOptions requires_grad(bool r) const;
  TensorOptions pinned_memory(bool p) const;
  TensorOptions layout(Layout l) const;
  TensorOptions memory_format(MemoryFormat f) const;
  c10::Device device() const;
  ScalarType dtype() const;
};
class Tensor {
 public:
  Tensor();
  Tensor to(TensorOptions options = {}, bool non_blocking = false, bool copy = false) const;
  Tensor to(c10::Device device, c10::ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(c10::ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(const Tensor& other, bool non_blocking = false, bool copy = false) const;
  Tensor cuda() const;
  Tensor cpu() const;
  Tensor pin_memory() const;
  bool is_pinned() const;
  bool is_cuda() const;
  bool is_cpu() const;
  c10::Device device() const;
  Tensor detach() const;
  Tensor clone() const;
  Tensor contiguous() const;
  template <typename T> T item() const;
  c10::Scalar item() const;
  template <typename T> T* data_ptr() const;
  void* data_ptr() const;
  template <typename T> T* data() const;
  template <typename T> T* mutable_data_ptr() const;
  template <typename T> const T* const_data_ptr() const;
  const void* const_data_ptr() const;
  TensorOptions options() const;
  ScalarType scalar_type() const;
  ScalarType dtype() const;
  DeprecatedTypeProperties type() const;
  Layout layout() const;
  int64_t stride(int64_t dim) const;
  c10::IntArrayRef strides() const;
  bool is_contiguous(MemoryFormat format = MemoryFormat::Contiguous) const;
  int64_t element_size() const;
  size_t nbytes() const;
  int64_t ndimension() const;
  bool requires_grad() const;
  int64_t get_device() const;
  template <typename T, size_t N> TensorAccessor<T, N> accessor() const;
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor32<T, N, PtrTraits> packed_accessor32() const;
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor64<T, N, PtrTraits> packed_accessor64() const;
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits, typename index_t = int64_t>
  GenericPackedTensorAccessor<T, N, PtrTraits, index_t> packed_accessor() const;
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor slice(int64_t dim = 0, int64_t start = 0, int64_t end = 9223372036854775807, int64_t step = 1) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor transpose(int64_t a, int64_t b) const;
  Tensor permute(c10::IntArrayRef dims) const;
  Tensor expand(c10::IntArrayRef size) const;
  Tensor expand_as(const Tensor& other) const;
  Tensor view_as(const Tensor& other) const;
  Tensor type_as(const Tensor& other) const;
  Tensor contiguous(MemoryFormat format) const;
  Tensor float_() const;
  Tensor half() const;
  Tensor abs() const;
  Tensor sqrt() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor pow(c10::Scalar e) const;
  Tensor norm() const;
  Tensor min() const;
  Tensor add(const Tensor& other, c10::Scalar alpha = 1) const;
  Tensor sub(const Tensor& other, c10::Scalar alpha = 1) const;
  Tensor mul(const Tensor& other) const;
  Tensor mul(c10::Scalar other) const;
  Tensor div(const Tensor& other) const;
  Tensor div(c10::Scalar other) const;
  Tensor& fill_(c10::Scalar value);
  Tensor& normal_(double mean = 0, double std = 1);
  Tensor& uniform_(double from = 0, double to = 1);
  Tensor& resize_(c10::IntArrayRef size);
  Tensor& div_(c10::Scalar other);
  Tensor& sub_(const Tensor& other, c10::Scalar alpha = 1);
  Tensor& clamp_(c10::Scalar min, c10::Scalar max);
  Tensor index(stoker_shim::List<Tensor> indices) const;
  Tensor masked_fill(const Tensor& mask, c10::Scalar value) const;
  Tensor clamp(c10::Scalar min, c10::Scalar max) const;
  Tensor t() const;
  Tensor any() const;
  Tensor all() const;
  Tensor ne(const Tensor& other) const;
  Tensor gt(c10::Scalar other) const;
  Tensor lt(c10::Scalar other) const;
  Tensor nonzero() const;
  Tensor chunk(int64_t chunks, int64_t dim = 0) const;
  void backward() const;
  Tensor grad() const;
  int64_t size(int64_t dim) const;
  c10::IntArrayRef sizes() const;
  int64_t numel() const;
  int64_t dim() const;
  Tensor view(c10::IntArrayRef size) const;
  Tensor reshape(c10::IntArrayRef size) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor sum() const;
  Tensor sum(int64_t dim, bool keepdim = false) const;
  Tensor mean() const;
  Tensor argmax(int64_t dim, bool keepdim = false) const;
  Tensor max() const;
  Tensor eq(const Tensor& other) const;
  Tensor eq(c10::Scalar other) const;
  Tensor relu() const;
  Tensor sigmoid() const;
  Tensor squeeze() const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor& zero_();
  Tensor& add_(const Tensor& other, c10::Scalar alpha = 1);
  Tensor& mul_(c10::Scalar other);
  Tensor& copy_(const Tensor& src, bool non_blocking = false);
  Tensor operator[](int64_t index) const;
  Tensor operator-() const;
  Tensor& operator+=(const Tensor& other);
  Tensor& operator+=(c10::Scalar other);
  Tensor& operator-=(const Tensor& other);
  Tensor& operator*=(c10::Scalar other);
  Tensor& operator/=(c10::Scalar other);
  bool defined() const;
};
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, c10::Scalar b);
Tensor operator-(const Tensor& a, c10::Scalar b);
Tensor operator*(const Tensor& a, c10::Scalar b);
Tensor operator/(const Tensor& a, c10::Scalar b);
Tensor operator*(c10::Scalar a, const Tensor& b);
using TensorList = stoker_shim::List<Tensor>;
using IntArrayRef = c10::IntArrayRef;
using c10::Half;
using c10::BFloat16;
using c10::Layout;
using c10::MemoryFormat;
using c10::kStrided;
using c10::optional;
using c10::DeprecatedTypeProperties;
using c10::DefaultPtrTraits;
using c10::RestrictPtrTraits;
using c10::TensorAccessor;
using c10::GenericPackedTensorAccessor;
using c10::PackedTensorAccessor;
using c10::PackedTensorAccessor32;
using c10::PackedTensorAccessor64;
using c10::kCPU;
using c10::kCUDA;
using c10::kByte;
using c10::kUInt8;
using c10::kChar;
using c10::kInt8;
using c10::kShort;
using c10::kInt;
using c10::kInt32;
using c10::kLong;
using c10::kInt64;
using c10::kHalf;
using c10::kFloat16;
using c10::kFloat;
using c10::kFloat32;
using c10::kDouble;
using c10::kFloat64;
using c10::kBool;
using c10::kBFloat16;
// ATen/AccumulateType.h
template <typename T, bool is_cuda> struct AccumulateType { using type = T; };
template <bool is_cuda> struct AccumulateType<Half, is_cuda> { using type = float; };
template <bool is_cuda> struct AccumulateType<BFloat16, is_cuda> { using type = float; };
template <bool is_cuda> struct AccumulateType<float, is_cuda> { using type = float; };
template <bool is_cuda> struct AccumulateType<int, is_cuda> { using type = int64_t; };
template <typename T, bool is_cuda> using acc_type = typename AccumulateType<T, is_cuda>::type;
}  // namespace at

namespace torch {
using at::Tensor;
using at::TensorOptions;
using c10::Device;
using c10::DeviceType;
using c10::IntArrayRef;
using c10::Scalar;
using c10::ScalarType;
using c10::kCPU;
using c10::kCUDA;
using c10::kByte;
using c10::kUInt8;
using c10::kChar;
using c10::kInt8;
using c10::kShort;
using c10::kInt32;
using c10::kInt64;
using c10::kFloat16;
using c10::kFloat64;
using c10::optional;
using c10::kInt;
using c10::kLong;
using c10::kHalf;
using c10::kFloat;
using c10::kFloat32;
using c10::kDouble;
using c10::kBool;
using c10::kBFloat16;

Tensor zeros(IntArrayRef size, TensorOptions options = {});
Tensor ones(IntArrayRef size, TensorOptions options = {});
Tensor empty(IntArrayRef size, TensorOptions options = {});
Tensor randn(IntArrayRef size, TensorOptions options = {});
Tensor rand(IntArrayRef size, TensorOptions options = {});
Tensor randint(int64_t high, IntArrayRef size, TensorOptions options = {});
Tensor arange(Scalar end, TensorOptions options = {});
Tensor tensor(std::initializer_list<float> values, TensorOptions options = {});
Tensor from_blob(void* data, IntArrayRef sizes, TensorOptions options = {});
Tensor relu(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor log_softmax(const Tensor& x, int64_t dim);
Tensor softmax(const Tensor& x, int64_t dim);
Tensor dropout(const Tensor& x, double p, bool train);
namespace Reduction {
enum Reduction { None, Mean, Sum };
}  // namespace Reduction
template <size_t D, typename T = int64_t>
struct ExpandingArray {
  ExpandingArray(std::initializer_list<T> values);
  ExpandingArray(T single);
  operator c10::IntArrayRef() const;
};
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                int64_t reduction = Reduction::Mean, int64_t ignore_index = -100);
Tensor max_pool2d(const Tensor& x, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                  IntArrayRef dilation = 1, bool ceil_mode = false);
Tensor reshape(const Tensor& x, IntArrayRef shape);
Tensor flatten(const Tensor& x, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor mse_loss(const Tensor& input, const Tensor& target);
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target);
Tensor cross_entropy_loss(const Tensor& input, const Tensor& target);
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor cat(stoker_shim::List<Tensor> tensors, int64_t dim = 0);
Tensor stack(stoker_shim::List<Tensor> tensors, int64_t dim = 0);
Tensor isnan(const Tensor& x);
void manual_seed(uint64_t seed);
Tensor empty_like(const Tensor& x, TensorOptions options = {});
Tensor zeros_like(const Tensor& x, TensorOptions options = {});
Tensor ones_like(const Tensor& x, TensorOptions options = {});
Tensor full(IntArrayRef size, Scalar value, TensorOptions options = {});
Tensor empty_strided(IntArrayRef size, IntArrayRef stride, TensorOptions options = {});
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, TensorOptions options);
int64_t numel(const Tensor& x);
size_t elementSize(ScalarType t);
c10::optional<Device> device_of(const Tensor& t);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor mm(const Tensor& a, const Tensor& b);
Tensor addmm(const Tensor& self, const Tensor& a, const Tensor& b, Scalar beta = 1, Scalar alpha = 1);
Tensor sum(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);

struct NoGradGuard { NoGradGuard(); ~NoGradGuard(); };
struct InferenceMode { InferenceMode(bool enabled = true); };

namespace cuda {
bool is_available();
int64_t device_count();
bool cudnn_is_available();
void synchronize(int64_t device_index = -1);
void manual_seed(uint64_t seed);
void manual_seed_all(uint64_t seed);
}  // namespace cuda

namespace nn {
class Module {
 public:
  virtual ~Module();
  stoker_shim::List<Tensor> parameters(bool recurse = true) const;
  void to(c10::Device device, bool non_blocking = false);
  void to(c10::ScalarType dtype, bool non_blocking = false);
  virtual void train(bool on = true);
  void eval();
  bool is_training() const;
  void zero_grad(bool set_to_none = true);
  // Returns what it is given: a module holder, or the user's std::shared_ptr.
  template <typename ModuleType> ModuleType register_module(stoker_shim::String name, ModuleType module);
  Tensor& register_parameter(stoker_shim::String name, Tensor tensor, bool requires_grad = true);
};
template <typename Contained>
class ModuleHolder {
 public:
  ModuleHolder(decltype(nullptr));
  template <typename... Args> explicit ModuleHolder(Args&&... args);
  Contained* operator->() const;
  Contained& operator*() const;
  stoker_shim::Ptr<Contained> ptr() const;
  template <typename P, typename = decltype(static_cast<const P*>(nullptr)->get())> operator P() const;
  template <typename... Args> Tensor operator()(Args&&... args) const;
};
class LinearImpl : public Module {
 public:
  LinearImpl(int64_t in_features, int64_t out_features);
  Tensor forward(const Tensor& input);
  Tensor weight, bias;
};
struct Conv2dOptions {
  Conv2dOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<2> kernel_size);
  Conv2dOptions& stride(ExpandingArray<2> s);
  Conv2dOptions& padding(ExpandingArray<2> p);
  Conv2dOptions& dilation(ExpandingArray<2> d);
  Conv2dOptions& groups(int64_t g);
  Conv2dOptions& bias(bool b);
};
class Conv2dImpl : public Module {
 public:
  Conv2dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<2> kernel_size);
  explicit Conv2dImpl(Conv2dOptions options);
  Tensor forward(const Tensor& input);
};
class Dropout2dImpl : public Module {
 public:
  explicit Dropout2dImpl(double p = 0.5);
  Tensor forward(Tensor input);
};
class FunctionalImpl : public Module {
 public:
  template <typename Function, typename... Args> explicit FunctionalImpl(Function function, Args&&... args);
  Tensor forward(Tensor input);
};
class DropoutImpl : public Module {
 public:
  explicit DropoutImpl(double p = 0.5);
  Tensor forward(Tensor input);
};
class ReLUImpl : public Module {
 public:
  ReLUImpl();
  Tensor forward(Tensor input);
};
class SequentialImpl : public Module {
 public:
  template <typename... Modules> explicit SequentialImpl(Modules&&... modules);
  template <typename ModuleType> void push_back(ModuleType module);
  template <typename ModuleType> void push_back(stoker_shim::String name, ModuleType module);
  size_t size() const;
  Tensor forward(Tensor input);
};
class Linear : public ModuleHolder<LinearImpl> { public: using ModuleHolder<LinearImpl>::ModuleHolder; };
class Conv2d : public ModuleHolder<Conv2dImpl> { public: using ModuleHolder<Conv2dImpl>::ModuleHolder; };
class Dropout : public ModuleHolder<DropoutImpl> { public: using ModuleHolder<DropoutImpl>::ModuleHolder; };
class Dropout2d : public ModuleHolder<Dropout2dImpl> { public: using ModuleHolder<Dropout2dImpl>::ModuleHolder; };
class Functional : public ModuleHolder<FunctionalImpl> { public: using ModuleHolder<FunctionalImpl>::ModuleHolder; };
class ReLU : public ModuleHolder<ReLUImpl> { public: using ModuleHolder<ReLUImpl>::ModuleHolder; };
class Sequential : public ModuleHolder<SequentialImpl> { public: using ModuleHolder<SequentialImpl>::ModuleHolder; };
namespace functional {
Tensor relu(const Tensor& x);
Tensor dropout(const Tensor& x);
Tensor cross_entropy(const Tensor& input, const Tensor& target);
Tensor mse_loss(const Tensor& input, const Tensor& target);
Tensor nll_loss(const Tensor& input, const Tensor& target);
Tensor max_pool2d(const Tensor& x, ExpandingArray<2> kernel_size);
}  // namespace functional
}  // namespace nn
#define TORCH_MODULE(Name)                                       \
  class Name : public torch::nn::ModuleHolder<Name##Impl> {      \
   public:                                                       \
    using torch::nn::ModuleHolder<Name##Impl>::ModuleHolder;     \
  }

namespace optim {
struct SGDOptions {
  SGDOptions(double lr);
  SGDOptions& momentum(double m);
  SGDOptions& weight_decay(double w);
};
struct AdamOptions {
  AdamOptions(double lr = 1e-3);
  AdamOptions& weight_decay(double w);
};
class Optimizer {
 public:
  virtual ~Optimizer();
  virtual Tensor step();
  void zero_grad(bool set_to_none = true);
};
class SGD : public Optimizer {
 public:
  SGD(stoker_shim::List<Tensor> params, SGDOptions options);
};
class Adam : public Optimizer {
 public:
  Adam(stoker_shim::List<Tensor> params, AdamOptions options = {});
};
}  // namespace optim

namespace data {
template <typename Data = Tensor, typename Target = Tensor>
struct Example {
  Example();
  Example(Data data, Target target);
  Data data;
  Target target;
};
template <typename Batch>
class Iterator {
 public:
  Batch& operator*();
  Batch* operator->();
  Iterator& operator++();
  bool operator==(const Iterator& other) const;
  bool operator!=(const Iterator& other) const;
};
namespace datasets {
template <typename Self, typename Batch = Example<>>
class Dataset {
 public:
  using BatchType = Batch;
  virtual ~Dataset();
  template <typename Transform> Self map(Transform transform) const;
};
template <typename Self, typename SingleExample = Example<>>
class BatchDataset : public Dataset<Self, Example<>> {};
class MNIST : public Dataset<MNIST> {
 public:
  enum class Mode { kTrain, kTest };
  explicit MNIST(stoker_shim::String root, Mode mode = Mode::kTrain);
  Example<> get(size_t index);
  size_t size() const;
};
}  // namespace datasets
namespace transforms {
template <typename Target = Tensor>
struct Normalize {
  Normalize(double mean, double stddev);
};
template <typename T = Example<>>
struct Stack {};
}  // namespace transforms
namespace samplers {
struct RandomSampler { explicit RandomSampler(int64_t size); };
struct SequentialSampler { explicit SequentialSampler(size_t size); };
struct DistributedRandomSampler { DistributedRandomSampler(size_t size, size_t num_replicas = 1, size_t rank = 0); };
}  // namespace samplers
struct DataLoaderOptions {
  DataLoaderOptions();
  DataLoaderOptions(size_t batch_size);  // implicit, as in LibTorch; the default batch size is 1
  DataLoaderOptions& batch_size(size_t n);  // default 1
  DataLoaderOptions& workers(size_t n);     // default 0: batches load on the main thread
  DataLoaderOptions& max_jobs(size_t n);
  DataLoaderOptions& drop_last(bool d);
  DataLoaderOptions& enforce_ordering(bool e);
};
template <typename Dataset, typename Sampler>
class StatelessDataLoader {
 public:
  using BatchType = typename Dataset::BatchType;
  Iterator<BatchType> begin();
  Iterator<BatchType> end();
};
template <typename Sampler = samplers::RandomSampler, typename Dataset>
stoker_shim::Ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset,
                                                                       DataLoaderOptions options = DataLoaderOptions());
template <typename Dataset, typename Sampler,
          typename = typename stoker_shim::enable_if<!stoker_shim::is_arithmetic<Sampler>::value>::type>
stoker_shim::Ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset, Sampler sampler,
                                                                       DataLoaderOptions options = DataLoaderOptions());
}  // namespace data

// c10/util/Exception.h: the condition is always evaluated (also with NDEBUG); the message
// parts only when it fails, so the shim drops them.
#ifndef TORCH_CHECK
#define TORCH_CHECK(cond, ...) ((void)(cond))
#define TORCH_INTERNAL_ASSERT(cond, ...) ((void)(cond))
#define TORCH_CHECK_VALUE(cond, ...) ((void)(cond))
#define AT_ASSERT(...) ((void)(__VA_ARGS__))
#define AT_ASSERTM(cond, ...) ((void)(cond))
#define AT_ERROR(...) ((void)0)
#define TORCH_WARN(...) ((void)0)
#endif

template <typename Value> void save(const Value& value, stoker_shim::String path);
}  // namespace torch

// ATen's free functions are torch's (torch:: re-exports at::).
namespace at {
using torch::zeros;
using torch::ones;
using torch::empty;
using torch::randn;
using torch::rand;
using torch::arange;
using torch::from_blob;
using torch::empty_like;
using torch::zeros_like;
using torch::ones_like;
using torch::full;
using torch::empty_strided;
using torch::numel;
using torch::elementSize;
using torch::device_of;
using torch::cat;
using torch::stack;
using torch::matmul;
using torch::bmm;
using torch::mm;
using torch::addmm;
using torch::sum;
using torch::exp;
using torch::sqrt;
using torch::where;
using torch::relu;
using torch::softmax;
using torch::log_softmax;
using torch::NoGradGuard;
using torch::InferenceMode;
}  // namespace at

namespace torch {
template <typename Value> void load(Value& value, stoker_shim::String path);
}  // namespace torch

#endif
