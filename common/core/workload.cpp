#include "core/workload.hpp"

#include <stdexcept>

namespace zc {

const char* workload_name(Workload t) {
    switch (t) {
        case Workload::stream:
            return "stream";
        case Workload::maerts:
            return "maerts";
        case Workload::rr:
            return "rr";
        case Workload::msgrate:
            return "msgrate";
        case Workload::crr:
            return "crr";
        case Workload::cc:
            return "cc";
    }
    return "?";
}

Workload workload_from_name(const std::string& name) {
    if (name == "stream") return Workload::stream;
    if (name == "maerts") return Workload::maerts;
    if (name == "rr") return Workload::rr;
    if (name == "msgrate") return Workload::msgrate;
    if (name == "crr") return Workload::crr;
    if (name == "cc") return Workload::cc;
    throw std::invalid_argument("unknown test '" + name +
                                "'; use stream (client sends), maerts (server sends), "
                                "rr (request/response latency), msgrate (message rate), crr (a connection per "
                                "request/response) or cc (connect/close)");
}

const char* role_name(Role r) { return r == Role::send ? "send" : "recv"; }
Role server_role(Workload t) { return t == Workload::maerts ? Role::send : Role::recv; }
Role client_role(Workload t) { return t == Workload::maerts ? Role::recv : Role::send; }

}  // namespace zc
