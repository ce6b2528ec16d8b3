#pragma once
// Pinned host bounce buffers between the network and GPU memory: the staging pipeline's ring
// (memory/stage_ring.hpp) with the CUDA copy policy. TCP cannot read or write GPU memory, so every
// byte is staged: the GPU's copy engine fills (or drains) one slot while the data thread sends (or
// receives) another, on the ring's own stream; an event recorded after each copy says when that
// slot is free again, so the thread waits for one copy, never for the whole stream.
#include "cuda/stage_copy.hpp"
#include "memory/stage_ring.hpp"

namespace zc::cuda {

using BounceRing = OwnedStageRing<CudaStageCopy>;
using zc::upload_pattern;

}  // namespace zc::cuda
