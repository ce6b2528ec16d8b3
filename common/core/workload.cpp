#include "core/workload.hpp"

#include <array>
#include <stdexcept>

namespace zc {

namespace {

constexpr std::array kWorkloads{
    WorkloadRow{Workload::stream, "stream", "client sends"},
    WorkloadRow{Workload::maerts, "maerts", "server sends"},
    WorkloadRow{Workload::rr, "rr", "request/response latency: one message each way per transaction"},
    WorkloadRow{Workload::msgrate, "msgrate", "message rate"},
    WorkloadRow{Workload::crr, "crr",
                "a new TCP connection per transaction: connect, request, response, close; netperf's TCP_CRR"},
    WorkloadRow{Workload::cc, "cc", "connect and close only"},
};

}  // namespace

std::span<const WorkloadRow> workload_rows() { return kWorkloads; }

const char* workload_name(Workload t) {
    for (const auto& w : kWorkloads)
        if (w.workload == t) return w.name;
    return "?";
}

std::string workload_help() {
    std::string out;
    for (size_t i = 0; i < kWorkloads.size(); ++i) {
        out += i == 0 ? "" : i + 1 == kWorkloads.size() ? " or " : ", ";
        out += std::string(kWorkloads[i].name) + " (" + kWorkloads[i].what + ")";
    }
    return out;
}

Workload workload_from_name(const std::string& name) {
    for (const auto& w : kWorkloads)
        if (name == w.name) return w.workload;
    throw std::invalid_argument("unknown test '" + name + "'; use " + workload_help());
}

const char* role_name(Role r) { return r == Role::send ? "send" : "recv"; }
Role server_role(Workload t) { return t == Workload::maerts ? Role::send : Role::recv; }
Role client_role(Workload t) { return t == Workload::maerts ? Role::recv : Role::send; }

}  // namespace zc
