#pragma once
// The smc kind's report block (protocol/kind_block.hpp): per data connection what smc_diag said (SMC-R,
// SMC-D or TCP fallback, the fallback reason and the peer's diagnosis, the RDMA device, port and GIDs, the
// buffer (RMB) sizes), and the host's SMC counters over the test (smc/smc_stats.hpp's delta). One field
// table per struct drives both JSON directions.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "protocol/kind_block.hpp"
#include "smc/smc_diag.hpp"
#include "smc/smc_stats.hpp"

namespace zc {

struct SmcSideReport {
    std::vector<SmcConnection> connections;  // this side's data connections, in stream order
    SmcStats stats;                          // the host's counters: after - before the test
    std::string note;                        // what was not read, and why
};

// The sentence a run's first line carries when any connection fell back to TCP ("" when none did): its
// throughput is TCP's, not SMC's.
std::string smc_fallback_sentence(const SmcSideReport& r);

nlohmann::json to_json(const SmcSideReport& r);
SmcSideReport smc_side_from_json(const nlohmann::json& j);  // throws ProtocolError

// The block's table, which the kind's description lists (smc_report.cpp).
const KindBlockType& smc_block_type();

}  // namespace zc
