#include "core/test_kind.hpp"

#include <stdexcept>

namespace zc {

const char* test_name(TestKind t) {
    switch (t) {
        case TestKind::stream:
            return "stream";
        case TestKind::maerts:
            return "maerts";
        case TestKind::rr:
            return "rr";
        case TestKind::msgrate:
            return "msgrate";
        case TestKind::crr:
            return "crr";
        case TestKind::cc:
            return "cc";
    }
    return "?";
}

TestKind test_from_name(const std::string& name) {
    if (name == "stream") return TestKind::stream;
    if (name == "maerts") return TestKind::maerts;
    if (name == "rr") return TestKind::rr;
    if (name == "msgrate") return TestKind::msgrate;
    if (name == "crr") return TestKind::crr;
    if (name == "cc") return TestKind::cc;
    throw std::invalid_argument("unknown test '" + name +
                                "'; use stream (client sends), maerts (server sends), "
                                "rr (request/response latency), msgrate (message rate), crr (a connection per "
                                "request/response) or cc (connect/close)");
}

const char* role_name(Role r) { return r == Role::send ? "send" : "recv"; }
Role server_role(TestKind t) { return t == TestKind::maerts ? Role::send : Role::recv; }
Role client_role(TestKind t) { return t == TestKind::maerts ? Role::recv : Role::send; }

}  // namespace zc
