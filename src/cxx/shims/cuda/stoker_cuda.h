// stoker's CUDA shim: the CUDA runtime API surface, kernel qualifiers and launch support that
// stoker's rules need, declared so that CUDA host code parses without a CUDA toolkit
// (header-free mode). Written for stoker from the CUDA Runtime API reference; declarations
// only, nothing here is ever compiled into a program.
#pragma once
#ifndef STOKER_CUDA_SHIM_H
#define STOKER_CUDA_SHIM_H
// The include guards of the real headers, which programs and helper headers (cuda-samples'
// helper_cuda.h) test to know the runtime API is declared.
#define __DRIVER_TYPES_H__
#define __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_API_H__
#define __VECTOR_TYPES_H__

#include <stddef.h>
// The real cuda_runtime.h brings in the C library's memory and string functions (malloc,
// free, memcpy, memset: what CU002's provenance follows), and programs rely on it. The C
// library's own headers cost a few milliseconds; libstdc++'s C++ wrapper of <stdlib.h> pulls in
// <cstdlib>, which costs several times more, so ask libstdc++ for the plain C header (as its
// <cstdlib> does), and likewise for <math.h> (glibc's costs about 15 ms; <cmath> several times more).
#ifndef _GLIBCXX_INCLUDE_NEXT_C_HEADERS
#define _GLIBCXX_INCLUDE_NEXT_C_HEADERS
#define STOKER_DEFINED_INCLUDE_NEXT_C_HEADERS
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef STOKER_DEFINED_INCLUDE_NEXT_C_HEADERS
#undef _GLIBCXX_INCLUDE_NEXT_C_HEADERS
#undef STOKER_DEFINED_INCLUDE_NEXT_C_HEADERS
#endif

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
struct int3 { int x, y, z; };
struct uint2 { unsigned int x, y; };
struct uint4 { unsigned int x, y, z, w; };
struct float3 { float x, y, z; };
struct double2 { double x, y; };
struct char4 { signed char x, y, z, w; };
struct uchar4 { unsigned char x, y, z, w; };
struct float2 { float x, y; };
struct float4 { float x, y, z, w; };
__host__ __device__ float2 make_float2(float x, float y);
__host__ __device__ float3 make_float3(float x, float y, float z);
__host__ __device__ float4 make_float4(float x, float y, float z, float w);
__host__ __device__ int2 make_int2(int x, int y);
__host__ __device__ uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w);
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
                        size_t sharedMemPerBlock; int maxThreadsPerBlock; int maxThreadsPerMultiProcessor;
                        int l2CacheSize; size_t sharedMemPerMultiprocessor; size_t sharedMemPerBlockOptin;
                        int warpSize; int regsPerBlock; int clockRate; int memoryClockRate; int memoryBusWidth;
                        int asyncEngineCount; int concurrentKernels; int canMapHostMemory; int integrated;
                        int unifiedAddressing; int managedMemory; int pageableMemoryAccess;
                        int deviceOverlap; int maxGridSize[3]; int maxThreadsDim[3]; int pciBusID; int pciDeviceID; };
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
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
                         cudaFuncAttributePreferredSharedMemoryCarveout = 9 };
extern __host__ cudaError_t cudaFuncSetAttribute(const void* func, int attr, int value);
// What clang lowers `kernel<<<grid, block, shmem, stream>>>(...)` to.
extern __host__ cudaError_t __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0,
                                                        cudaStream_t stream = 0);
extern __host__ cudaError_t cudaConfigureCall(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0,
                                              cudaStream_t stream = 0);
// Device attributes and compute modes (values as in the CUDA Runtime API reference).
enum cudaDeviceAttr { cudaDevAttrMaxThreadsPerBlock = 1, cudaDevAttrMaxSharedMemoryPerBlock = 8,
                      cudaDevAttrWarpSize = 10, cudaDevAttrClockRate = 13, cudaDevAttrMultiProcessorCount = 16,
                      cudaDevAttrIntegrated = 18, cudaDevAttrCanMapHostMemory = 19, cudaDevAttrComputeMode = 20,
                      cudaDevAttrConcurrentKernels = 31, cudaDevAttrComputeCapabilityMajor = 75,
                      cudaDevAttrComputeCapabilityMinor = 76, cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
                      cudaDevAttrCooperativeLaunch = 95, cudaDevAttrManagedMemory = 83,
                      cudaDevAttrConcurrentManagedAccess = 89, cudaDevAttrPageableMemoryAccess = 88 };
enum cudaComputeMode { cudaComputeModeDefault = 0, cudaComputeModeExclusive = 1, cudaComputeModeProhibited = 2,
                       cudaComputeModeExclusiveProcess = 3 };
extern __host__ cudaError_t cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device);
// Memory advice, profiler control, occupancy (declarations only).
enum cudaMemoryAdvise { cudaMemAdviseSetReadMostly = 1, cudaMemAdviseUnsetReadMostly = 2,
                        cudaMemAdviseSetPreferredLocation = 3, cudaMemAdviseUnsetPreferredLocation = 4,
                        cudaMemAdviseSetAccessedBy = 5, cudaMemAdviseUnsetAccessedBy = 6 };
