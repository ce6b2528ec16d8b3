// The smc kind: the tcp kind's socket loops on AF_SMC sockets (net/smc: SMC-R over RDMA, SMC-D over shared
// memory, or TCP when either side or the route cannot), each connection's mode and reason reported (its
// block, from smc_diag) with the host's SMC counters over the test.
#include "core/kind_description.hpp"
#include "smc/smc_report.hpp"

namespace zc {

namespace {

constexpr TransportInfo kRows[] = {
    {.name = "smc",
     .summary = "SMC (AF_SMC): send() and recv() on sockets the kernel carries over RDMA (SMC-R) or shared memory "
                "(SMC-D), or TCP when it falls back; each connection's mode and fallback reason reported",
     .tests = kAllTests | kConnectionTests,
     .buffers = kHost,
     .message_buffers = kHost}};

}  // namespace

extern const KindDescription kind_description_smc;
constexpr KindDescription kind_description_smc{.name = "smc", .rows = kRows, .block = smc_block_type};

}  // namespace zc
