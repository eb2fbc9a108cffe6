// stoker shim: the cooperative groups surface kernels use (declarations only; device code is
// parsed but never analyzed by stoker's rules).
#pragma once
#ifndef STOKER_COOPERATIVE_GROUPS_SHIM_H
#define STOKER_COOPERATIVE_GROUPS_SHIM_H
#include "stoker_cuda.h"
namespace cooperative_groups {
struct thread_group {
  __device__ void sync() const;
  __device__ unsigned int thread_rank() const;
  __device__ unsigned int size() const;
  __device__ unsigned int num_threads() const;
};
struct thread_block : thread_group {
  __device__ dim3 group_index() const;
  __device__ dim3 thread_index() const;
  __device__ dim3 group_dim() const;
};
struct grid_group : thread_group {};
template <unsigned int Size, typename Parent = void>
struct thread_block_tile : thread_group {
  __device__ unsigned int meta_group_rank() const;
  __device__ unsigned int meta_group_size() const;
  template <typename T> __device__ T shfl(T var, int src) const;
  template <typename T> __device__ T shfl_down(T var, unsigned int delta) const;
  template <typename T> __device__ T shfl_up(T var, unsigned int delta) const;
  template <typename T> __device__ T shfl_xor(T var, unsigned int mask) const;
  __device__ int any(int pred) const;
  __device__ int all(int pred) const;
  __device__ unsigned int ballot(int pred) const;
};
__device__ thread_block this_thread_block();
__device__ grid_group this_grid();
template <unsigned int Size, typename Parent> __device__ thread_block_tile<Size> tiled_partition(const Parent& parent);
template <typename T> struct plus { __device__ T operator()(T a, T b) const; };
template <typename T> struct less { __device__ T operator()(T a, T b) const; };
template <typename T> struct greater { __device__ T operator()(T a, T b) const; };
template <typename Group> __device__ void sync(const Group& group);
template <typename Group, typename T, typename Op> __device__ T reduce(const Group& group, T value, Op op);
}  // namespace cooperative_groups
#endif
