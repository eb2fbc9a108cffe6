// stoker's CUDA shim: the CUDA runtime API surface, kernel qualifiers and launch support that
// stoker's rules need, declared so that CUDA host code parses without a CUDA toolkit
// (header-free mode). Written for stoker from the CUDA Runtime API reference; declarations
// only, nothing here is ever compiled into a program.
#pragma once
#ifndef STOKER_CUDA_SHIM_H
#define STOKER_CUDA_SHIM_H

#include <stddef.h>

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define CUDART_VERSION 12000
#define __CUDACC_VER_MAJOR__ 12

struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
};
struct uint3 { unsigned int x, y, z; };
struct int2 { int x, y; };
struct int4 { int x, y, z, w; };
struct float2 { float x, y; };
struct float4 { float x, y, z, w; };
extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;

enum cudaError { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,
                 cudaErrorNotReady = 600 };
typedef enum cudaError cudaError_t;
enum cudaMemcpyKind { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
                      cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4 };
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
typedef struct CUgraphExec_st* cudaGraphExec_t;
typedef struct CUgraph_st* cudaGraph_t;
typedef struct cudaMemPool_st* cudaMemPool_t;
struct cudaDeviceProp { char name[256]; size_t totalGlobalMem; int multiProcessorCount; int major; int minor;
                        size_t sharedMemPerBlock; int maxThreadsPerBlock; };
struct cudaPitchedPtr { void* ptr; size_t pitch; size_t xsize; size_t ysize; };
struct cudaExtent { size_t width; size_t height; size_t depth; };
struct cudaPos { size_t x; size_t y; size_t z; };
struct cudaArray;
typedef struct cudaArray* cudaArray_t;
struct cudaMemcpy3DParms { cudaArray_t srcArray; cudaPos srcPos; cudaPitchedPtr srcPtr; cudaArray_t dstArray;
                           cudaPos dstPos; cudaPitchedPtr dstPtr; cudaExtent extent; cudaMemcpyKind kind; };
#define cudaStreamNonBlocking 0x01
#define cudaStreamDefault 0x00
#define cudaEventDefault 0x00
#define cudaEventDisableTiming 0x02
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaHostRegisterDefault 0x00
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
#define cudaMemAttachGlobal 0x01
#define cudaStreamPerThread ((cudaStream_t)0x2)
#define cudaStreamLegacy ((cudaStream_t)0x1)

extern "C" {
// Errors and devices.
extern __host__ __device__ cudaError_t cudaGetLastError(void);
extern __host__ __device__ cudaError_t cudaPeekAtLastError(void);
extern __host__ __device__ const char* cudaGetErrorString(cudaError_t error);
extern __host__ __device__ const char* cudaGetErrorName(cudaError_t error);
extern __host__ cudaError_t cudaSetDevice(int device);
extern __host__ __device__ cudaError_t cudaGetDevice(int* device);
extern __host__ __device__ cudaError_t cudaGetDeviceCount(int* count);
extern __host__ cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
extern __host__ cudaError_t cudaDeviceReset(void);
extern __host__ __device__ cudaError_t cudaDeviceSynchronize(void);
extern __host__ cudaError_t cudaMemGetInfo(size_t* free, size_t* total);

// Memory.
extern __host__ __device__ cudaError_t cudaMalloc(void** devPtr, size_t size);
extern __host__ cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int flags = cudaMemAttachGlobal);
extern __host__ cudaError_t cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height);
extern __host__ cudaError_t cudaMallocHost(void** ptr, size_t size);
extern __host__ cudaError_t cudaHostAlloc(void** pHost, size_t size, unsigned int flags);
extern __host__ cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags);
extern __host__ cudaError_t cudaHostUnregister(void* ptr);
extern __host__ cudaError_t cudaHostGetDevicePointer(void** pDevice, void* pHost, unsigned int flags);
extern __host__ __device__ cudaError_t cudaFree(void* devPtr);
extern __host__ cudaError_t cudaFreeHost(void* ptr);
extern __host__ cudaError_t cudaMallocAsync(void** devPtr, size_t size, cudaStream_t hStream);
extern __host__ cudaError_t cudaFreeAsync(void* devPtr, cudaStream_t hStream);
extern __host__ cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind);
extern __host__ __device__ cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                                                       cudaStream_t stream = 0);
extern __host__ cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                         size_t height, cudaMemcpyKind kind);
extern __host__ __device__ cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                                                         size_t width, size_t height, cudaMemcpyKind kind,
                                                         cudaStream_t stream = 0);
extern __host__ cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p);
extern __host__ __device__ cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t stream = 0);
extern __host__ cudaError_t cudaMemcpyPeer(void* dst, int dstDevice, const void* src, int srcDevice, size_t count);
extern __host__ cudaError_t cudaMemcpyPeerAsync(void* dst, int dstDevice, const void* src, int srcDevice,
                                                size_t count, cudaStream_t stream = 0);
extern __host__ cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset = 0,
                                               cudaMemcpyKind kind = cudaMemcpyHostToDevice);
extern __host__ cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset = 0,
                                                 cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
extern __host__ cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count,
                                                    size_t offset, cudaMemcpyKind kind, cudaStream_t stream = 0);
extern __host__ cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset,
                                                      cudaMemcpyKind kind, cudaStream_t stream = 0);
