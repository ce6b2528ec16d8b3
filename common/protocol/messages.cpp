#include "protocol/messages.hpp"

#include <algorithm>
#include <climits>
#include <iterator>

#include "protocol/field_table.hpp"

namespace zc {

std::string utf8_prefix(const std::string& s, size_t max_bytes) {
    if (s.size() <= max_bytes) return s;
    size_t n = max_bytes;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;  // not inside a character
    return s.substr(0, n);
}

namespace {

// The wire fields of each message, one line each (field_table.hpp). Required unless marked.
const auto kToJson = [](const auto& v) { return to_json(v); };

// A NUMA node's CPUs: the topology's map, one object per node.
struct NodeCpus {
    int node = 0;
    std::vector<int> cpus;
};
const auto kNodeCpusFields =
    std::make_tuple(number("node", &NodeCpus::node, 0, 65535), list("cpus", &NodeCpus::cpus, 65536));
const List<Nested<NodeCpus, decltype(kNodeCpusFields)>> kNodeList{1024, {&kNodeCpusFields}};

nlohmann::json nodes_json(const std::map<int, std::vector<int>>& node_cpus) {
    std::vector<NodeCpus> nodes;
    for (const auto& [node, cpus] : node_cpus) nodes.push_back({node, cpus});
    return kNodeList.put(nodes);
}
std::map<int, std::vector<int>> nodes_from_json(const nlohmann::json& j, const char* name) {
    std::map<int, std::vector<int>> out;
    for (auto& n : kNodeList.get<std::vector<NodeCpus>>(j, name)) out[n.node] = std::move(n.cpus);
    return out;
}

const auto kDeviceFields =
    std::make_tuple(str("kind", &DeviceLocality::kind), str("name", &DeviceLocality::name),
                    str("pci", &DeviceLocality::pci), number("numa_node", &DeviceLocality::numa_node, -1, 65535),
                    optional(str("pcie_path", &DeviceLocality::pcie_path)));  // absent from older peers

const auto kTopologyFields = std::make_tuple(custom("nodes", &Topology::node_cpus, nodes_json, nodes_from_json),
                                             list("devices", &Topology::devices, 4096, kDeviceFields));

const auto kHostInfoFields = std::make_tuple(
    str("hostname", &HostInfo::hostname), str("kernel", &HostInfo::kernel), str("boot_id", &HostInfo::boot_id),
    number("pid", &HostInfo::pid), list("cpus", &HostInfo::cpus, 65536),
    list("numa_nodes", &HostInfo::numa_nodes, 65536), list("transports", &HostInfo::transports, 256),
    list("memory_types", &HostInfo::memory_types, 256), object("topology", &HostInfo::topology, kTopologyFields));

// Who speaks, first in a hello and a welcome: the version comes first, so any later hello or welcome
// stays decodable (their other fields are optional).
template <class M>
auto peer_fields() {
    return std::make_tuple(number("version", &M::version), optional(str("software", &M::software)));
}

const auto kHelloFields =
    std::tuple_cat(peer_fields<Hello>(), std::make_tuple(optional(str("boot_id", &Hello::boot_id)),
                                                         number("pid", &Hello::pid, INT_MIN, INT_MAX, 0),
                                                         optional(str("nonce", &Hello::nonce, 256))));

const auto kWelcomeFields =
    std::tuple_cat(peer_fields<Welcome>(), std::make_tuple(optional(str("auth_challenge", &Welcome::auth_challenge)),
                                                           optional(str("auth_proof", &Welcome::auth_proof))));
// Host facts, sent only to an authenticated client, and read only in this version's welcome.
bool has_host(const Welcome& w) { return w.has_host; }
const auto kWelcomeHostFields =
    std::make_tuple(sent_if(has_host, object("host", &Welcome::host, kHostInfoFields)),
                    sent_if(has_host, list("features", &Welcome::features, 256)));  // absent: an older server

const auto kAuthFields = std::make_tuple(str("proof", &Auth::proof, 256));
const auto kSetupFields = std::make_tuple(custom("spec", &Setup::spec, kToJson, half_spec_from_json));
const auto kReadyFields =
    std::make_tuple(number("data_port", &Ready::data_port, 1, 65535), number("token", &Ready::token),
                    number("waited_s", &Ready::waited_s, 0, kMaxWaitS, 0));  // absent: an older server
const auto kResultFields = std::make_tuple(custom("side", &ResultMsg::side, kToJson, side_result_from_json));
const auto kIntervalFields = std::make_tuple(custom("sample", &IntervalMsg::sample, kToJson, side_interval_from_json));
// A reason may quote what a peer sent: cut to 4 KiB on a character boundary, never refused for its length.
const auto kErrorFields = std::make_tuple(custom(
    "reason", &ErrorMsg::reason, [](const std::string& r) { return r; },
    [](const nlohmann::json& v, const char* name) { return utf8_prefix(value_as<std::string>(v, name), 4096); }));
const std::tuple<> kNoFields;

const auto& wire_fields(const Hello&) { return kHelloFields; }
const auto& wire_fields(const Welcome&) { return kWelcomeFields; }
const auto& wire_fields(const Auth&) { return kAuthFields; }
const auto& wire_fields(const Setup&) { return kSetupFields; }
const auto& wire_fields(const Ready&) { return kReadyFields; }
const auto& wire_fields(const ResultMsg&) { return kResultFields; }
const auto& wire_fields(const ErrorMsg&) { return kErrorFields; }
const auto& wire_fields(const IntervalMsg&) { return kIntervalFields; }
const auto& wire_fields(const Start&) { return kNoFields; }
const auto& wire_fields(const Started&) { return kNoFields; }
const auto& wire_fields(const Stop&) { return kNoFields; }

template <class M>
nlohmann::json encode_one(const M& m) {
    return encoded(m, wire_fields(m));
}
nlohmann::json encode_one(const Welcome& w) {
    nlohmann::json j = encoded(w, wire_fields(w));
    encode_fields(j, w, kWelcomeHostFields);
    return j;
}

template <class M>
Message decode_one(const nlohmann::json& j) {
    M m{};
    decode_fields(j, m, wire_fields(m));
    if constexpr (std::is_same_v<M, Welcome>) {
        m.has_host = m.version == kProtocolVersion && j.contains(std::get<0>(kWelcomeHostFields).name);
        if (m.has_host) decode_fields(j, m, kWelcomeHostFields);
    }
    return m;
}

// The decoder of the message type at index i of Message.
template <size_t... I>
Message decode_alternative(size_t i, const nlohmann::json& j, std::index_sequence<I...>) {
    static constexpr Message (*decoders[])(const nlohmann::json&) = {
        &decode_one<std::variant_alternative_t<I, Message>>...};
    return decoders[i](j);
}

// The type names, in Message's order.
constexpr const char* kMessageNames[] = {"hello", "welcome", "setup", "ready", "start",   "started",
                                         "stop",  "result",  "error", "auth",  "interval"};
static_assert(std::size(kMessageNames) == std::variant_size_v<Message>);
constexpr const char* kType = "type";

}  // namespace

nlohmann::json to_json(const Topology& t) { return encoded(t, kTopologyFields); }
Topology topology_from_json(const nlohmann::json& j) { return decoded<Topology>(j, kTopologyFields); }
nlohmann::json to_json(const HostInfo& h) { return encoded(h, kHostInfoFields); }
HostInfo host_info_from_json(const nlohmann::json& j) { return decoded<HostInfo>(j, kHostInfoFields); }

bool Welcome::has_feature(const std::string& f) const {
    return std::find(features.begin(), features.end(), f) != features.end();
}

const char* message_name(const Message& m) { return kMessageNames[m.index()]; }

std::string encode_body(const Message& m) {
    nlohmann::json j = std::visit([](const auto& x) { return encode_one(x); }, m);
    j[kType] = message_name(m);
    // A reason may quote what a peer sent; never let bad UTF-8 there make encoding throw.
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string encode_message(const Message& m) { return encode_frame(encode_body(m)); }

Message decode_body(std::string_view body) {
    nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) throw ProtocolError("control message is not valid JSON");
    if (!j.is_object()) throw ProtocolError("control message is not a JSON object");
    std::string type = field<std::string>(j, kType);
    auto it = std::find(std::begin(kMessageNames), std::end(kMessageNames), type);
    if (it == std::end(kMessageNames))
        throw ProtocolError("unknown control message type '" + utf8_prefix(type, 64) + "'");
    try {
        return decode_alternative(static_cast<size_t>(it - std::begin(kMessageNames)), j,
                                  std::make_index_sequence<std::variant_size_v<Message>>());
    } catch (const nlohmann::json::exception& e) {
        throw ProtocolError("malformed '" + type + "' message: " + e.what());
    }
}

}  // namespace zc
