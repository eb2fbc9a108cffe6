// stoker shim: the CUDA part of ATen/c10 that extensions use (the current stream, device guards,
// device properties, the cuBLAS handle). See stoker_aten.h.
#pragma once
#ifndef STOKER_ATEN_CUDA_SHIM_H
#define STOKER_ATEN_CUDA_SHIM_H

#include <cuda_runtime_api.h>
#include <cublas_v2.h>

#include "stoker_aten.h"

namespace c10 {
namespace cuda {
class CUDAStream {
 public:
  cudaStream_t stream() const;
  operator cudaStream_t() const;
  int device_index() const;
  c10::Device device() const;
  void synchronize() const;
  bool query() const;
};
CUDAStream getCurrentCUDAStream(int device_index = -1);
CUDAStream getDefaultCUDAStream(int device_index = -1);
CUDAStream getStreamFromPool(bool high_priority = false, int device_index = -1);
CUDAStream getStreamFromExternal(cudaStream_t stream, int device_index);
void setCurrentCUDAStream(CUDAStream stream);
int current_device();
void device_synchronize();
struct CUDAGuard {
  explicit CUDAGuard(c10::Device device);
  explicit CUDAGuard(int device_index);
};
struct OptionalCUDAGuard {
  OptionalCUDAGuard();
  explicit OptionalCUDAGuard(c10::Device device);
  explicit OptionalCUDAGuard(c10::optional<c10::Device> device);
  explicit OptionalCUDAGuard(int device_index);
};
struct CUDAStreamGuard { explicit CUDAStreamGuard(CUDAStream stream); };
struct OptionalCUDAStreamGuard { explicit OptionalCUDAStreamGuard(CUDAStream stream); };
}  // namespace cuda
}  // namespace c10

namespace at {
namespace cuda {
using c10::cuda::CUDAStream;
using c10::cuda::getCurrentCUDAStream;
using c10::cuda::getDefaultCUDAStream;
using c10::cuda::getStreamFromPool;
using c10::cuda::getStreamFromExternal;
using c10::cuda::setCurrentCUDAStream;
using c10::cuda::CUDAGuard;
using c10::cuda::OptionalCUDAGuard;
using c10::cuda::CUDAStreamGuard;
using c10::cuda::OptionalCUDAStreamGuard;
cudaDeviceProp* getCurrentDeviceProperties();
cudaDeviceProp* getDeviceProperties(int device);
int warp_size();
cublasHandle_t getCurrentCUDABlasHandle();
bool is_available();
class CUDAEvent {
 public:
  CUDAEvent();
  explicit CUDAEvent(unsigned int flags);
  void record();
  void record(const CUDAStream& stream);
  void block(const CUDAStream& stream);
  bool query() const;
  void synchronize() const;
  float elapsed_time(const CUDAEvent& other) const;
  operator cudaEvent_t() const;
  cudaEvent_t event() const;
};
}  // namespace cuda
}  // namespace at

#endif
