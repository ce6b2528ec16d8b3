#include "protocol/run_spec.hpp"

#include <stdexcept>

#include "core/pacer.hpp"
#include "protocol/field_table.hpp"
#include "protocol/kind_params_wire.hpp"

namespace zc {

uint64_t stream_share(uint64_t total, int streams, int i) {
    uint64_t base = total / static_cast<uint64_t>(streams);
    return base + (static_cast<uint64_t>(i) < total % static_cast<uint64_t>(streams) ? 1 : 0);
}

namespace {

// The wire fields of a setup message, one line each (field_table.hpp). duration_s may be 0 only with
// a byte total, and alignment must be a power of two: check_params below.
const auto kTestParamFields =
    std::make_tuple(named("transport", &TestParams::transport, transport_name, transport_from_name),
                    named("test", &TestParams::test, workload_name, workload_from_name),
                    named("rx", &TestParams::rx, rx_mode_name, rx_mode_from_name),
                    number("message_size", &TestParams::message_size, 1, kMaxMessageSize),
                    number("total_bytes", &TestParams::total_bytes, 0, 1ull << 50),
                    number("duration_s", &TestParams::duration_s, 0, kMaxDurationS),
                    number("streams", &TestParams::streams, 1, kMaxStreams),
                    number("alignment", &TestParams::alignment, 1, kMaxAlignment),
                    number("batch", &TestParams::batch, 1, kMaxBatch, 1),  // absent (an older client): one per call
                    number("interval_s", &TestParams::interval_s, 0, kMaxDurationS, 0),  // absent: no intervals
                    number("explain_hz", &TestParams::explain_hz, 0, 100000, 0),         // absent: no explain
                    number("explain_stacks", &TestParams::explain_stacks, false, true, false),
                    number("irq_wait_s", &TestParams::irq_wait_s, 0, kMaxWaitS, 0),  // absent: refused at once
                    number("server_wait_s", &TestParams::server_wait_s, 0, kMaxWaitS, 0),
                    number("bitrate", &TestParams::bitrate, 0, kMaxBitrate, 0));  // absent: unpaced

const auto kSideFields = std::make_tuple(
    cpu_list("cpus", &SideSpec::cpus), number("socket_buffer", &SideSpec::socket_buffer, 0, kMaxSocketBuffer),
    number("mem_node", &SideSpec::mem_node, -1, 65535), cpu_list("irq_cpus", &SideSpec::irq_cpus),
    // Optional: a peer that predates GPU buffers sends neither and means host memory.
    named("buffer", &SideSpec::buffer, buffer_spec_name, buffer_spec_from_name, true),
    named("gpu_path", &SideSpec::gpu_path, gpu_path_name, gpu_path_from_name, true));

void check_params(const TestParams& p) {
    if (!p.total_bytes && p.duration_s < 0.01) {
        throw ProtocolError("field 'duration_s' = " + nlohmann::json(p.duration_s).dump() + " is outside [0.01, " +
                            nlohmann::json(kMaxDurationS).dump() + "] (0 only with total_bytes)");
    }
    if ((p.alignment & (p.alignment - 1)) != 0) throw ProtocolError("field 'alignment' must be a power of two");
    if (p.bitrate != 0 && p.bitrate < kMinBitrate)
        throw ProtocolError("field 'bitrate' must be 0 (unpaced) or at least 1000 bits/s");
    if (p.interval_s != 0 && (p.interval_s < 0.01 || (!p.total_bytes && p.interval_s > p.duration_s)))
        throw ProtocolError("field 'interval_s' must be 0 (off) or from 0.01 s to the test's duration");
}

}  // namespace

nlohmann::json to_json(const HalfSpec& s) {
    nlohmann::json j;
    encode_fields(j, static_cast<const TestParams&>(s), kTestParamFields);
    encode_fields(j, s.side, kSideFields);
    for (const auto* w : kind_params_wires())
        if (w->takes(transport_info(s.transport))) w->encode(w->per_side ? s.side.kind_params : s.kind_params, j);
    return j;
}

HalfSpec side_half(const TestSpec& spec, const SideSpec& side) {
    HalfSpec h{spec, side};
    for (const auto* w : kind_params_wires()) {
        KindParams& params = w->per_side ? h.side.kind_params : h.kind_params;
        if (!w->takes(transport_info(h.transport)))
            params.erase(w->key);
        else if (w->resolve)
            w->resolve(h, params);
    }
    return h;
}

WireRange<uint64_t> wire_range(uint64_t TestParams::*m) { return range_of(kTestParamFields, m); }
WireRange<uint32_t> wire_range(uint32_t TestParams::*m) { return range_of(kTestParamFields, m); }
WireRange<int> wire_range(int TestParams::*m) { return range_of(kTestParamFields, m); }
WireRange<double> wire_range(double TestParams::*m) { return range_of(kTestParamFields, m); }
WireRange<uint64_t> wire_range(uint64_t SideSpec::*m) { return range_of(kSideFields, m); }
WireRange<int> wire_range(int SideSpec::*m) { return range_of(kSideFields, m); }

HalfSpec half_spec_from_json(const nlohmann::json& j) {
    HalfSpec s;
    decode_fields(j, static_cast<TestParams&>(s), kTestParamFields);
    check_params(s);
    decode_fields(j, s.side, kSideFields);
    if (s.side.buffer.per_local_rank())
        throw ProtocolError("field 'buffer' = " + buffer_spec_name(s.side.buffer) + ": the client must name the GPU");
    for (const auto* w : kind_params_wires())  // another kind's fields (none a client sends) are not read
        if (w->takes(transport_info(s.transport))) w->decode(j, w->per_side ? s.side.kind_params : s.kind_params);
    return s;
}

}  // namespace zc
