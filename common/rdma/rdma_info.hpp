#pragma once
// What one side's RDMA data path really ran on, read back from the device and the
// cost of registering its memory, measured before the interval (item 2).
// It is the RDMA kinds' block (protocol/kind_block.hpp) under the key "rdma", written by the rsocket and
// verbs kinds (rdma/rdma_block.cpp registers it): the human report's "rdma:" line, the CSV's RDMA columns
// (their names as before: local_rdma_device, local_cq_mode ...) and a message test's words on how its
// messages were posted are its hooks; the wire is as it was (the block at the side's top level).
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "protocol/kind_block.hpp"

namespace zc {

// The environment variables of rdma-core's providers that change how a post reaches the device
// (BlueFlame/write-combined copy of the WQE vs a doorbell, and the locks around it): the one list of
// them. Read by each side when it opens its device, so two runs that differ only there can be told
// apart (rdma-core's providers/mlx5/mlx5.c and providers/cxgb4/dev.c read them).
struct DoorbellEnvVar {
    const char* name;
    const char* effect;
};
inline constexpr DoorbellEnvVar kDoorbellEnv[] = {
    {"MLX5_SHUT_UP_BF", "mlx5: not 0 = no BlueFlame, every post rings a doorbell"},
    {"MLX5_POST_SEND_PREFER_BF", "mlx5: 0 = BlueFlame only for inline/small posts (default: whenever it can)"},
    {"MLX5_SINGLE_THREADED", "mlx5: 1 = no locks (QP, CQ, doorbell register)"},
    {"MLX5_TOTAL_UUARS", "mlx5: doorbell registers (bfregs) per context, so how many QPs share one"},
    {"MLX5_NUM_LOW_LAT_UUARS", "mlx5: bfregs reserved for one QP each (lock-free BlueFlame)"},
    {"T5_ENABLE_WC", "cxgb4: 1 = write-combined WQE push on T5 (BlueFlame's counterpart)"},
};
// Those of kDoorbellEnv set in this process, name -> value.
std::map<std::string, std::string> doorbell_env_now();

struct RdmaInfo {
    std::string device;  // e.g. "rxe0", "mlx5_0": the one the route to the peer went through
    int port = 0;
    int gid_index = -1;          // the source GID rdma_cm chose (RoCE: the address's GID)
    int mtu = 0;                 // the path MTU the QPs run with, bytes
    std::string link_layer;      // "InfiniBand", "Ethernet" (RoCE) ...
    std::string cq_mode;         // "poll" or "event"; "" for rsockets (they do their own)
    uint32_t qps = 0;            // queue pairs, all streams
    double registration_ms = 0;  // ibv_reg_mr (or riomap) of the data buffers, summed; outside the interval
    uint64_t registered_bytes = 0;
    uint64_t credit_waits = 0;  // times the sender had to wait for the receiver to free slots
    // Verbs with GPU (or sim-gpu) memory: the path this side's data memory took ("direct" or
    // "staged") and why ("direct refused: ibv_reg_dmabuf_mr: Operation not supported"); "" otherwise.
    std::string gpu_path;
    std::string gpu_path_note;
    uint32_t stage_slots = 0;      // staged: bounce slots (one message each), all streams
    uint32_t contexts_opened = 0;  // device contexts this side opened itself (--qps-per-context); 0: rdma_cm's
    uint32_t max_inline = 0;       // the QPs' max_inline_data in force (what the device granted)
    uint64_t inline_sends = 0;     // data work requests posted with IBV_SEND_INLINE
    uint64_t data_sends = 0;       // data work requests posted (sends, writes, reads)
    uint64_t post_calls = 0;       // ibv_post_send calls that carried them (--postlist chains)
    std::string rr_wait;           // rr: how a side learns its message arrived ("receive completion", ...)
    uint32_t thread_domains = 0;   // --thread-domains: ibv_td + parent domain pairs in use (0: not in force)
    // Declared last, so that the brace-initialised fixtures above keep their order.
    std::string provider{};  // the device's driver, as libibverbs matches its provider: "rxe", "mlx5", ...
    std::map<std::string, std::string> doorbell_env{};  // kDoorbellEnv's variables set on this side, name -> value

    void add(const RdmaInfo& o);  // a stream's into the side's: counts summed, the device kept
};

nlohmann::json to_json(const RdmaInfo& r);
RdmaInfo rdma_info_from_json(const nlohmann::json& j);  // throws ProtocolError
std::string describe(const RdmaInfo& r);                // one human line: "rxe0 port 1, GID 1, MTU 4096, Ethernet; ..."

// The block's table (key "rdma"), which the kind's description lists (rdma_info.cpp).
const KindBlockType& rdma_block_type();

}  // namespace zc
