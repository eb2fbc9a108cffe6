// stoker shim: the cuRAND host API entry points stoker recognizes (declarations only).
#pragma once
#ifndef STOKER_CURAND_SHIM_H
#define STOKER_CURAND_SHIM_H
#include <cuda_runtime.h>
extern "C" {
typedef enum { CURAND_STATUS_SUCCESS = 0 } curandStatus_t;
typedef struct curandGenerator_st* curandGenerator_t;
curandStatus_t curandCreateGenerator(curandGenerator_t* generator, int rng_type);
curandStatus_t curandGenerateUniform(curandGenerator_t generator, float* outputPtr, size_t num);
curandStatus_t curandGenerateNormal(curandGenerator_t generator, float* outputPtr, size_t n, float mean,
                                    float stddev);
}
#endif