#define cudaCpuDeviceId ((int)-1)
#define cudaInvalidDeviceId ((int)-2)
extern __host__ cudaError_t cudaMemAdvise(const void* devPtr, size_t count, enum cudaMemoryAdvise advice, int device);
extern __host__ cudaError_t cudaProfilerStart(void);
extern __host__ cudaError_t cudaProfilerStop(void);
extern __host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func,
                                                                           int blockSize, size_t dynamicSMemSize);
}
template <class T>
static __inline__ __host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, T func,
                                                                                  int blockSize,
                                                                                  size_t dynamicSMemSize) {
  return ::cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, (const void*)func, blockSize, dynamicSMemSize);
}

// Half and bfloat16 types (cuda_fp16.h, cuda_bf16.h), as opaque 16-bit values.
struct __half { unsigned short x; __host__ __device__ __half(); __host__ __device__ __half(float f);
                __host__ __device__ operator float() const; };
struct __half2 {
  __half x, y;
  __host__ __device__ __half2();
  __host__ __device__ __half2(__half a, __half b);
  __host__ __device__ __half2& operator+=(const __half2& o);
  __host__ __device__ __half2& operator*=(const __half2& o);
  __host__ __device__ __half2& operator-=(const __half2& o);
};
__host__ __device__ __half2 operator+(const __half2& a, const __half2& b);
__host__ __device__ __half2 operator-(const __half2& a, const __half2& b);
__host__ __device__ __half2 operator*(const __half2& a, const __half2& b);
struct __half_raw { unsigned short x; };
struct __half2_raw { unsigned short x, y; };
struct __nv_bfloat16 { unsigned short x; __host__ __device__ __nv_bfloat16();
                       __host__ __device__ __nv_bfloat16(float f); __host__ __device__ operator float() const; };
struct __nv_bfloat162 { __nv_bfloat16 x, y; };
typedef __half half;
typedef __half2 half2;
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;
__host__ __device__ __half __float2half(float f);
__host__ __device__ float __half2float(__half h);
__host__ __device__ __nv_bfloat16 __float2bfloat16(float f);
__host__ __device__ __nv_bfloat16 __float2bfloat16_rn(float f);
__host__ __device__ float __bfloat162float(__nv_bfloat16 h);

