#include "protocol/messages.hpp"

#include <algorithm>

#include "protocol/json_fields.hpp"

namespace zc {

namespace {

template <class... Ts>
struct Overloaded : Ts... {
    using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

std::vector<std::string> string_list(const nlohmann::json& j, const char* name) {
    auto it = j.find(name);
    if (it == j.end() || !it->is_array() || it->size() > 256) {
        throw ProtocolError(std::string("field '") + name + "' must be a list of at most 256 names");
    }
    std::vector<std::string> out;
    for (const auto& v : *it) {
        if (!v.is_string()) throw ProtocolError(std::string("field '") + name + "' holds a non-string");
        out.push_back(value_as<std::string>(v, name));
    }
    return out;
}

std::vector<int> int_list(const nlohmann::json& j, const char* name) {
    auto it = j.find(name);
    if (it == j.end() || !it->is_array() || it->size() > 65536) {
        throw ProtocolError(std::string("field '") + name + "' must be a list of numbers");
    }
    std::vector<int> out;
    for (const auto& v : *it) {
        out.push_back(value_as<int>(v, name));
    }
    return out;
}

}  // namespace

std::string utf8_prefix(const std::string& s, size_t max_bytes) {
    if (s.size() <= max_bytes) return s;
    size_t n = max_bytes;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;  // not inside a character
    return s.substr(0, n);
}

nlohmann::json to_json(const Topology& t) {
    nlohmann::json nodes = nlohmann::json::array();
    for (const auto& [node, cpus] : t.node_cpus) nodes.push_back({{"node", node}, {"cpus", cpus}});
    nlohmann::json devices = nlohmann::json::array();
    for (const auto& d : t.devices) {
        devices.push_back({{"kind", d.kind},
                           {"name", d.name},
                           {"pci", d.pci},
                           {"numa_node", d.numa_node},
                           {"pcie_path", d.pcie_path}});
    }
    return {{"nodes", nodes}, {"devices", devices}};
}

Topology topology_from_json(const nlohmann::json& j) {
    Topology t;
    const auto& nodes = j.at("nodes");
    const auto& devices = j.at("devices");
    if (!nodes.is_array() || nodes.size() > 1024 || !devices.is_array() || devices.size() > 4096) {
        throw ProtocolError("field 'topology' is malformed");
    }
    for (const auto& n : nodes) t.node_cpus[field_in<int>(n, "node", 0, 65535)] = int_list(n, "cpus");
    for (const auto& d : devices) {
        t.devices.push_back(
            {field<std::string>(d, "kind"), field<std::string>(d, "name"), field<std::string>(d, "pci"),
             field_in<int>(d, "numa_node", -1, 65535),
             d.contains("pcie_path") ? field<std::string>(d, "pcie_path") : std::string()});  // optional: older peers
    }
    return t;
}

nlohmann::json to_json(const HostInfo& h) {
    return {{"topology", to_json(h.topology)},
            {"hostname", h.hostname},
            {"kernel", h.kernel},
            {"boot_id", h.boot_id},
            {"pid", h.pid},
            {"cpus", h.cpus},
            {"numa_nodes", h.numa_nodes},
            {"transports", h.transports},
            {"memory_types", h.memory_types}};
}

HostInfo host_info_from_json(const nlohmann::json& j) {
    HostInfo h;
    h.hostname = field<std::string>(j, "hostname");
    h.kernel = field<std::string>(j, "kernel");
    h.boot_id = field<std::string>(j, "boot_id");
    h.pid = field<int>(j, "pid");
    h.cpus = int_list(j, "cpus");
    h.numa_nodes = int_list(j, "numa_nodes");
    h.transports = string_list(j, "transports");
    h.memory_types = string_list(j, "memory_types");
    h.topology = topology_from_json(j.at("topology"));
    return h;
}

bool Welcome::has_feature(const std::string& f) const {
    return std::find(features.begin(), features.end(), f) != features.end();
}

const char* message_name(const Message& m) {
    static constexpr const char* names[] = {"hello", "welcome", "setup", "ready", "start",   "started",
                                            "stop",  "result",  "error", "auth",  "interval"};
    return names[m.index()];
}

std::string encode_body(const Message& m) {
    nlohmann::json j =
        std::visit(Overloaded{
                       [](const Hello& h) -> nlohmann::json {
                           return {{"version", h.version},
                                   {"software", h.software},
                                   {"boot_id", h.boot_id},
                                   {"pid", h.pid},
                                   {"nonce", h.nonce}};
                       },
                       [](const Welcome& w) -> nlohmann::json {
                           nlohmann::json j = {{"version", w.version},
                                               {"software", w.software},
                                               {"auth_challenge", w.auth_challenge},
                                               {"auth_proof", w.auth_proof}};
                           if (w.has_host) {
                               j["host"] = to_json(w.host);
                               j["features"] = w.features;
                           }
                           return j;
                       },
                       [](const Auth& a) -> nlohmann::json {
                           return {{"proof", a.proof}};
                       },
                       [](const Setup& s) -> nlohmann::json {
                           return {{"spec", to_json(s.spec)}};
                       },
                       [](const Ready& r) -> nlohmann::json {
                           return {{"data_port", r.data_port}, {"token", r.token}, {"waited_s", r.waited_s}};
                       },
                       [](const Start&) -> nlohmann::json { return nlohmann::json::object(); },
                       [](const Started&) -> nlohmann::json { return nlohmann::json::object(); },
                       [](const Stop&) -> nlohmann::json { return nlohmann::json::object(); },
                       [](const ResultMsg& r) -> nlohmann::json {
                           return {{"side", to_json(r.side)}};
                       },
                       [](const ErrorMsg& e) -> nlohmann::json {
                           return {{"reason", e.reason}};
                       },
                       [](const IntervalMsg& i) -> nlohmann::json {
                           return {{"sample", to_json(i.sample)}};
                       },
                   },
                   m);
    j["type"] = message_name(m);
    // A reason may quote what a peer sent; never let bad UTF-8 there make encoding throw.
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string encode_message(const Message& m) { return encode_frame(encode_body(m)); }

Message decode_body(std::string_view body) {
    nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) throw ProtocolError("control message is not valid JSON");
    if (!j.is_object()) throw ProtocolError("control message is not a JSON object");
    std::string type = field<std::string>(j, "type");
    try {
        if (type == "hello") {
            // The version is checked before anything else so that any later hello stays decodable.
            Hello h;
            h.version = field<int>(j, "version");
            h.software = field_or<std::string>(j, "software", "");
            h.boot_id = field_or<std::string>(j, "boot_id", "");
            h.pid = field_or<int>(j, "pid", 0);
            h.nonce = field_or<std::string>(j, "nonce", "");
            if (h.nonce.size() > 256) throw ProtocolError("field 'nonce' is too long");
            return h;
        }
        if (type == "welcome") {
            Welcome w;
            w.version = field<int>(j, "version");
            w.software = field_or<std::string>(j, "software", "");
            w.auth_challenge = field_or<std::string>(j, "auth_challenge", "");
            w.auth_proof = field_or<std::string>(j, "auth_proof", "");
            w.has_host = w.version == kProtocolVersion && j.contains("host");
            if (w.has_host) w.host = host_info_from_json(j.at("host"));
            if (w.has_host && j.contains("features")) w.features = string_list(j, "features");  // absent: older
            return w;
        }
        if (type == "auth") {
            Auth a{field<std::string>(j, "proof")};
            if (a.proof.size() > 256) throw ProtocolError("field 'proof' is too long");
            return a;
        }
        if (type == "setup") return Setup{server_spec_from_json(j.at("spec"))};
        if (type == "ready") {
            Ready r;
            r.data_port = static_cast<uint16_t>(field_in<int>(j, "data_port", 1, 65535));
            r.token = field<uint64_t>(j, "token");
            r.waited_s = j.contains("waited_s") ? field_in<double>(j, "waited_s", 0, kMaxWaitS) : 0;  // older servers
            return r;
        }
        if (type == "start") return Start{};
        if (type == "started") return Started{};
        if (type == "stop") return Stop{};
        if (type == "result") return ResultMsg{side_result_from_json(j.at("side"))};
        if (type == "interval") return IntervalMsg{side_interval_from_json(j.at("sample"))};
        if (type == "error") {
            return ErrorMsg{utf8_prefix(field<std::string>(j, "reason"), 4096)};
        }
    } catch (const nlohmann::json::exception& e) {
        throw ProtocolError("malformed '" + type + "' message: " + e.what());
    }
    throw ProtocolError("unknown control message type '" + utf8_prefix(type, 64) + "'");
}

}  // namespace zc
