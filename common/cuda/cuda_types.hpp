#pragma once
// The CUDA runtime's stream and event handle types, declared exactly as its driver_types.h declares
// them, so headers can name them without including CUDA (and compile the same in a build without it).
struct CUstream_st;
struct CUevent_st;
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
