#include "system/topology.hpp"

#include <fmt/format.h>
#include <hwloc.h>
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <sys/socket.h>

#include <memory>

namespace zc {

namespace {

// One loaded hwloc topology, with the important I/O devices (NICs, HCAs, GPUs and the bridges
// above them). A machine hwloc cannot read gives an empty one: the report then knows no nodes.
class HwlocTopology {
public:
    explicit HwlocTopology(const std::string& xml) {
        hwloc_topology_t t = nullptr;
        if (hwloc_topology_init(&t) != 0) return;
        topo_.reset(t);
        hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
        if ((!xml.empty() && hwloc_topology_set_xml(t, xml.c_str()) != 0) || hwloc_topology_load(t) != 0) {
            topo_.reset();
        }
    }
    hwloc_topology_t get() const { return topo_.get(); }
    explicit operator bool() const { return topo_ != nullptr; }

private:
    struct Destroy {
        void operator()(hwloc_topology_t t) const { hwloc_topology_destroy(t); }
    };
    std::unique_ptr<hwloc_topology, Destroy> topo_;
};

std::string busid(const hwloc_obj_attr_u::hwloc_pcidev_attr_s& p) {
    return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", p.domain, p.bus, p.dev, p.func);
}

// This machine's topology is read once per process: hwloc's I/O discovery takes tens of ms (hundreds
// on a loaded machine), too much for every test's set-up. An XML file is read on each call.
template <typename Fn>
auto with_topology(const std::string& xml, Fn&& fn) {
    if (!xml.empty()) return fn(HwlocTopology(xml));
    static const HwlocTopology live("");
    return fn(live);
}

const hwloc_obj* pci_ancestor(const hwloc_obj* o) {
    while (o && o->type != HWLOC_OBJ_PCI_DEVICE) o = o->parent;
    return o;
}

// A device is local to a node when its nearest CPU-side ancestor covers exactly one node.
int node_of(hwloc_topology_t t, hwloc_obj* o) {
    hwloc_obj* a = hwloc_get_non_io_ancestor_obj(t, o);
    if (!a || !a->nodeset || hwloc_bitmap_weight(a->nodeset) != 1) return -1;
    return hwloc_bitmap_first(a->nodeset);
}

// "pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:00.0": the host bridge (named by its root bus, as
// sysfs names it) and every PCI bridge and function from there down to the device's function.
std::string pcie_path(const hwloc_obj* pci) {
    std::string path;
    for (const hwloc_obj* o = pci; o; o = o->parent) {
        if (o->type == HWLOC_OBJ_PCI_DEVICE) {
            path = "/" + busid(o->attr->pcidev) + path;
        } else if (o->type == HWLOC_OBJ_BRIDGE && o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI) {
            path = "/" + busid(o->attr->bridge.upstream.pci) + path;
        } else if (o->type == HWLOC_OBJ_BRIDGE) {
            const auto& down = o->attr->bridge.downstream.pci;
            return fmt::format("pci{:04x}:{:02x}", down.domain, down.secondary_bus) + path;
        } else {
            break;
        }
    }
    return "";  // not below a host bridge
}

DeviceLocality locality_of(hwloc_topology_t t, const std::string& kind, const std::string& name, hwloc_obj* o) {
    DeviceLocality d;
    d.kind = kind;
    d.name = name;
    if (const hwloc_obj* pci = pci_ancestor(o)) {
        d.pci = busid(pci->attr->pcidev);
        d.pcie_path = pcie_path(pci);
    }
    d.numa_node = node_of(t, o);
    return d;
}

const char* kind_of(const hwloc_obj* osdev) {
    switch (osdev->attr->osdev.type) {
        case HWLOC_OBJ_OSDEV_NETWORK:
            return "nic";
        case HWLOC_OBJ_OSDEV_OPENFABRICS:
            return "rdma";
        default:
            return nullptr;
    }
}

}  // namespace

Topology read_topology(const std::string& hwloc_xml) {
    return with_topology(hwloc_xml, [](const HwlocTopology& topo) {
        Topology out;
        if (!topo) return out;
        hwloc_topology_t t = topo.get();
        for (hwloc_obj* n = nullptr; (n = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, n));) {
            auto& cpus = out.node_cpus[static_cast<int>(n->os_index)];
            unsigned cpu;
            hwloc_bitmap_foreach_begin(cpu, n->cpuset) cpus.push_back(static_cast<int>(cpu));
            hwloc_bitmap_foreach_end();
        }
        for (hwloc_obj* o = nullptr; (o = hwloc_get_next_osdev(t, o));) {
            const char* kind = kind_of(o);
            if (kind && pci_ancestor(o)) out.devices.push_back(locality_of(t, kind, o->name, o));
        }
        return out;
    });
}

int node_of_cpu(const Topology& t, int cpu) {
    for (const auto& [node, cpus] : t.node_cpus)
        for (int c : cpus)
            if (c == cpu) return node;
    return -1;
}

std::string interface_of_address(const std::string& address) {
    ifaddrs* list = nullptr;
    if (getifaddrs(&list) != 0) return "";
    std::string found;
    for (ifaddrs* i = list; i && found.empty(); i = i->ifa_next) {
        if (!i->ifa_addr || (i->ifa_addr->sa_family != AF_INET && i->ifa_addr->sa_family != AF_INET6)) continue;
        char host[NI_MAXHOST];
        socklen_t len = i->ifa_addr->sa_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
        if (getnameinfo(i->ifa_addr, len, host, sizeof(host), nullptr, 0, NI_NUMERICHOST) != 0) continue;
        std::string h = host;
        if (auto pct = h.find('%'); pct != std::string::npos) h.resize(pct);  // fe80::1%eth0
        if (h == address) found = i->ifa_name;
    }
    freeifaddrs(list);
    return found;
}

std::string interface_of_socket(int fd) {
    sockaddr_storage ss{};
    socklen_t len = sizeof(ss);
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return {};
    char text[INET6_ADDRSTRLEN] = {};
    const void* a = ss.ss_family == AF_INET6
                        ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&ss)->sin6_addr)
                        : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&ss)->sin_addr);
    if (!inet_ntop(ss.ss_family, a, text, sizeof(text))) return {};
    return interface_of_address(text);
}

DeviceLocality interface_locality(const std::string& iface, const std::string& hwloc_xml) {
    return with_topology(hwloc_xml, [&](const HwlocTopology& topo) {
        for (hwloc_obj* o = nullptr; topo && (o = hwloc_get_next_osdev(topo.get(), o));) {
            if (o->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK && o->name && iface == o->name) {
                return locality_of(topo.get(), "nic", iface, o);
            }
        }
        DeviceLocality d;  // virtual: lo, veth, bridges (hwloc lists devices on PCI only)
        d.kind = "nic";
        d.name = iface;
        return d;
    });
}

DeviceLocality pci_locality(const std::string& kind, const std::string& name, const std::string& pci,
                            const std::string& hwloc_xml) {
    DeviceLocality d;
    d.kind = kind;
    d.name = name;
    d.pci = pci;
    if (pci.empty()) return d;
    return with_topology(hwloc_xml, [&](const HwlocTopology& topo) {
        hwloc_obj* o = topo ? hwloc_get_pcidev_by_busidstring(topo.get(), pci.c_str()) : nullptr;
        if (o) {
            d.numa_node = node_of(topo.get(), o);
            d.pcie_path = pcie_path(o);
        }
        return d;
    });
}

}  // namespace zc
