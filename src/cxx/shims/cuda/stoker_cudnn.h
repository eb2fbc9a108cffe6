// stoker shim: the cuDNN entry points stoker recognizes (declarations only).
#pragma once
#ifndef STOKER_CUDNN_SHIM_H
#define STOKER_CUDNN_SHIM_H
#include <cuda_runtime.h>
extern "C" {
typedef enum { CUDNN_STATUS_SUCCESS = 0 } cudnnStatus_t;
typedef struct cudnnContext* cudnnHandle_t;
typedef struct cudnnTensorStruct* cudnnTensorDescriptor_t;
cudnnStatus_t cudnnCreate(cudnnHandle_t* handle);
cudnnStatus_t cudnnSoftmaxForward(cudnnHandle_t handle, int algo, int mode, const void* alpha,
                                  cudnnTensorDescriptor_t xDesc, const void* x, const void* beta,
                                  cudnnTensorDescriptor_t yDesc, void* y);
}
#endif
