// The rdma kind: rsockets' rows (table 0, rsocket_ops.cpp) and the verbs rows (table 1, verbs_ops.cpp), its
// report block and its parameters. Listed without rdma-core too: their rows then say what the build lacks.
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "core/kind_description.hpp"
#include "rdma/rdma_info.hpp"
#include "rdma/rdma_options.hpp"

namespace zc {

namespace {
#if ZCPERF_WITH_RDMA
constexpr bool kRdmaBuilt = true;
#else
constexpr bool kRdmaBuilt = false;
#endif
constexpr const char* kRdmaCore =
    "it was built without rdma-core (libibverbs, librdmacm); on Debian: apt-get install libibverbs-dev "
    "librdmacm-dev, then reconfigure and rebuild";

constexpr TransportInfo kRows[] = {
    {.name = "rsocket",
     .summary = "rsockets rsend/rrecv: the socket API over RDMA, copies through its buffers",
     .tests = kStreams | bit(Workload::rr),
     .no_message_tests =
         "rsockets copy each rsend into their own buffer and send in chunks of up to 64 KiB, so small messages "
         "are coalesced and their rate is a stream's. Use -T rdma-send or rdma-write, or -T's default (TCP's copy "
         "path)",
     .buffers = kHost | kGpuLike,
     .message_buffers = kHost,
     .needs = kRdmaCore,
     .built = kRdmaBuilt,
     .copy_path = "rsocket"},
    {.name = "rsocket-iomap",
     .summary = "rsockets riowrite into the receiver's riomap'ed buffer",
     .tests = kStreams,
     .no_message_tests =
         "riowrite lands data in a ring the receiver mapped, and each message then needs a notice (rsend) to say "
         "it is there, so every message is two transfers, a bulk path's trade. Use -T rsocket (rsend/rrecv) or "
         "-T rdma-write (one-sided writes, nothing else)",
     .buffers = kHost,
     .needs = kRdmaCore,
     .built = kRdmaBuilt,
     .copy_path = "rsocket"},
    {.name = "rdma-write",
     .summary = "verbs RDMA WRITE into the receiver's registered ring, progress by immediate data",
     .table = kVerbsTable,
     .tests = kAllTests,
     .buffers = kAnyMemory,
     .message_buffers = kHost,
     .gpu_direct = true,
     .needs = kRdmaCore,
     .built = kRdmaBuilt},
    {.name = "rdma-send",
     .summary = "verbs SEND into the receiver's posted receives, credit flow control",
     .table = kVerbsTable,
     .tests = kAllTests,
     .buffers = kAnyMemory,
     .message_buffers = kHost,
     .gpu_direct = true,
     .needs = kRdmaCore,
     .built = kRdmaBuilt},
    {.name = "rdma-read",
     .summary = "verbs RDMA READ: the receiver pulls from the sender's registered buffer",
     .table = kVerbsTable,
     .tests = kStreams,
     .no_message_tests =
         "an RDMA READ is one-sided, the side whose memory is read never sees a message, so there is nobody to "
         "answer or count (ib_read_lat times one read's round trip). Use -T rdma-send or -T rdma-write",
     .buffers = kAnyMemory,
     .gpu_direct = true,
     .needs = kRdmaCore,
     .built = kRdmaBuilt}};

// Each row's operation, by name (set-up only).
constexpr std::pair<const char*, RdmaOp> kRowOps[] = {{"rsocket", RdmaOp::send},
                                                      {"rsocket-iomap", RdmaOp::write},
                                                      {"rdma-write", RdmaOp::write},
                                                      {"rdma-send", RdmaOp::send},
                                                      {"rdma-read", RdmaOp::read}};

}  // namespace

bool rdma_row(const TransportInfo& row) { return row_of_kind(row, "rdma"); }
bool verbs_row(const TransportInfo& row) { return rdma_row(row) && row.table == kVerbsTable; }

RdmaOp rdma_op_of(const TransportInfo& row) {
    for (const auto& [name, op] : kRowOps)
        if (std::string_view(name) == row.name) return op;
    throw std::logic_error(std::string(row.name) + " is not a row of the rdma kind");
}

extern const KindDescription kind_description_rdma;
constexpr KindDescription kind_description_rdma{
    .name = "rdma",
    .rows = kRows,
    .block = rdma_block_type,
    .params = rdma_params_wires,
};

}  // namespace zc
