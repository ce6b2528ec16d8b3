// The RDMA device under a connection: its facts for the report (device, provider, port, link, MTU,
// GID index) and the checks that one is there and is the one --rdma-dev asked for.
#include <cstring>
#include <stdexcept>

#include "rdma/provider_name.hpp"
#include "rdma/rdma_call.hpp"
#include "rdma/rdma_connection.hpp"
#include "rdma/sockaddr_text.hpp"

namespace zc {

using rdma_call::mtu_bytes;

namespace {

const char* link_layer_name(uint8_t ll) {
    switch (ll) {
        case IBV_LINK_LAYER_INFINIBAND:
            return "InfiniBand";
        case IBV_LINK_LAYER_ETHERNET:
            return "Ethernet (RoCE)";
        default:
            return "unspecified";
    }
}

}  // namespace

void fill_device_info(rdma_cm_id* id, RdmaInfo& info) {
    ibv_context* ctx = id->verbs;
    info.device = ibv_get_device_name(ctx->device);
    info.provider = provider_name(ctx->device);
    info.doorbell_env = doorbell_env_now();
    info.port = id->port_num;
    ibv_port_attr pa{};
    if (ibv_query_port(ctx, id->port_num, &pa) != 0) return;
    info.link_layer = link_layer_name(pa.link_layer);
    info.mtu = mtu_bytes(pa.active_mtu);
    // The GID index rdma_cm's source GID sits at (RoCE v2 preferred when v1 and v2 share it).
    ibv_gid sgid{};
    std::memcpy(&sgid, &id->route.addr.addr.ibaddr.sgid, sizeof(sgid));
    for (int i = 0; i < pa.gid_tbl_len; ++i) {
        ibv_gid g{};
        if (ibv_query_gid(ctx, id->port_num, i, &g) != 0) continue;
        if (std::memcmp(&g, &sgid, sizeof(g)) != 0) continue;
        ibv_gid_entry entry{};
        bool v2 = ibv_query_gid_ex(ctx, id->port_num, i, &entry, 0) == 0 && entry.gid_type == IBV_GID_TYPE_ROCE_V2;
        if (info.gid_index < 0 || v2) info.gid_index = i;
        if (v2) break;
    }
}

RdmaInfo device_info_for(const std::string& local_address) {
    RdmaInfo info;
    try {
        CmEventChannel ch(rdma_create_event_channel());
        rdma_cm_id* raw = nullptr;
        if (!ch || rdma_create_id(ch.get(), &raw, nullptr, RDMA_PS_TCP) != 0) return info;
        CmId id(raw);
        sockaddr_storage ss = numeric_sockaddr(local_address, 0);
        if (rdma_bind_addr(id.get(), reinterpret_cast<sockaddr*>(&ss)) == 0 && id->verbs)
            fill_device_info(id.get(), info);
    } catch (const std::exception&) {}
    return info;
}

void require_wanted_device(const std::string& wanted, const std::string& used) {
    if (wanted.empty() || wanted == used) return;
    throw std::runtime_error("--rdma-dev " + wanted + " was asked for, but the route to the peer goes through " +
                             (used.empty() ? std::string("no RDMA device") : used) + ": give the peer an address on " +
                             wanted + "'s interface");
}

void require_rdma_device() {
    int n = 0;
    ibv_device** list = ibv_get_device_list(&n);
    if (list) ibv_free_device_list(list);
    if (n <= 0) {
        throw std::runtime_error(
            "no RDMA device on this host (ibv_get_device_list found none, /sys/class/infiniband is empty): "
            "RDMA transports need an RDMA NIC with its driver loaded, or Soft-RoCE: 'modprobe rdma_rxe && rdma link "
            "add rxe0 type rxe netdev IFACE'");
    }
}

}  // namespace zc