extern __host__ cudaError_t cudaMemset(void* devPtr, int value, size_t count);
extern __host__ cudaError_t cudaMemset2D(void* devPtr, size_t pitch, int value, size_t width, size_t height);
extern __host__ cudaError_t cudaMemset3D(cudaPitchedPtr pitchedDevPtr, int value, cudaExtent extent);
extern __host__ __device__ cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream = 0);
extern __host__ __device__ cudaError_t cudaMemset2DAsync(void* devPtr, size_t pitch, int value, size_t width,
                                                         size_t height, cudaStream_t stream = 0);
extern __host__ __device__ cudaError_t cudaMemset3DAsync(cudaPitchedPtr pitchedDevPtr, int value, cudaExtent extent,
                                                         cudaStream_t stream = 0);
extern __host__ cudaError_t cudaMemPrefetchAsync(const void* devPtr, size_t count, int dstDevice,
                                                 cudaStream_t stream = 0);

// Streams and events.
extern __host__ cudaError_t cudaStreamCreate(cudaStream_t* pStream);
extern __host__ __device__ cudaError_t cudaStreamCreateWithFlags(cudaStream_t* pStream, unsigned int flags);
extern __host__ __device__ cudaError_t cudaStreamDestroy(cudaStream_t stream);
extern __host__ cudaError_t cudaStreamSynchronize(cudaStream_t stream);
extern __host__ cudaError_t cudaStreamQuery(cudaStream_t stream);
extern __host__ __device__ cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                                           unsigned int flags = 0);
extern __host__ cudaError_t cudaEventCreate(cudaEvent_t* event);
extern __host__ __device__ cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
extern __host__ __device__ cudaError_t cudaEventDestroy(cudaEvent_t event);
extern __host__ __device__ cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
extern __host__ cudaError_t cudaEventSynchronize(cudaEvent_t event);
extern __host__ cudaError_t cudaEventQuery(cudaEvent_t event);
extern __host__ cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);

// Launches and graphs.
extern __host__ cudaError_t cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                                             size_t sharedMem, cudaStream_t stream);
extern __host__ cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 gridDim, dim3 blockDim,
                                                        void** args, size_t sharedMem, cudaStream_t stream);
extern __host__ cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream);
extern __host__ cudaError_t cudaStreamBeginCapture(cudaStream_t stream, int mode);
extern __host__ cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* pGraph);
extern __host__ cudaError_t cudaFuncSetAttribute(const void* func, int attr, int value);
// What clang lowers `kernel<<<grid, block, shmem, stream>>>(...)` to.
extern __host__ cudaError_t __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0,
                                                        cudaStream_t stream = 0);
extern __host__ cudaError_t cudaConfigureCall(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0,
                                              cudaStream_t stream = 0);
}

// Device-side functions kernels commonly call (declarations only).
extern "C" __device__ void __syncthreads(void);
extern "C" __device__ void __syncwarp(unsigned mask = 0xffffffff);
__device__ float atomicAdd(float* address, float val);
__device__ int atomicAdd(int* address, int val);
__device__ unsigned int atomicAdd(unsigned int* address, unsigned int val);
__device__ float __shfl_down_sync(unsigned mask, float var, unsigned delta, int width = 32);
__device__ float __shfl_xor_sync(unsigned mask, float var, int laneMask, int width = 32);
__device__ __host__ float expf(float);
__device__ __host__ float logf(float);
__device__ __host__ float sqrtf(float);
__device__ __host__ float tanhf(float);
__device__ __host__ float fmaxf(float, float);
__device__ __host__ float fminf(float, float);
__device__ __host__ float fabsf(float);
__device__ float rsqrtf(float);

// Template conveniences of cuda_runtime.h.
template <class T>
static __inline__ __host__ cudaError_t cudaMalloc(T** devPtr, size_t size) {
  return ::cudaMalloc((void**)(void*)devPtr, size);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMallocHost(T** ptr, size_t size, unsigned int flags = 0) {
  return ::cudaHostAlloc((void**)(void*)ptr, size, flags);
}
template <class T>
static __inline__ __host__ cudaError_t cudaHostAlloc(T** ptr, size_t size, unsigned int flags) {
  return ::cudaHostAlloc((void**)(void*)ptr, size, flags);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMallocManaged(T** devPtr, size_t size,
                                                        unsigned int flags = cudaMemAttachGlobal) {
  return ::cudaMallocManaged((void**)(void*)devPtr, size, flags);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMallocAsync(T** devPtr, size_t size, cudaStream_t stream) {
  return ::cudaMallocAsync((void**)(void*)devPtr, size, stream);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, size_t count,
                                                         size_t offset = 0,
                                                         cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  return ::cudaMemcpyToSymbol((const void*)&symbol, src, count, offset, kind);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, size_t count,
                                                           size_t offset = 0,
                                                           cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  return ::cudaMemcpyFromSymbol(dst, (const void*)&symbol, count, offset, kind);
}
template <class T>
static __inline__ __host__ cudaError_t cudaLaunchKernel(const T* func, dim3 gridDim, dim3 blockDim, void** args,
                                                       size_t sharedMem = 0, cudaStream_t stream = 0) {
  return ::cudaLaunchKernel((const void*)func, gridDim, blockDim, args, sharedMem, stream);
}

#endif
