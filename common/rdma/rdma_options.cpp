#include "rdma/rdma_options.hpp"

#include <fmt/format.h>

#include <iterator>
#include <stdexcept>

#include "protocol/field_table.hpp"
#include "protocol/kind_params_wire.hpp"

namespace zc {

namespace {
constexpr const char* kCqModeNames[] = {"auto", "poll", "event"};  // in CqMode's order
}  // namespace

const char* cq_mode_name(CqMode m) {
    auto i = static_cast<size_t>(m);
    return i < std::size(kCqModeNames) ? kCqModeNames[i] : "?";
}

CqMode cq_mode_from_name(const std::string& name) {
    for (size_t i = 0; i < std::size(kCqModeNames); ++i)
        if (name == kCqModeNames[i]) return static_cast<CqMode>(i);
    throw std::invalid_argument("unknown --cq-mode '" + name +
                                "'; use poll (busy-poll the completion queue: lowest latency, a core's user time), "
                                "event (sleep on the completion channel: CPU only when work completes) or auto");
}

CqMode effective_cq_mode(CqMode asked, bool passive_side, bool software_device_stream) {
    if (asked != CqMode::auto_) return asked;
    return passive_side || software_device_stream ? CqMode::event : CqMode::poll;
}

namespace {
constexpr RdmaOptions kDefaults{};
// The wire fields, one line each (field_table.hpp); each absent field (an older client) keeps its default.
const auto kRdmaFields = std::make_tuple(
    named("cq_mode", &RdmaOptions::cq_mode, cq_mode_name, cq_mode_from_name, true),
    number("tx_depth", &RdmaOptions::tx_depth, 2, kMaxTxDepth, kDefaults.tx_depth),
    number("postlist", &RdmaOptions::postlist, 1, kMaxPostlist, kDefaults.postlist),
    number("inline_size", &RdmaOptions::inline_size, 0, kMaxInline, kDefaults.inline_size),
    number("qps", &RdmaOptions::qps, 1, kMaxQpsPerStream, kDefaults.qps),
    number("qps_per_context", &RdmaOptions::qps_per_context, 0, kMaxQpsPerContext, kDefaults.qps_per_context),
    number("thread_domains", &RdmaOptions::thread_domains, false, true, kDefaults.thread_domains));
const auto kRdmaSideFields = std::make_tuple(text("rdma_dev", &RdmaSideParams::device, 64, "an RDMA device name"));
}  // namespace

WireRange<uint32_t> wire_range(uint32_t RdmaOptions::*m) { return range_of(kRdmaFields, m); }

void check_rdma_options(const RdmaOptions& o) {
    auto in_range = [&](uint32_t RdmaOptions::*m, const char* option, const char* more) {
        auto r = wire_range(m);
        if (o.*m < r.lo || o.*m > r.hi)
            throw std::invalid_argument(fmt::format("{} must be {}..{}{}", option, r.lo, r.hi, more));
    };
    in_range(&RdmaOptions::tx_depth, "--tx-depth", "");
    in_range(&RdmaOptions::postlist, "--postlist", " and at most --tx-depth");
    in_range(&RdmaOptions::inline_size, "--inline", " bytes");
    in_range(&RdmaOptions::qps, "--qps", "");
    in_range(&RdmaOptions::qps_per_context, "--qps-per-context",
             " (0: every stream on rdma_cm's shared device context)");
    if (o.postlist > o.tx_depth)
        throw std::invalid_argument("--postlist must be at most --tx-depth (" + std::to_string(o.tx_depth) + ")");
}

bool takes_rdma_params(const TransportInfo& row) { return rdma_row(row); }

namespace {

void encode_rdma_params(const KindParams& params, nlohmann::json& j) {
    encode_fields(j, params.get(kRdmaParams), kRdmaFields);
}

void decode_rdma_params(const nlohmann::json& j, KindParams& params) {
    RdmaOptions& o = params.set(kRdmaParams);
    decode_fields(j, o, kRdmaFields);
    if (o.postlist > o.tx_depth) throw ProtocolError("field 'postlist' must not exceed 'tx_depth'");
}

void encode_rdma_side_params(const KindParams& params, nlohmann::json& j) {
    encode_fields(j, params.get(kRdmaSideParams), kRdmaSideFields);
}

void decode_rdma_side_params(const nlohmann::json& j, KindParams& params) {
    decode_fields(j, params.set(kRdmaSideParams), kRdmaSideFields);
}

const KindParamsWire kRdmaWire{
    .key = kRdmaParams.name, .takes = takes_rdma_params, .encode = encode_rdma_params, .decode = decode_rdma_params};
const KindParamsWire kRdmaSideWire{.key = kRdmaSideParams.name,
                                   .per_side = true,
                                   .takes = takes_rdma_params,
                                   .encode = encode_rdma_side_params,
                                   .decode = decode_rdma_side_params};
const KindParamsWire* const kRdmaWires[] = {&kRdmaWire, &kRdmaSideWire};

}  // namespace

std::span<const KindParamsWire* const> rdma_params_wires() { return kRdmaWires; }

}  // namespace zc
