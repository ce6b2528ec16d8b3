#include "rdma/rdma_params.hpp"

#include "kind/kind_module.hpp"

#include <stdexcept>

#include "options/kind_options.hpp"
#include "options/option_rows.hpp"

namespace zc {

namespace {

bool has_queue_pairs(const TransportInfo& row) { return verbs_row(row); }

// --rdma-dev LOCAL[,REMOTE]: each side's device (a name as ibv_devices prints it).
void set_rdma_devices(const std::string& text, KindParams& local, KindParams& remote) {
    auto parts = split_commas(text);
    if (parts.size() > 2)
        throw std::invalid_argument("--rdma-dev takes LOCAL[,REMOTE] device names, e.g. mlx5_0,mlx5_1");
    for (const auto& p : parts) {
        if (p.size() > 64 || p.find_first_of(" /") != std::string::npos)
            throw std::invalid_argument("--rdma-dev: '" + p + "' is not an RDMA device name (see ibv_devices)");
    }
    local.set(kRdmaSideParams).device = parts[0];
    remote.set(kRdmaSideParams).device = parts.size() == 2 ? parts[1] : std::string();
}

// zcperf's RDMA options, one row each; a number's range is its wire field's (wire_range), so the command line
// refuses what the server would.
OptionRows rdma_rows(const KindOptionTargets& to) {
    RdmaOptions& o = to.params.set(kRdmaParams);
    return {
        text("--cq-mode",
             "RDMA verbs: how completions are taken: poll (busy-poll the CQ: lowest latency, a core of user time), "
             "event (sleep on the completion channel: CPU only when work completes), or auto: the passive side of "
             "a one-sided transfer (rdma-write's receiver, rdma-read's source) sleeps, as perftest's does, and so "
             "does every side of a stream over a software device (rxe, siw: polling takes the CPU the kernel moves "
             "the data with); every other side polls (rr: both); the report says which ran on each side",
             [&o](const std::string& t) { o.cq_mode = cq_mode_from_name(t); })
            .choose(enum_names(CqMode::event, cq_mode_name))
            .shows("auto"),
        value_in("--tx-depth", o.tx_depth, wire_range(&RdmaOptions::tx_depth),
                 "RDMA: messages in flight per queue pair (send-queue depth and receive window; a ring slot each, at "
                 "most 64 MiB of slots per stream; msgrate keeps at least 512 receives posted)"),
        // The verbs message-rate knobs (--postlist, --qps-per-context, --inline) are --batch's kin: the
        // message rate they buy is per post, and rdma_params_problem keeps them to the tests that post many.
        value_in("--postlist", o.postlist, wire_range(&RdmaOptions::postlist),
                 "RDMA verbs: work requests chained per ibv_post_send (fewer doorbells; msgrate's batching, as "
                 "--batch is TCP's; e.g. -t msgrate --postlist 8)"),
        value_in("--inline", o.inline_size, wire_range(&RdmaOptions::inline_size),
                 "RDMA: send messages up to this many bytes inline in the work request (no DMA read of the buffer; "
                 "small messages only; 0 = never)"),
        value_in("--qps", o.qps, wire_range(&RdmaOptions::qps),
                 "RDMA verbs: queue pairs per stream, served round-robin by the stream's thread"),
        value_in("--qps-per-context", o.qps_per_context, wire_range(&RdmaOptions::qps_per_context),
                 "RDMA verbs: K streams (threads) share one device context and PD that zcperf opens itself "
                 "(ibv_open_device per K streams, QPs moved by hand with rdma_cm's attributes); 0 = all streams on "
                 "rdma_cm's one context, a PD each. E.g. -t msgrate -P 4 --qps-per-context 2: 2 contexts"),
        flag("--thread-domains", o.thread_domains,
             "RDMA verbs: each stream's thread gets a thread domain (ibv_alloc_td) and a parent domain over its PD, "
             "and makes its CQ and QPs there, so the provider may give it a doorbell register of its own and skip "
             "its locks (mlx5); with --qps-per-context K too. A provider without them (Soft-RoCE) is an error naming "
             "the call it refused; the report's rdma line says it was in force"),
        text("--rdma-dev",
             "RDMA: LOCAL[,REMOTE] device the data must use (e.g. mlx5_0); by default the one the route to the peer "
             "goes through; a mismatch is an error, never a silent change",
             [&to](const std::string& t) { set_rdma_devices(t, to.local, to.remote); }),
    };
}

void check_rdma_rows(const KindOptionRun& run) { check_rdma_options(run.params.get(kRdmaParams)); }

const KindOptionGroup kRdmaOptionGroup{
    .title = "RDMA OPTIONS", .rows = rdma_rows, .takes = takes_rdma_params, .check = check_rdma_rows};

}  // namespace

std::string rdma_params_problem(const HalfSpec& half, Role) {
    const TransportInfo& t = transport_info(half.transport);
    const RdmaOptions& o = rdma_params(half);
    if (o.thread_domains && !verbs_row(t)) {
        return "--thread-domains is for the verbs transports (" + transport_names_where(has_queue_pairs) +
               "), whose threads post work requests themselves; " + std::string(t.name) +
               " has no queue pairs of ours to put in one";
    }
    if (verbs_row(t) && half.test == Workload::rr && o.qps != 1) {
        return "rr keeps one message in flight per transaction, on one QP: --qps must be 1 (use -P N for N "
               "connections, each with its own QP)";
    }
    if (verbs_row(t) && half.test == Workload::rr && o.postlist != 1) {
        return "--postlist chains the work requests of many messages; rr has one message per transaction (use "
               "-t msgrate for --postlist)";
    }
    return "";
}

// The rdma kind's module: its tables exist only with rdma-core (rsocket_ops.cpp, verbs_ops.cpp); without it, its
// rows stay listed and say what the build lacks.
extern const KindDescription kind_description_rdma;  // rdma_kind.cpp
extern const KindModule kind_module_rdma;
const KindOptionGroup* const kRdmaOptionGroups[] = {&kRdmaOptionGroup};
#if ZCPERF_WITH_RDMA
extern const TransportOps kRsocketOps, kVerbsOps;
namespace {
const KindTable kRdmaTables[] = {{"rsocket", &kRsocketOps}, {"verbs", &kVerbsOps}};  // the rows' `table`
}  // namespace
const KindModule kind_module_rdma{
    .description = &kind_description_rdma, .tables = kRdmaTables, .options = kRdmaOptionGroups};
#else
const KindModule kind_module_rdma{.description = &kind_description_rdma, .options = kRdmaOptionGroups};
#endif

}  // namespace zc
