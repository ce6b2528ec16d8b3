#include "protocol/rdma_options.hpp"

#include <stdexcept>

#include "protocol/json_fields.hpp"

namespace zc {

const char* cq_mode_name(CqMode m) {
    switch (m) {
        case CqMode::auto_: return "auto";
        case CqMode::poll: return "poll";
        case CqMode::event: return "event";
    }
    return "?";
}

CqMode cq_mode_from_name(const std::string& name) {
    if (name == "auto") return CqMode::auto_;
    if (name == "poll") return CqMode::poll;
    if (name == "event") return CqMode::event;
    throw std::invalid_argument("unknown --cq-mode '" + name +
                                "'; use poll (busy-poll the completion queue: lowest latency, a core's user time), "
                                "event (sleep on the completion channel: CPU only when work completes) or auto");
}

CqMode effective_cq_mode(CqMode asked, bool passive_side) {
    if (asked != CqMode::auto_) return asked;
    return passive_side ? CqMode::event : CqMode::poll;
}

void check_rdma_options(const RdmaOptions& o) {
    if (o.tx_depth < 2 || o.tx_depth > kMaxTxDepth)
        throw std::invalid_argument("--tx-depth must be 2.." + std::to_string(kMaxTxDepth));
    if (o.postlist < 1 || o.postlist > kMaxPostlist || o.postlist > o.tx_depth)
        throw std::invalid_argument("--postlist must be 1.." + std::to_string(kMaxPostlist) + " and at most --tx-depth");
    if (o.inline_size > kMaxInline) throw std::invalid_argument("--inline must be 0.." + std::to_string(kMaxInline) + " bytes");
    if (o.qps < 1 || o.qps > kMaxQpsPerStream)
        throw std::invalid_argument("--qps must be 1.." + std::to_string(kMaxQpsPerStream));
    if (o.qps_per_context > kMaxQpsPerContext)
        throw std::invalid_argument("--qps-per-context must be 0.." + std::to_string(kMaxQpsPerContext) +
                                    " (0: every stream on rdma_cm's shared device context)");
}

void add_rdma_options(nlohmann::json& j, const RdmaOptions& o) {
    j["cq_mode"] = cq_mode_name(o.cq_mode);
    j["tx_depth"] = o.tx_depth;
    j["postlist"] = o.postlist;
    j["inline_size"] = o.inline_size;
    j["qps"] = o.qps;
    j["qps_per_context"] = o.qps_per_context;
    j["thread_domains"] = o.thread_domains;
}

RdmaOptions rdma_options_from_json(const nlohmann::json& j) {
    RdmaOptions o;
    if (j.contains("cq_mode")) {
        try {
            o.cq_mode = cq_mode_from_name(field<std::string>(j, "cq_mode"));
        } catch (const std::invalid_argument& e) {
            throw ProtocolError(e.what());
        }
    }
    if (j.contains("tx_depth")) o.tx_depth = field_in<uint32_t>(j, "tx_depth", 2, kMaxTxDepth);
    if (j.contains("postlist")) o.postlist = field_in<uint32_t>(j, "postlist", 1, kMaxPostlist);
    if (j.contains("inline_size")) o.inline_size = field_in<uint32_t>(j, "inline_size", 0, kMaxInline);
    if (j.contains("qps")) o.qps = field_in<uint32_t>(j, "qps", 1, kMaxQpsPerStream);
    if (j.contains("qps_per_context")) o.qps_per_context = field_in<uint32_t>(j, "qps_per_context", 0, kMaxQpsPerContext);
    if (j.contains("thread_domains")) o.thread_domains = field<bool>(j, "thread_domains");  // absent: an older client
    if (o.postlist > o.tx_depth) throw ProtocolError("field 'postlist' must not exceed 'tx_depth'");
    return o;
}

}  // namespace zc
