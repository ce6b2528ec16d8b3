#include "system/topology.hpp"

#include <dirent.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <sys/socket.h>

#include <filesystem>
#include <fstream>

#include "system/cpu_list.hpp"
#include "system/pcie_relation.hpp"

namespace zc {

namespace fs = std::filesystem;

namespace {

std::string read_line(const fs::path& p) {
    std::ifstream in(p);
    std::string s;
    std::getline(in, s);
    return s;
}

int read_node(const fs::path& device_dir) {
    std::string s = read_line(device_dir / "numa_node");
    try {
        return s.empty() ? -1 : std::stoi(s);
    } catch (...) {
        return -1;
    }
}

// The PCI function a device hangs off: the nearest ancestor named like 0000:00:03.0.
std::string pci_of(const fs::path& device_link) {
    std::error_code ec;
    fs::path real = fs::canonical(device_link, ec);
    if (ec) return "";
    for (fs::path p = real; !p.empty() && p != p.root_path(); p = p.parent_path()) {
        std::string n = p.filename().string();
        if (n.size() == 12 && n[4] == ':' && n[7] == ':' && n[10] == '.') return n;
    }
    return "";
}

}  // namespace

Topology read_topology(const std::string& sysfs) {
    Topology t;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fs::path(sysfs) / "devices/system/node", ec)) {
        std::string n = e.path().filename().string();
        if (n.rfind("node", 0) != 0 || n.size() < 5 || !std::isdigit(static_cast<unsigned char>(n[4]))) continue;
        try {
            t.node_cpus[std::stoi(n.substr(4))] = parse_cpu_list(read_line(e.path() / "cpulist"));
        } catch (...) {}
    }
    for (const auto& e : fs::directory_iterator(fs::path(sysfs) / "class/net", ec)) {
        DeviceLocality d = interface_locality(e.path().filename().string(), sysfs);
        if (!d.pci.empty()) t.devices.push_back(d);
    }
    for (const auto& e : fs::directory_iterator(fs::path(sysfs) / "class/infiniband", ec)) {
        DeviceLocality d;
        d.kind = "rdma";
        d.name = e.path().filename().string();
        d.pci = pci_of(e.path() / "device");
        d.numa_node = read_node(e.path() / "device");
        d.pcie_path = pcie_path_of(e.path() / "device");
        t.devices.push_back(d);
    }
    return t;
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

DeviceLocality interface_locality(const std::string& iface, const std::string& sysfs) {
    DeviceLocality d;
    d.kind = "nic";
    d.name = iface;
    fs::path dev = fs::path(sysfs) / "class/net" / iface / "device";
    std::error_code ec;
    if (!fs::exists(dev, ec)) return d;  // virtual: lo, veth, bridges
    d.pci = pci_of(dev);
    d.pcie_path = pcie_path_of(dev);
    fs::path real = fs::canonical(dev, ec);
    // virtio: the net device hangs off virtioN under the PCI function, which holds numa_node.
    for (fs::path p = real; !ec && !p.empty() && p != p.root_path(); p = p.parent_path()) {
        if (fs::exists(p / "numa_node")) {
            d.numa_node = read_node(p);
            break;
        }
    }
    return d;
}

DeviceLocality pci_locality(const std::string& kind, const std::string& name, const std::string& pci,
                            const std::string& sysfs) {
    DeviceLocality d;
    d.kind = kind;
    d.name = name;
    d.pci = pci;
    if (pci.empty()) return d;
    fs::path dev = fs::path(sysfs) / "bus/pci/devices" / pci;
    d.numa_node = read_node(dev);
    d.pcie_path = pcie_path_of(dev);
    return d;
}

}  // namespace zc
