// Picks the verbs loops' memory policies (verbs_stage.hpp) from what the connection registered.
#include "rdma/verbs_paths.hpp"

namespace zc {

void make_tx_stage(TxStage& s, RdmaConnection& c) {
    if (c.memory().mode() != DataMemoryMode::staged) {
        s.emplace<TxInPlace>(c);
        return;
    }
    if (c.buffer_spec().simulated())
        s.emplace<TxStaged<HostStageCopy>>(c, 0);
    else
        s.emplace<TxStaged<cuda::CudaStageCopy>>(c, c.buffer_spec().device);
    c.info().stage_slots = static_cast<uint32_t>(c.qp_count() * c.slots());
}

void make_rx_stage(RxStage& s, RdmaConnection& c) {
    switch (c.memory().mode()) {
        case DataMemoryMode::host:
            s.emplace<RxInPlace>(c);
            return;
        case DataMemoryMode::direct:
            s.emplace<RxDirect>(c);
            return;
        case DataMemoryMode::staged:
            if (c.buffer_spec().simulated())
                s.emplace<RxStaged<HostStageCopy>>(c, 0);
            else
                s.emplace<RxStaged<cuda::CudaStageCopy>>(c, c.buffer_spec().device);
            c.info().stage_slots = static_cast<uint32_t>(c.qp_count() * c.slots());
            return;
    }
}

}  // namespace zc
