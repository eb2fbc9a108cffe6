// stoker shim: NVTX ranges (declarations only; they never touch the GPU queue).
#pragma once
#ifndef STOKER_NVTX_SHIM_H
#define STOKER_NVTX_SHIM_H
extern "C" {
int nvtxRangePushA(const char* message);
int nvtxRangePop(void);
void nvtxMarkA(const char* message);
void nvtxNameCudaStreamA(struct CUstream_st* stream, const char* name);
void nvtxNameOsThreadA(unsigned int thread_id, const char* name);
}
#define nvtxRangePush nvtxRangePushA
#define nvtxMark nvtxMarkA
#define nvtxNameCudaStream nvtxNameCudaStreamA
#define nvtxNameOsThread nvtxNameOsThreadA
#endif
