#pragma once
// The RDMA kinds' report block (rdma/rdma_info.hpp) into a side's result: written by the rsocket and
// verbs tables' kind_block hooks (rdma/rsocket_ops.cpp, rdma/verbs_ops.cpp).
#include "rdma/rdma_info.hpp"
#include "protocol/result.hpp"
#include "protocol/run_spec.hpp"

namespace zc {

// The side's block under "rdma" (its streams' facts already summed); and what a verbs registration of GPU
// memory decided, into the side's memory section (MemoryReport::registered_gpu_path).
void write_rdma_block(const HalfSpec& half, const RdmaInfo& side, SideResult& r);

}  // namespace zc
