#pragma once
// What this build can do, for --version of both programs: CI compares it with the expected set, so a
// build that silently lost a transport (rdma-core missing at configure time) fails there.
#include <string>

namespace zc {

// "PROGRAM VERSION", then "transports: ..." (built in), "not built: ..." when some are left out, and
// "gpu buffers: ...", "zcperf-mpi: ..." and "licence: ...", one per line.
std::string version_text(const char* program);

}  // namespace zc