#ifdef __CUDA__  // device-only declarations: in C++ mode they would redeclare host functions
// Device-side functions kernels commonly call (declarations only).
extern "C" __device__ void __assert_fail(const char* expr, const char* file, unsigned int line, const char* function);
__device__ float __uint_as_float(unsigned int x);
__device__ unsigned int __float_as_uint(float x);
__device__ int __float_as_int(float x);
__device__ float __int_as_float(int x);
template <typename T> __device__ T __ldcs(const T* p);
template <typename T> __device__ void __stcs(T* p, T v);
template <typename T> __device__ T __ldg(const T* p);
template <typename T> __device__ T __ldcg(const T* p);
template <typename T> __device__ void __stcg(T* p, T v);
// CUDA's min and max for any mix of arithmetic types, on host and device (crt/math_functions).
template <typename A, typename B> __host__ __device__ auto min(A a, B b) -> decltype(a + b);
template <typename A, typename B> __host__ __device__ auto max(A a, B b) -> decltype(a + b);
__device__ unsigned int __activemask();
__device__ unsigned int __ballot_sync(unsigned int mask, int predicate);
__device__ int __any_sync(unsigned int mask, int predicate);
__device__ int __all_sync(unsigned int mask, int predicate);
__device__ float __expf(float);
__device__ float __fdividef(float, float);
__device__ long long clock64();
extern "C" __device__ void __syncthreads(void);
extern "C" __device__ void __syncwarp(unsigned mask = 0xffffffff);
__device__ float atomicAdd(float* address, float val);
__device__ int atomicAdd(int* address, int val);
__device__ unsigned int atomicAdd(unsigned int* address, unsigned int val);
__device__ int atomicCAS(int* address, int compare, int val);
__device__ unsigned int atomicCAS(unsigned int* address, unsigned int compare, unsigned int val);
__device__ unsigned long long atomicCAS(unsigned long long* address, unsigned long long compare, unsigned long long val);
__device__ unsigned int atomicInc(unsigned int* address, unsigned int val);
__device__ int atomicMax(int* address, int val);
__device__ int atomicExch(int* address, int val);
template <typename T> __device__ T __shfl_sync(unsigned mask, T var, int srcLane, int width = 32);
template <typename T> __device__ T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32);
template <typename T> __device__ T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = 32);
// Device overloads only: the host versions come from <math.h> when the program includes it, and
// a __host__ __device__ declaration would clash with those.
__device__ float expf(float);
__device__ float logf(float);
__device__ float sqrtf(float);
__device__ float tanhf(float);
__device__ float fmaxf(float, float);
__device__ float fminf(float, float);
__device__ float fabsf(float);
__device__ float powf(float, float);
__device__ float coshf(float);
extern "C" __device__ void* memcpy(void* dst, const void* src, size_t n);
extern "C" __device__ void* memset(void* dst, int value, size_t n);
__device__ float sinhf(float);
__device__ float erff(float);
__device__ float erfcf(float);
__device__ float log1pf(float);
__device__ float expm1f(float);
__device__ float ceilf(float);
__device__ float floorf(float);
__device__ float roundf(float);
__device__ float sinf(float);
__device__ float cosf(float);
__device__ float rsqrtf(float);
__device__ void sincosf(float x, float* s, float* c);
// cuda_fp16.h / cuda_bf16.h conversions and paired-half arithmetic.
__device__ float __int2float_rn(int x);
__device__ double __int2double_rn(int x);
__device__ __half __int2half_rn(int x);
__device__ float __uint2float_rn(unsigned int x);
__device__ double __uint2double_rn(unsigned int x);
__device__ __half __uint2half_rn(unsigned int x);
__device__ float __ll2float_rn(long long x);
__device__ double __ll2double_rn(long long x);
__device__ __half __ll2half_rn(long long x);
__device__ float __ull2float_rn(unsigned long long x);
__device__ double __ull2double_rn(unsigned long long x);
__device__ __half __ull2half_rn(unsigned long long x);
__device__ float __short2float_rn(short x);
__device__ double __short2double_rn(short x);
__device__ __half __short2half_rn(short x);
__device__ float __ushort2float_rn(unsigned short x);
__device__ double __ushort2double_rn(unsigned short x);
__device__ __half __ushort2half_rn(unsigned short x);
__device__ int __float2int_rn(float x);
__device__ unsigned int __float2uint_rn(float x);
__device__ long long __float2ll_rn(float x);
__device__ unsigned long long __float2ull_rn(float x);
__device__ short __float2short_rn(float x);
__device__ unsigned short __float2ushort_rn(float x);
__device__ int __double2int_rn(double x);
__device__ unsigned int __double2uint_rn(double x);
__device__ long long __double2ll_rn(double x);
__device__ unsigned long long __double2ull_rn(double x);
__device__ short __double2short_rn(double x);
__device__ unsigned short __double2ushort_rn(double x);
__device__ int __half2int_rn(__half x);
__device__ unsigned int __half2uint_rn(__half x);
__device__ long long __half2ll_rn(__half x);
__device__ unsigned long long __half2ull_rn(__half x);
__device__ short __half2short_rn(__half x);
__device__ unsigned short __half2ushort_rn(__half x);
__device__ float __double2float_rn(double x);
__device__ __half __double2half(double x);
__device__ float2 __half22float2(__half2 h);
__device__ __half2 __float22half2_rn(float2 f);
__device__ __half2 __float2half2_rn(float f);
__device__ __half2 __floats2half2_rn(float a, float b);
__device__ __half2 __halves2half2(__half a, __half b);
__device__ __half2 __half2half2(__half a);
__device__ __half __low2half(__half2 h);
__device__ __half __high2half(__half2 h);
__device__ float __low2float(__half2 h);
__device__ float __high2float(__half2 h);
__device__ __half2 __hadd2(__half2 a, __half2 b);
__device__ __half2 __hsub2(__half2 a, __half2 b);
__device__ __half2 __hmul2(__half2 a, __half2 b);
__device__ __half2 __hfma2(__half2 a, __half2 b, __half2 c);
__device__ __half2 __habs2(__half2 a);
__device__ __half __habs(__half a);
__device__ __half __hadd(__half a, __half b);
__device__ __half __hmul(__half a, __half b);
__device__ __half hexp(__half a);
__device__ __half2 h2exp(__half2 a);
__device__ __half2 h2sqrt(__half2 a);
__device__ __half2 h2rsqrt(__half2 a);
__device__ float2 __bfloat1622float2(__nv_bfloat162 h);
__device__ __nv_bfloat162 __float22bfloat162_rn(float2 f);
__device__ __nv_bfloat162 __floats2bfloat162_rn(float a, float b);
__device__ __nv_bfloat162 __float2bfloat162_rn(float f);
__device__ __nv_bfloat16 __low2bfloat16(__nv_bfloat162 h);
__device__ __nv_bfloat16 __high2bfloat16(__nv_bfloat162 h);
__device__ void __threadfence(void);
__device__ void __threadfence_block(void);
__device__ int __clz(int x);
__device__ int __popc(unsigned int x);
__device__ int __ffs(int x);
#endif  // __CUDA__

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
static __inline__ __host__ cudaError_t cudaFuncSetAttribute(T* entry, enum cudaFuncAttribute attr, int value) {
  return ::cudaFuncSetAttribute((const void*)entry, (int)attr, value);
}
template <class T>
static __inline__ __host__ cudaError_t cudaLaunchKernel(const T* func, dim3 gridDim, dim3 blockDim, void** args,
                                                       size_t sharedMem = 0, cudaStream_t stream = 0) {
  return ::cudaLaunchKernel((const void*)func, gridDim, blockDim, args, sharedMem, stream);
}

#endif
