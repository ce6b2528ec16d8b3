#include "transport/transport_registry.hpp"

#include <stdexcept>

namespace zc {

const std::vector<TransportInfo>& transport_table() {
    static const std::vector<TransportInfo> table = {
        {Transport::tcp, "tcp", "TCP with copies: send() and recv() through the socket buffers"},
    };
    return table;
}

std::vector<std::string> available_transports() {
    std::vector<std::string> out;
    for (const auto& t : transport_table()) out.emplace_back(t.name);
    return out;
}

Transport transport_from_name(std::string_view name) {
    std::string known;
    for (const auto& t : transport_table()) {
        if (name == t.name) return t.id;
        known += known.empty() ? "" : ", ";
        known += t.name;
    }
    throw std::invalid_argument("unknown transport '" + std::string(name) + "'; this build has: " + known);
}

const char* transport_name(Transport t) {
    for (const auto& e : transport_table())
        if (e.id == t) return e.name;
    return "?";
}

}  // namespace zc
