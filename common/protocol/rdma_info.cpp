#include "protocol/rdma_info.hpp"

#include <cstdio>
#include <cstdlib>

#include "protocol/json_fields.hpp"

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

nlohmann::json to_json(const RdmaInfo& r) {
    // Every variable of the list, null where unset: "not set" is recorded, not left to be assumed.
    nlohmann::json env = nlohmann::json::object();
    for (const auto& v : kDoorbellEnv) env[v.name] = nullptr;
    for (const auto& [name, value] : r.doorbell_env) env[name] = value;
    return {{"device", r.device},
            {"provider", r.provider},
            {"doorbell_env", env},
            {"thread_domains", r.thread_domains},
            {"port", r.port},
            {"gid_index", r.gid_index},
            {"mtu", r.mtu},
            {"link_layer", r.link_layer},
            {"cq_mode", r.cq_mode},
            {"qps", r.qps},
            {"registration_ms", r.registration_ms},
            {"registered_bytes", r.registered_bytes},
            {"credit_waits", r.credit_waits},
            {"gpu_path", r.gpu_path},
            {"gpu_path_note", r.gpu_path_note},
            {"stage_slots", r.stage_slots},
            {"contexts_opened", r.contexts_opened},
            {"max_inline", r.max_inline},
            {"inline_sends", r.inline_sends},
            {"data_sends", r.data_sends},
            {"post_calls", r.post_calls},
            {"rr_wait", r.rr_wait}};
}

RdmaInfo rdma_info_from_json(const nlohmann::json& j) {
    RdmaInfo r;
    r.device = field<std::string>(j, "device");
    r.port = field_in<int>(j, "port", 0, 255);
    r.gid_index = field_in<int>(j, "gid_index", -1, 1 << 20);
    r.mtu = field_in<int>(j, "mtu", 0, 1 << 20);
    r.link_layer = field<std::string>(j, "link_layer");
    r.cq_mode = field<std::string>(j, "cq_mode");
    r.qps = field<uint32_t>(j, "qps");
    r.registration_ms = field_in<double>(j, "registration_ms", 0.0, 1e9);
    r.registered_bytes = field<uint64_t>(j, "registered_bytes");
    r.credit_waits = field<uint64_t>(j, "credit_waits");
    // Added with GPU memory on verbs: absent from older peers.
    if (j.contains("gpu_path")) r.gpu_path = field<std::string>(j, "gpu_path");
    if (j.contains("gpu_path_note")) r.gpu_path_note = field<std::string>(j, "gpu_path_note");
    if (j.contains("stage_slots")) r.stage_slots = field<uint32_t>(j, "stage_slots");
    // Absent in an older peer's result: keep the zeros.
    if (j.contains("contexts_opened")) r.contexts_opened = field_in<uint32_t>(j, "contexts_opened", 0, 1 << 20);
    if (j.contains("max_inline")) r.max_inline = field_in<uint32_t>(j, "max_inline", 0, 1 << 20);
    if (j.contains("inline_sends")) r.inline_sends = field<uint64_t>(j, "inline_sends");
    if (j.contains("data_sends")) r.data_sends = field<uint64_t>(j, "data_sends");
    if (j.contains("post_calls")) r.post_calls = field<uint64_t>(j, "post_calls");
    if (j.contains("rr_wait")) r.rr_wait = field<std::string>(j, "rr_wait");
    if (j.contains("provider")) r.provider = field<std::string>(j, "provider");
    if (r.provider.size() > kMaxEnvText) throw ProtocolError("field 'provider' is longer than 256 characters");
    if (j.contains("thread_domains")) r.thread_domains = field_in<uint32_t>(j, "thread_domains", 0, 1 << 20);
    if (j.contains("doorbell_env")) {
        const auto& env = j["doorbell_env"];
        if (!env.is_object() || env.size() > kMaxDoorbellEnv) {
            throw ProtocolError("field 'doorbell_env' must be an object of at most " + std::to_string(kMaxDoorbellEnv) +
                                " variables");
        }
        for (const auto& [name, value] : env.items()) {
            if (value.is_null()) continue;  // not set on that side
            std::string text = value_as<std::string>(value, "doorbell_env." + name);
            if (name.empty() || name.size() > kMaxEnvText || text.size() > kMaxEnvText) {
                throw ProtocolError("field 'doorbell_env' has a name or value of 0 or more than 256 characters");
            }
            r.doorbell_env[name] = std::move(text);
        }
    }
    return r;
}

std::string describe(const RdmaInfo& r) {
    // snprintf rather than fmt: the protocol files also build alone (the fuzzer links no fmt).
    char b[160];
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
        std::snprintf(b, sizeof(b), "; registration %.2f ms for %llu B, outside the interval", r.registration_ms,
                      static_cast<unsigned long long>(r.registered_bytes));
        out += b;
    } else if (r.cq_mode.empty()) {
        out += "; rsockets register their own buffers at connection time";
    }
    if (r.credit_waits) out += "; " + std::to_string(r.credit_waits) + " waits for receiver credits";
    if (r.contexts_opened)
        out += "; " + std::to_string(r.contexts_opened) + " device context(s) opened (--qps-per-context)";
    if (r.data_sends) {
        std::snprintf(b, sizeof(b), "; %llu data WRs in %llu ibv_post_send calls, %llu inline (max_inline %u)",
                      static_cast<unsigned long long>(r.data_sends), static_cast<unsigned long long>(r.post_calls),
                      static_cast<unsigned long long>(r.inline_sends), r.max_inline);
        out += b;
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

}  // namespace zc
