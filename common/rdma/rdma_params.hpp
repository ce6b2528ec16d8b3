#pragma once
// The RDMA kinds' parameters (rdma/rdma_options.hpp, which carries them on the wire) from the command
// line to the loops: their option rows and the rules over them, registered by this file's module, which the
// rsocket and verbs tables link in (their kind_problem hook), so zcperf's rows and rules name no RDMA knob.
#include <string>

#include "core/workload.hpp"
#include "rdma/rdma_options.hpp"
#include "protocol/run_spec.hpp"

namespace zc {

// What the half's RDMA parameters cannot do on its row ("" nothing): --thread-domains where no QPs are
// ours, --qps and --postlist with rr.
std::string rdma_params_problem(const HalfSpec& half, Role role);

}  // namespace zc
