#include "rdma/rdma_info.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <limits>

#include "protocol/field_table.hpp"
#include "protocol/result.hpp"

namespace zc {

namespace {
// Bounds on what a peer's doorbell_env may hold (its list may be newer than ours, so names are not
// checked against kDoorbellEnv, only bounded).
constexpr size_t kMaxDoorbellEnv = 32;
constexpr size_t kMaxEnvText = 256;
}  // namespace

std::map<std::string, std::string> doorbell_env_now() {
    std::map<std::string, std::string> env;
    for (const auto& v : kDoorbellEnv)
        if (const char* value = std::getenv(v.name)) env[v.name] = value;
    return env;
}

void RdmaInfo::add(const RdmaInfo& o) {
    if (device.empty()) {
        device = o.device;
        provider = o.provider;
        doorbell_env = o.doorbell_env;
        port = o.port;
        gid_index = o.gid_index;
        mtu = o.mtu;
        link_layer = o.link_layer;
    }
    if (cq_mode.empty()) cq_mode = o.cq_mode;
    if (gpu_path.empty()) {
        gpu_path = o.gpu_path;
        gpu_path_note = o.gpu_path_note;
    }
    stage_slots += o.stage_slots;
    qps += o.qps;
    registration_ms += o.registration_ms;
    registered_bytes += o.registered_bytes;
    credit_waits += o.credit_waits;
    contexts_opened += o.contexts_opened;
    if (max_inline == 0 || (o.max_inline && o.max_inline < max_inline)) max_inline = o.max_inline;
    inline_sends += o.inline_sends;
    data_sends += o.data_sends;
    post_calls += o.post_calls;
    if (rr_wait.empty()) rr_wait = o.rr_wait;
    thread_domains += o.thread_domains;
}

namespace {

// Every variable of the list, null where unset: "not set" is recorded, not left to be assumed.
nlohmann::json doorbell_env_json(const std::map<std::string, std::string>& set) {
    nlohmann::json env = nlohmann::json::object();
    for (const auto& v : kDoorbellEnv) env[v.name] = nullptr;
    for (const auto& [name, value] : set) env[name] = value;
    return env;
}
std::map<std::string, std::string> doorbell_env_from_json(const nlohmann::json& env) {
    if (!env.is_object() || env.size() > kMaxDoorbellEnv) {
        throw ProtocolError("field 'doorbell_env' must be an object of at most " + std::to_string(kMaxDoorbellEnv) +
                            " variables");
    }
    std::map<std::string, std::string> out;
    for (const auto& [name, value] : env.items()) {
        if (value.is_null()) continue;  // not set on that side
        std::string text = value_as<std::string>(value, "doorbell_env." + name);
        if (name.empty() || name.size() > kMaxEnvText || text.size() > kMaxEnvText)
            throw ProtocolError("field 'doorbell_env' has a name or value of 0 or more than 256 characters");
        out[name] = std::move(text);
    }
    return out;
}

constexpr uint32_t kAnyU32 = std::numeric_limits<uint32_t>::max();
constexpr uint64_t kAnyU64 = std::numeric_limits<uint64_t>::max();

// The wire fields, one line each (field_table.hpp). Those added after the first RDMA release are
// optional: an older peer leaves them out and they keep their zeros / "".
const auto kRdmaInfoFields = std::make_tuple(
    str("device", &RdmaInfo::device), number("port", &RdmaInfo::port, 0, 255),
    number("gid_index", &RdmaInfo::gid_index, -1, 1 << 20), number("mtu", &RdmaInfo::mtu, 0, 1 << 20),
    str("link_layer", &RdmaInfo::link_layer), str("cq_mode", &RdmaInfo::cq_mode), number("qps", &RdmaInfo::qps),
    number("registration_ms", &RdmaInfo::registration_ms, 0.0, 1e9),
    number("registered_bytes", &RdmaInfo::registered_bytes), number("credit_waits", &RdmaInfo::credit_waits),
    // Added with GPU memory on verbs.
    optional(str("gpu_path", &RdmaInfo::gpu_path)), optional(str("gpu_path_note", &RdmaInfo::gpu_path_note)),
    number("stage_slots", &RdmaInfo::stage_slots, 0, kAnyU32, 0),
    // Added with --qps-per-context, --inline and --postlist, rr's wait, the provider and its env.
    number("contexts_opened", &RdmaInfo::contexts_opened, 0, 1 << 20, 0),
    number("max_inline", &RdmaInfo::max_inline, 0, 1 << 20, 0),
    number("inline_sends", &RdmaInfo::inline_sends, 0, kAnyU64, 0),
    number("data_sends", &RdmaInfo::data_sends, 0, kAnyU64, 0),
    number("post_calls", &RdmaInfo::post_calls, 0, kAnyU64, 0), optional(str("rr_wait", &RdmaInfo::rr_wait)),
    optional(str("provider", &RdmaInfo::provider, kMaxEnvText)),
    number("thread_domains", &RdmaInfo::thread_domains, 0, 1 << 20, 0),
    optional(custom("doorbell_env", &RdmaInfo::doorbell_env, doorbell_env_json, doorbell_env_from_json)));

}  // namespace

nlohmann::json to_json(const RdmaInfo& r) { return encoded(r, kRdmaInfoFields); }
RdmaInfo rdma_info_from_json(const nlohmann::json& j) { return decoded<RdmaInfo>(j, kRdmaInfoFields); }

std::string describe(const RdmaInfo& r) {
    std::string out = r.device.empty() ? std::string("rsockets") : r.device + " port " + std::to_string(r.port);
    if (!r.provider.empty()) out += " (provider " + r.provider + ")";
    if (r.gid_index >= 0) out += ", GID index " + std::to_string(r.gid_index);
    if (r.mtu > 0) out += ", MTU " + std::to_string(r.mtu);
    if (!r.link_layer.empty()) out += ", " + r.link_layer;
    if (r.qps > 0) out += ", " + std::to_string(r.qps) + (r.qps == 1 ? " QP" : " QPs");
    if (!r.cq_mode.empty())
        out += ", CQ " + r.cq_mode +
               (r.cq_mode == "poll" ? " (busy-polling shows as user time)" : " (completion channel)");
    if (r.registered_bytes > 0) {
        out += fmt::format("; registration {:.2f} ms for {} B, outside the interval", r.registration_ms,
                           r.registered_bytes);
    } else if (r.cq_mode.empty()) {
        out += "; rsockets register their own buffers at connection time";
    }
    if (r.credit_waits) out += "; " + std::to_string(r.credit_waits) + " waits for receiver credits";
    if (r.contexts_opened)
        out += "; " + std::to_string(r.contexts_opened) + " device context(s) opened (--qps-per-context)";
    if (r.data_sends) {
        out += fmt::format("; {} data WRs in {} ibv_post_send calls, {} inline (max_inline {})", r.data_sends,
                           r.post_calls, r.inline_sends, r.max_inline);
    }
    if (!r.rr_wait.empty()) out += "; arrival seen by " + r.rr_wait;
    if (r.thread_domains) {
        out += "; " + std::to_string(r.thread_domains) +
               " thread domain(s), CQ and QPs in a parent domain per thread "
               "(--thread-domains)";
    }
    if (!r.doorbell_env.empty()) {
        out += "; doorbell env:";
        for (const auto& [name, value] : r.doorbell_env) out += " " + name + "=" + value;
    }
    return out;
}

namespace {

std::vector<std::string> human_lines(const RdmaInfo& r, const SideResult&) { return {"rdma: " + describe(r)}; }

// The columns' names as they were before the block (readers find them by name): each its wire field's, the
// device's facts prefixed rdma_ (local_rdma_device, local_cq_mode, local_registration_ms).
std::vector<std::string> csv_columns() {
    using R = RdmaInfo;
    const auto& t = kRdmaInfoFields;
    auto device = [&](auto member) { return std::string("rdma_") + name_of(t, member); };
    return {device(&R::device),
            device(&R::port),
            device(&R::gid_index),
            device(&R::mtu),
            device(&R::link_layer),
            name_of(t, &R::cq_mode),
            name_of(t, &R::qps),
            name_of(t, &R::registration_ms),
            name_of(t, &R::registered_bytes),
            name_of(t, &R::credit_waits),
            device(&R::provider),
            name_of(t, &R::thread_domains),
            name_of(t, &R::doorbell_env),
            name_of(t, &R::contexts_opened)};
}

std::vector<std::string> csv_cells(const RdmaInfo& r) {
    std::string env;  // NAME=VALUE of the doorbell variables set on that side, space-separated
    for (const auto& [name, value] : r.doorbell_env) env += (env.empty() ? "" : " ") + name + "=" + value;
    auto n = [](auto v) { return fmt::format("{}", v); };
    return {r.device,
            n(r.port),
            n(r.gid_index),
            n(r.mtu),
            r.link_layer,
            r.cq_mode,
            n(r.qps),
            fmt::format("{:.3f}", r.registration_ms),
            n(r.registered_bytes),
            n(r.credit_waits),
            r.provider,
            n(r.thread_domains),
            env,
            n(r.contexts_opened)};
}

// Verbs posts work requests itself (a CQ mode is its mark; rsockets do their own): how many, chained how,
// inline how often, and how rr's side saw its message arrive.
std::string messages_measured(const RdmaInfo& r, const SideResult& side, Workload test, uint32_t batch) {
    if (r.cq_mode.empty()) return "rsend/rrecv (rsockets: copied through their registered buffers)";
    if (test == Workload::msgrate) {
        return fmt::format(
            "one {} work request each, up to {} chained per ibv_post_send ({} calls for {} requests), {} posted "
            "inline (max_inline {}); the receiver checks each message's pattern and returns credits; CQ {}",
            side.path == "rdma-write" ? "RDMA WRITE" : "SEND", batch, r.post_calls, r.data_sends, r.inline_sends,
            r.max_inline, r.cq_mode);
    }
    return fmt::format("arrival seen by {}; {} of {} messages posted inline (max_inline {}); CQ {}", r.rr_wait,
                       r.inline_sends, r.data_sends, r.max_inline, r.cq_mode);
}

constexpr KindBlockOf<RdmaInfo> kRdma = {.key = "rdma",
                                         .to_json = to_json,
                                         .from_json = rdma_info_from_json,
                                         .human_lines = human_lines,
                                         .csv_columns = csv_columns,
                                         .csv_cells = csv_cells,
                                         .check_sides = nullptr,  // each side's own facts: nothing to compare
                                         .csv_prefix = "",
                                         .messages_measured = messages_measured};
const KindBlockType kBlock = kind_block_type<kRdma>();

}  // namespace

const KindBlockType& rdma_block_type() { return kBlock; }

}  // namespace zc
