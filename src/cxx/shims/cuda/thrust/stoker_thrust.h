// stoker shim: the Thrust surface stoker's CU007 reads (containers, device pointers, execution
// policies and the algorithms), declared so that code using Thrust parses in header-free mode.
// Written for stoker from the Thrust API documentation; declarations only. The type names
// follow the real headers' (thrust::detail::execution_policy_base, thrust::cuda_cub::par_t,
// thrust::detail::normal_iterator<thrust::device_ptr<T>>), which is what the check inspects.
#pragma once
#ifndef STOKER_THRUST_SHIM_H
#define STOKER_THRUST_SHIM_H
#include <cuda_runtime.h>

namespace thrust {
namespace detail {
template <typename Derived>
struct execution_policy_base {};
template <typename It>
struct iterator_value {
  typedef typename It::value_type type;
};
template <typename T>
struct iterator_value<T*> {
  typedef T type;
};
template <typename T>
struct iterator_value<const T*> {
  typedef T type;
};
}  // namespace detail

namespace cuda_cub {
struct execute_on_stream : thrust::detail::execution_policy_base<execute_on_stream> {};
struct execute_on_stream_nosync : thrust::detail::execution_policy_base<execute_on_stream_nosync> {};
struct par_t : thrust::detail::execution_policy_base<par_t> {
  execute_on_stream on(cudaStream_t stream) const;
};
struct par_nosync_t : thrust::detail::execution_policy_base<par_nosync_t> {
  execute_on_stream_nosync on(cudaStream_t stream) const;
};
static const par_t par;
static const par_nosync_t par_nosync;
}  // namespace cuda_cub
namespace cuda {
using thrust::cuda_cub::par;
using thrust::cuda_cub::par_nosync;
}  // namespace cuda
namespace system {
namespace cuda {
using thrust::cuda_cub::par;
using thrust::cuda_cub::par_nosync;
}  // namespace cuda
namespace cpp {
namespace detail {
struct par_t : thrust::detail::execution_policy_base<par_t> {};
}  // namespace detail
static const detail::par_t par;
}  // namespace cpp
}  // namespace system
namespace detail {
typedef thrust::cuda_cub::par_t device_t;
typedef thrust::system::cpp::detail::par_t host_t;
struct seq_t : execution_policy_base<seq_t> {};
}  // namespace detail
static const detail::device_t device;
static const detail::host_t host;
static const detail::seq_t seq;

template <typename T>
class device_reference {
 public:
  operator T() const;
  device_reference& operator=(const T& v);
};

template <typename T>
class device_ptr {
 public:
  typedef T value_type;
  device_ptr();
  explicit device_ptr(T* p);
  T* get() const;
  device_reference<T> operator*() const;
  device_reference<T> operator[](long i) const;
  device_ptr operator+(long n) const;
  device_ptr operator-(long n) const;
  long operator-(const device_ptr& other) const;
  device_ptr& operator++();
  device_ptr operator++(int);
  bool operator==(const device_ptr& other) const;
  bool operator!=(const device_ptr& other) const;
};
template <typename T>
device_ptr<T> device_pointer_cast(T* p);
template <typename T>
T* raw_pointer_cast(device_ptr<T> p);
template <typename T>
T* raw_pointer_cast(T* p);

namespace detail {
template <typename Pointer>
class normal_iterator {
 public:
  typedef typename iterator_value<Pointer>::type value_type;
  normal_iterator();
  value_type& operator*() const;
  normal_iterator operator+(long n) const;
  normal_iterator operator-(long n) const;
  long operator-(const normal_iterator& other) const;
  normal_iterator& operator++();
  normal_iterator operator++(int);
  normal_iterator& operator+=(long n);
  bool operator==(const normal_iterator& other) const;
  bool operator!=(const normal_iterator& other) const;
  Pointer base() const;
};
}  // namespace detail

template <typename T>
class device_vector {
 public:
  typedef T value_type;
  typedef device_ptr<T> pointer;
  typedef detail::normal_iterator<device_ptr<T>> iterator;
  typedef detail::normal_iterator<device_ptr<const T>> const_iterator;
  device_vector();
  explicit device_vector(size_t n);
  device_vector(size_t n, const T& value);
  template <typename Other>
  device_vector(const Other& other);
  template <typename It>
  device_vector(It first, It last);
  template <typename Other>
  device_vector& operator=(const Other& other);
  iterator begin();
  iterator end();
  const_iterator begin() const;
  const_iterator end() const;
  pointer data();
  size_t size() const;
  bool empty() const;
  void resize(size_t n);
  void resize(size_t n, const T& value);
  void clear();
  iterator erase(iterator first, iterator last);
  device_reference<T> operator[](size_t i);
};

template <typename T>
class host_vector {
 public:
  typedef T value_type;
  typedef T* pointer;
  typedef detail::normal_iterator<T*> iterator;
  typedef detail::normal_iterator<const T*> const_iterator;
  host_vector();
  explicit host_vector(size_t n);
  host_vector(size_t n, const T& value);
  template <typename Other>
  host_vector(const Other& other);
  template <typename Other>
  host_vector& operator=(const Other& other);
  iterator begin();
  iterator end();
  const_iterator begin() const;
  const_iterator end() const;
  T* data();
  size_t size() const;
  void resize(size_t n);
  iterator erase(iterator first, iterator last);
  T& operator[](size_t i);
};

template <typename T1, typename T2>
struct pair {
  T1 first;
  T2 second;
};

template <typename T = void>
struct plus {
  __host__ __device__ T operator()(const T& a, const T& b) const;
};
template <typename T = void>
struct multiplies {
  __host__ __device__ T operator()(const T& a, const T& b) const;
};
template <typename T = void>
struct maximum {
  __host__ __device__ T operator()(const T& a, const T& b) const;
};
template <typename T = void>
struct minimum {
  __host__ __device__ T operator()(const T& a, const T& b) const;
};
template <typename T = void>
struct negate {
  __host__ __device__ T operator()(const T& a) const;
};
template <typename T = void>
struct identity {
  __host__ __device__ T operator()(const T& a) const;
};
template <typename T = void>
struct less {
  __host__ __device__ bool operator()(const T& a, const T& b) const;
};
template <typename T = void>
struct greater {
  __host__ __device__ bool operator()(const T& a, const T& b) const;
};
template <typename T = void>
struct equal_to {
  __host__ __device__ bool operator()(const T& a, const T& b) const;
};

template <typename T = void>
struct not_equal_to {
  __host__ __device__ bool operator()(const T& a, const T& b) const;
};
template <typename T = void>
struct greater_equal {
  __host__ __device__ bool operator()(const T& a, const T& b) const;
};
template <typename T = void>
struct less_equal {
  __host__ __device__ bool operator()(const T& a, const T& b) const;
};

class system_error {
 public:
  const char* what() const;
};

template <typename... Ts>
class tuple {
 public:
  tuple();
  tuple(const Ts&... values);
};
template <typename... Ts>
tuple<Ts...> make_tuple(const Ts&... values);

// Fancy iterators: value types are approximate (declarations only).
template <typename T>
class counting_iterator {
 public:
  typedef T value_type;
  counting_iterator();
  counting_iterator(T start);
  T operator*() const;
  counting_iterator operator+(long n) const;
  long operator-(const counting_iterator& other) const;
  counting_iterator& operator++();
  bool operator==(const counting_iterator& other) const;
  bool operator!=(const counting_iterator& other) const;
};
template <typename T>
counting_iterator<T> make_counting_iterator(T start);

template <typename IteratorTuple>
class zip_iterator {
 public:
  typedef IteratorTuple value_type;
  zip_iterator();
  zip_iterator(IteratorTuple its);
  zip_iterator operator+(long n) const;
  long operator-(const zip_iterator& other) const;
  zip_iterator& operator++();
  bool operator==(const zip_iterator& other) const;
  bool operator!=(const zip_iterator& other) const;
};
template <typename IteratorTuple>
zip_iterator<IteratorTuple> make_zip_iterator(IteratorTuple its);

template <typename F, typename It>
class transform_iterator {
 public:
  typedef typename detail::iterator_value<It>::type value_type;
  transform_iterator();
  transform_iterator(It it, F f);
  transform_iterator operator+(long n) const;
  long operator-(const transform_iterator& other) const;
  transform_iterator& operator++();
  bool operator==(const transform_iterator& other) const;
  bool operator!=(const transform_iterator& other) const;
};
template <typename F, typename It>
transform_iterator<F, It> make_transform_iterator(It it, F f);

template <typename T = long>
class discard_iterator {
 public:
  typedef T value_type;
  discard_iterator operator+(long n) const;
  long operator-(const discard_iterator& other) const;
};
discard_iterator<> make_discard_iterator(long i = 0);

template <typename T>
device_ptr<T> device_malloc(size_t n);
template <typename T>
void device_free(device_ptr<T> p);

#define STOKER_THRUST_POLICY(P) const thrust::detail::execution_policy_base<P>&
#define STOKER_THRUST_VALUE(It) typename thrust::detail::iterator_value<It>::type

// Algorithms that return a value (or an iterator computed on the device) to the host.
template <typename P, typename It>
STOKER_THRUST_VALUE(It) reduce(STOKER_THRUST_POLICY(P) exec, It first, It last);
template <typename P, typename It, typename T>
T reduce(STOKER_THRUST_POLICY(P) exec, It first, It last, T init);
template <typename P, typename It, typename T, typename Op>
T reduce(STOKER_THRUST_POLICY(P) exec, It first, It last, T init, Op op);
template <typename It>
STOKER_THRUST_VALUE(It) reduce(It first, It last);
template <typename It, typename T>
T reduce(It first, It last, T init);
template <typename It, typename T, typename Op>
T reduce(It first, It last, T init, Op op);

template <typename P, typename It, typename T>
long count(STOKER_THRUST_POLICY(P) exec, It first, It last, const T& value);
template <typename It, typename T>
long count(It first, It last, const T& value);
template <typename P, typename It, typename Pred>
long count_if(STOKER_THRUST_POLICY(P) exec, It first, It last, Pred pred);
template <typename It, typename Pred>
long count_if(It first, It last, Pred pred);

template <typename P, typename It, typename F, typename T, typename Op>
T transform_reduce(STOKER_THRUST_POLICY(P) exec, It first, It last, F unary, T init, Op binary);
template <typename It, typename F, typename T, typename Op>
T transform_reduce(It first, It last, F unary, T init, Op binary);

template <typename P, typename It1, typename It2, typename T>
T inner_product(STOKER_THRUST_POLICY(P) exec, It1 first1, It1 last1, It2 first2, T init);
template <typename P, typename It1, typename It2, typename T, typename Op1, typename Op2>
T inner_product(STOKER_THRUST_POLICY(P) exec, It1 first1, It1 last1, It2 first2, T init, Op1 op1, Op2 op2);
template <typename It1, typename It2, typename T>
T inner_product(It1 first1, It1 last1, It2 first2, T init);
template <typename It1, typename It2, typename T, typename Op1, typename Op2>
T inner_product(It1 first1, It1 last1, It2 first2, T init, Op1 op1, Op2 op2);

template <typename P, typename It>
It min_element(STOKER_THRUST_POLICY(P) exec, It first, It last);
template <typename P, typename It, typename Cmp>
It min_element(STOKER_THRUST_POLICY(P) exec, It first, It last, Cmp comp);
template <typename It>
It min_element(It first, It last);
template <typename It, typename Cmp>
It min_element(It first, It last, Cmp comp);
template <typename P, typename It>
It max_element(STOKER_THRUST_POLICY(P) exec, It first, It last);
template <typename P, typename It, typename Cmp>
It max_element(STOKER_THRUST_POLICY(P) exec, It first, It last, Cmp comp);
template <typename It>
It max_element(It first, It last);
template <typename It, typename Cmp>
It max_element(It first, It last, Cmp comp);
template <typename P, typename It>
pair<It, It> minmax_element(STOKER_THRUST_POLICY(P) exec, It first, It last);
template <typename It>
pair<It, It> minmax_element(It first, It last);

template <typename P, typename It, typename T>
It find(STOKER_THRUST_POLICY(P) exec, It first, It last, const T& value);
template <typename It, typename T>
It find(It first, It last, const T& value);
template <typename P, typename It, typename Pred>
It find_if(STOKER_THRUST_POLICY(P) exec, It first, It last, Pred pred);
template <typename It, typename Pred>
It find_if(It first, It last, Pred pred);
template <typename P, typename It, typename Pred>
It find_if_not(STOKER_THRUST_POLICY(P) exec, It first, It last, Pred pred);
template <typename It, typename Pred>
It find_if_not(It first, It last, Pred pred);

template <typename P, typename It, typename Pred>
bool all_of(STOKER_THRUST_POLICY(P) exec, It first, It last, Pred pred);
template <typename It, typename Pred>
bool all_of(It first, It last, Pred pred);
template <typename P, typename It, typename Pred>
bool any_of(STOKER_THRUST_POLICY(P) exec, It first, It last, Pred pred);
template <typename It, typename Pred>
bool any_of(It first, It last, Pred pred);
template <typename P, typename It, typename Pred>
bool none_of(STOKER_THRUST_POLICY(P) exec, It first, It last, Pred pred);
template <typename It, typename Pred>
bool none_of(It first, It last, Pred pred);
template <typename P, typename It1, typename It2>
bool equal(STOKER_THRUST_POLICY(P) exec, It1 first1, It1 last1, It2 first2);
template <typename It1, typename It2>
bool equal(It1 first1, It1 last1, It2 first2);

template <typename P, typename It, typename T>
It remove(STOKER_THRUST_POLICY(P) exec, It first, It last, const T& value);
template <typename It, typename T>
It remove(It first, It last, const T& value);
template <typename P, typename It, typename Pred>
It remove_if(STOKER_THRUST_POLICY(P) exec, It first, It last, Pred pred);
template <typename It, typename Pred>
It remove_if(It first, It last, Pred pred);
template <typename P, typename It, typename S, typename Pred>
It remove_if(STOKER_THRUST_POLICY(P) exec, It first, It last, S stencil, Pred pred);
template <typename It, typename S, typename Pred>
It remove_if(It first, It last, S stencil, Pred pred);
template <typename P, typename It, typename Out, typename Pred>
Out remove_copy_if(STOKER_THRUST_POLICY(P) exec, It first, It last, Out result, Pred pred);
template <typename It, typename Out, typename Pred>
Out remove_copy_if(It first, It last, Out result, Pred pred);
template <typename P, typename It, typename Out, typename Pred>
Out copy_if(STOKER_THRUST_POLICY(P) exec, It first, It last, Out result, Pred pred);
template <typename It, typename Out, typename Pred>
Out copy_if(It first, It last, Out result, Pred pred);
template <typename P, typename It, typename S, typename Out, typename Pred>
Out copy_if(STOKER_THRUST_POLICY(P) exec, It first, It last, S stencil, Out result, Pred pred);
template <typename It, typename S, typename Out, typename Pred>
Out copy_if(It first, It last, S stencil, Out result, Pred pred);
template <typename P, typename It>
It unique(STOKER_THRUST_POLICY(P) exec, It first, It last);
template <typename It>
It unique(It first, It last);
template <typename P, typename It, typename Out>
Out unique_copy(STOKER_THRUST_POLICY(P) exec, It first, It last, Out result);
template <typename It, typename Out>
Out unique_copy(It first, It last, Out result);
template <typename P, typename It, typename Pred>
It partition(STOKER_THRUST_POLICY(P) exec, It first, It last, Pred pred);
template <typename It, typename Pred>
It partition(It first, It last, Pred pred);

// Algorithms whose result stays on the device (or whose returned iterator the host computes).
template <typename P, typename It, typename Out, typename F>
Out transform(STOKER_THRUST_POLICY(P) exec, It first, It last, Out result, F op);
template <typename It, typename Out, typename F>
Out transform(It first, It last, Out result, F op);
template <typename P, typename It1, typename It2, typename Out, typename F>
Out transform(STOKER_THRUST_POLICY(P) exec, It1 first1, It1 last1, It2 first2, Out result, F op);
template <typename It1, typename It2, typename Out, typename F>
Out transform(It1 first1, It1 last1, It2 first2, Out result, F op);
template <typename P, typename It, typename Out>
Out copy(STOKER_THRUST_POLICY(P) exec, It first, It last, Out result);
template <typename It, typename Out>
Out copy(It first, It last, Out result);
template <typename P, typename It, typename T>
void fill(STOKER_THRUST_POLICY(P) exec, It first, It last, const T& value);
template <typename It, typename T>
void fill(It first, It last, const T& value);
template <typename P, typename It>
void sequence(STOKER_THRUST_POLICY(P) exec, It first, It last);
template <typename It>
void sequence(It first, It last);
template <typename P, typename It>
void sort(STOKER_THRUST_POLICY(P) exec, It first, It last);
template <typename P, typename It, typename Cmp>
void sort(STOKER_THRUST_POLICY(P) exec, It first, It last, Cmp comp);
template <typename It>
void sort(It first, It last);
template <typename It, typename Cmp>
void sort(It first, It last, Cmp comp);
template <typename P, typename K, typename V>
void sort_by_key(STOKER_THRUST_POLICY(P) exec, K first, K last, V values);
template <typename K, typename V>
void sort_by_key(K first, K last, V values);
template <typename P, typename It, typename F>
It for_each(STOKER_THRUST_POLICY(P) exec, It first, It last, F f);
template <typename It, typename F>
It for_each(It first, It last, F f);
template <typename P, typename It, typename Out>
Out inclusive_scan(STOKER_THRUST_POLICY(P) exec, It first, It last, Out result);
template <typename It, typename Out>
Out inclusive_scan(It first, It last, Out result);
template <typename P, typename It, typename Out>
Out exclusive_scan(STOKER_THRUST_POLICY(P) exec, It first, It last, Out result);
template <typename It, typename Out>
Out exclusive_scan(It first, It last, Out result);
template <typename P, typename K, typename V, typename KO, typename VO>
pair<KO, VO> reduce_by_key(STOKER_THRUST_POLICY(P) exec, K keys_first, K keys_last, V values_first, KO keys_output,
                           VO values_output);
template <typename K, typename V, typename KO, typename VO>
pair<KO, VO> reduce_by_key(K keys_first, K keys_last, V values_first, KO keys_output, VO values_output);

template <typename P, typename It, typename Out>
Out adjacent_difference(STOKER_THRUST_POLICY(P) exec, It first, It last, Out result);
template <typename P, typename It, typename Out, typename Op>
Out adjacent_difference(STOKER_THRUST_POLICY(P) exec, It first, It last, Out result, Op op);
template <typename It, typename Out>
Out adjacent_difference(It first, It last, Out result);
template <typename It, typename Out, typename Op>
Out adjacent_difference(It first, It last, Out result, Op op);
template <typename P, typename K, typename V, typename Out>
Out inclusive_scan_by_key(STOKER_THRUST_POLICY(P) exec, K keys_first, K keys_last, V values_first, Out result);
template <typename K, typename V, typename Out>
Out inclusive_scan_by_key(K keys_first, K keys_last, V values_first, Out result);
template <typename P, typename K, typename V, typename Out>
Out exclusive_scan_by_key(STOKER_THRUST_POLICY(P) exec, K keys_first, K keys_last, V values_first, Out result);
template <typename K, typename V, typename Out>
Out exclusive_scan_by_key(K keys_first, K keys_last, V values_first, Out result);
template <typename P, typename K, typename V, typename KO, typename VO>
pair<KO, VO> unique_by_key_copy(STOKER_THRUST_POLICY(P) exec, K keys_first, K keys_last, V values_first,
                                KO keys_output, VO values_output);
template <typename K, typename V, typename KO, typename VO>
pair<KO, VO> unique_by_key_copy(K keys_first, K keys_last, V values_first, KO keys_output, VO values_output);
template <typename P, typename K, typename V>
pair<K, V> unique_by_key(STOKER_THRUST_POLICY(P) exec, K keys_first, K keys_last, V values_first);
template <typename K, typename V>
pair<K, V> unique_by_key(K keys_first, K keys_last, V values_first);

#undef STOKER_THRUST_POLICY
#undef STOKER_THRUST_VALUE
}  // namespace thrust
#endif
