#pragma once
// What one side's RDMA data path really ran on, read back from the device (issue #5 item 3) and the
// cost of registering its memory, measured before the interval (item 2). Empty for TCP paths.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace zc {

struct RdmaInfo {
    std::string device;        // e.g. "rxe0", "mlx5_0": the one the route to the peer went through
    int port = 0;
    int gid_index = -1;        // the source GID rdma_cm chose (RoCE: the address's GID)
    int mtu = 0;               // the path MTU the QPs run with, bytes
    std::string link_layer;    // "InfiniBand", "Ethernet" (RoCE) ...
    std::string cq_mode;       // "poll" or "event"; "" for rsockets (they do their own)
    uint32_t qps = 0;          // queue pairs, all streams
    double registration_ms = 0;  // ibv_reg_mr (or riomap) of the data buffers, summed; outside the interval
    uint64_t registered_bytes = 0;
    uint64_t credit_waits = 0;   // times the sender had to wait for the receiver to free slots
    // Verbs with GPU (or sim-gpu) memory: the path this side's data memory took ("direct" or
    // "staged") and why ("direct refused: ibv_reg_dmabuf_mr: Operation not supported"); "" otherwise.
    std::string gpu_path;
    std::string gpu_path_note;
    uint32_t stage_slots = 0;    // staged: bounce slots (one message each), all streams
    uint32_t contexts_opened = 0;  // device contexts this side opened itself (--qps-per-context); 0: rdma_cm's
    uint32_t max_inline = 0;       // the QPs' max_inline_data in force (what the device granted)
    uint64_t inline_sends = 0;     // data work requests posted with IBV_SEND_INLINE
    uint64_t data_sends = 0;       // data work requests posted (sends, writes, reads)
    uint64_t post_calls = 0;       // ibv_post_send calls that carried them (--postlist chains)
    std::string rr_wait;           // rr: how a side learns its message arrived ("receive completion", ...)

    bool empty() const { return device.empty() && cq_mode.empty() && registered_bytes == 0; }
    void add(const RdmaInfo& o);  // a stream's into the side's: counts summed, the device kept
};

nlohmann::json to_json(const RdmaInfo& r);
RdmaInfo rdma_info_from_json(const nlohmann::json& j);  // throws ProtocolError
std::string describe(const RdmaInfo& r);  // one human line: "rxe0 port 1, GID 1, MTU 4096, Ethernet; ..."

}  // namespace zc
