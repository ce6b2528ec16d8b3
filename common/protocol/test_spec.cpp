#include "protocol/test_spec.hpp"

#include <stdexcept>

#include "protocol/json_fields.hpp"

namespace zc {

const char* test_name(TestKind t) {
    switch (t) {
        case TestKind::stream: return "stream";
        case TestKind::maerts: return "maerts";
        case TestKind::rr: return "rr";
        case TestKind::msgrate: return "msgrate";
    }
    return "?";
}

TestKind test_from_name(const std::string& name) {
    if (name == "stream") return TestKind::stream;
    if (name == "maerts") return TestKind::maerts;
    if (name == "rr") return TestKind::rr;
    if (name == "msgrate") return TestKind::msgrate;
    throw std::invalid_argument("unknown test '" + name + "'; use stream (client sends), maerts (server sends), "
                                "rr (request/response latency) or msgrate (message rate)");
}

const char* role_name(Role r) { return r == Role::send ? "send" : "recv"; }
Role server_role(TestKind t) { return t == TestKind::maerts ? Role::send : Role::recv; }
Role client_role(TestKind t) { return t == TestKind::maerts ? Role::recv : Role::send; }

ServerSpec side_half(const TestSpec& spec, const SideSpec& side) {
    return {spec.transport, spec.test,      spec.message_size, spec.duration_s, spec.total_bytes,
            spec.streams,   spec.alignment, spec.rx,           spec.uring_fixed, side, spec.batch, spec.rdma, spec.rcv_lowat};
}

uint64_t stream_share(uint64_t total, int streams, int i) {
    uint64_t base = total / static_cast<uint64_t>(streams);
    return base + (static_cast<uint64_t>(i) < total % static_cast<uint64_t>(streams) ? 1 : 0);
}

nlohmann::json to_json(const ServerSpec& s) {
    nlohmann::json j = {{"transport", transport_name(s.transport)},
            {"test", test_name(s.test)},
            {"message_size", s.message_size},
            {"duration_s", s.duration_s},
            {"total_bytes", s.total_bytes},
            {"streams", s.streams},
            {"alignment", s.alignment},
            {"rx", rx_mode_name(s.rx)},
            {"uring_fixed", s.uring_fixed},
            {"cpus", s.side.cpus},
            {"socket_buffer", s.side.socket_buffer},
            {"mem_node", s.side.mem_node},
            {"irq_cpus", s.side.irq_cpus},
            {"batch", s.batch},
            {"rcv_lowat", s.rcv_lowat},
            {"buffer", buffer_spec_name(s.side.buffer)},
            {"gpu_path", gpu_path_name(s.side.gpu_path)}};
    if (is_rdma(s.transport)) {
        add_rdma_options(j, s.rdma);
        j["rdma_dev"] = s.side.rdma_dev;
    }
    return j;
}

namespace {
std::vector<int> cpu_array(const nlohmann::json& j, const char* name) {
    auto it = j.find(name);
    if (it == j.end() || !it->is_array() || it->size() > 4096) {
        throw ProtocolError(std::string("field '") + name + "' must be an array of at most 4096 CPU numbers");
    }
    std::vector<int> out;
    for (const auto& c : *it) {
        int cpu = value_as<int>(c, name);
        if (cpu < 0 || cpu > 65535) throw ProtocolError(std::string("field '") + name + "' holds something that is not a CPU number");
        out.push_back(cpu);
    }
    return out;
}
}  // namespace

ServerSpec server_spec_from_json(const nlohmann::json& j) {
    ServerSpec s;
    try {
        s.transport = transport_from_name(field<std::string>(j, "transport"));
        s.test = test_from_name(field<std::string>(j, "test"));
        s.rx = rx_mode_from_name(field<std::string>(j, "rx"));
    } catch (const std::invalid_argument& e) {
        throw ProtocolError(e.what());
    }
    s.message_size = field_in<uint64_t>(j, "message_size", 1, kMaxMessageSize);
    s.total_bytes = field_in<uint64_t>(j, "total_bytes", 0, 1ull << 50);
    s.duration_s = field_in<double>(j, "duration_s", s.total_bytes ? 0.0 : 0.01, kMaxDurationS);
    s.streams = field_in<int>(j, "streams", 1, kMaxStreams);
    s.alignment = field_in<uint64_t>(j, "alignment", 1, kMaxAlignment);
    if ((s.alignment & (s.alignment - 1)) != 0) throw ProtocolError("field 'alignment' must be a power of two");
    s.uring_fixed = field<bool>(j, "uring_fixed");
    s.side.socket_buffer = field_in<uint64_t>(j, "socket_buffer", 0, kMaxSocketBuffer);
    s.side.mem_node = field_in<int>(j, "mem_node", -1, 65535);
    s.side.cpus = cpu_array(j, "cpus");
    s.side.irq_cpus = cpu_array(j, "irq_cpus");
    s.batch = field_or<uint32_t>(j, "batch", 1);  // absent from older clients
    if (s.batch < 1 || s.batch > kMaxBatch) throw ProtocolError("field 'batch' must be 1.." + std::to_string(kMaxBatch));
    s.rcv_lowat = field_or<uint64_t>(j, "rcv_lowat", 1);  // absent from older clients
    if (s.rcv_lowat < 1 || s.rcv_lowat > kMaxSocketBuffer) {
        throw ProtocolError("field 'rcv_lowat' must be 1.." + std::to_string(kMaxSocketBuffer));
    }
    s.rdma = rdma_options_from_json(j);
    if (j.contains("rdma_dev")) {
        s.side.rdma_dev = field<std::string>(j, "rdma_dev");
        if (s.side.rdma_dev.size() > 64) throw ProtocolError("field 'rdma_dev' is longer than an RDMA device name");
    }
    // Optional: a peer that predates GPU buffers sends neither and means host memory.
    try {
        if (j.contains("buffer")) s.side.buffer = buffer_spec_from_name(field<std::string>(j, "buffer"));
        if (j.contains("gpu_path")) s.side.gpu_path = gpu_path_from_name(field<std::string>(j, "gpu_path"));
    } catch (const std::invalid_argument& e) {
        throw ProtocolError(e.what());
    }
    return s;
}

}  // namespace zc
