#include "system/pcie_relation.hpp"

#include <vector>

namespace zc {

namespace {

std::vector<std::string> split_path(const std::string& p) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= p.size() && !p.empty()) {
        size_t slash = p.find('/', start);
        out.push_back(p.substr(start, slash == std::string::npos ? std::string::npos : slash - start));
        if (slash == std::string::npos) break;
        start = slash + 1;
    }
    return out;
}

}  // namespace

PcieRelation pcie_relation(const std::string& path_a, const std::string& path_b) {
    PcieRelation r;
    if (path_a.empty() || path_b.empty()) return r;
    auto a = split_path(path_a), b = split_path(path_b);
    if (a.size() < 2 || b.size() < 2) return r;
    size_t common = 0;
    while (common < a.size() && common < b.size() && a[common] == b[common]) ++common;
    if (common == 0) {
        r.link = PcieLink::different_host_bridges;
        return r;
    }
    r.common = a[common - 1];
    if (common == 1) {
        r.link = PcieLink::same_host_bridge;
    } else if (common == 2) {
        r.link = PcieLink::same_root_port;
    } else {
        r.link = PcieLink::same_switch;
    }
    return r;
}

std::string describe(const PcieRelation& r, const std::string& path_a, const std::string& path_b) {
    auto first = [](const std::string& p) { return p.substr(0, p.find('/')); };
    switch (r.link) {
        case PcieLink::same_switch:
            return "same PCIe switch (via " + r.common + ")";
        case PcieLink::same_root_port:
            return "same PCIe root port (" + r.common + ")";
        case PcieLink::same_host_bridge:
            return "different root ports of host bridge " + r.common + " (through the root complex)";
        case PcieLink::different_host_bridges:
            return "different host bridges (" + first(path_a) + " vs " + first(path_b) +
                   ": across the CPU interconnect)";
        case PcieLink::unknown:
            break;
    }
    return "unknown (not both on PCI)";
}

}  // namespace zc
