#include "rdma/rdma_block.hpp"

namespace zc {

void write_rdma_block(const HalfSpec& half, const RdmaInfo& side, SideResult& r) {
    r.kinds[rdma_block_type().key] = to_json(side);
    r.memory.registered_gpu_path(side.gpu_path, side.gpu_path_note, side.stage_slots, half.message_size);
}

}  // namespace zc
