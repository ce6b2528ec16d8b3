#include "topology_report.hpp"

#include <fmt/format.h>

#include "protocol/messages.hpp"
#include "system/cpu_list.hpp"
#include "system/irq.hpp"
#include "system/pcie_relation.hpp"

namespace zc {

namespace {

struct GpuNicLink {
    std::string gpu, nic, relation;
    bool shares_root_port = false;
};

// Every GPU against every PCI network / RDMA device of one host, from the PCIe paths it reported.
std::vector<GpuNicLink> gpu_nic_links(const Topology& t) {
    std::vector<GpuNicLink> out;
    for (const auto& g : t.devices) {
        if (g.kind != "gpu") continue;
        for (const auto& n : t.devices) {
            if (n.kind == "gpu" || n.pci.empty()) continue;
            PcieRelation r = pcie_relation(g.pcie_path, n.pcie_path);
            out.push_back({g.name + " (" + g.pci + ")", n.name + " (" + n.pci + ")",
                           describe(r, g.pcie_path, n.pcie_path), r.shares_root_port()});
        }
    }
    return out;
}

std::string node_text(int node) {
    return node < 0 ? "node ? (not reported: one node, or the firmware is silent)" : "node " + std::to_string(node);
}

void write_host(std::ostream& out, const HostInfo& h, const char* role, bool with_irqs) {
    out << fmt::format("{} ({}), kernel {}\n", h.hostname, role, h.kernel);
    for (const auto& [node, cpus] : h.topology.node_cpus)
        out << fmt::format("  NUMA node {}: CPUs {}\n", node, format_cpu_list(cpus));
    auto interrupts = with_irqs ? read_proc_interrupts() : std::map<int, InterruptLine>{};
    for (const auto& d : h.topology.devices) {
        out << fmt::format("  {:<5} {:<12} {:<13} {}\n", d.kind, d.name, d.pci, node_text(d.numa_node));
        if (!with_irqs) continue;
        auto irqs = d.kind == "rdma" ? rdma_device_irqs(d.name, interrupts) : device_irqs("net", d.name, interrupts);
        for (int irq : irqs) {
            auto it = interrupts.find(irq);
            out << fmt::format("        IRQ {:<5} {:<28} CPUs {}\n", irq,
                               it == interrupts.end() ? "?" : it->second.name, read_irq_affinity(irq));
        }
    }
    if (h.topology.devices.empty()) out << "  no PCI network or RDMA devices\n";
    for (const auto& l : gpu_nic_links(h.topology)) {
        out << fmt::format("  PCIe  {} <-> {}: {}{}\n", l.gpu, l.nic, l.relation,
                           l.shares_root_port
                               ? ""
                               : "\n        warning: no common root port: GPU<->NIC traffic (GPUDirect RDMA, "
                                 "staging) crosses the root complex or the CPU interconnect");
    }
}

}  // namespace

// Each host's heading, in both formats.
constexpr const char* kLocal = "local";
constexpr const char* kRemote = "remote";

void write_topology(std::ostream& out, const std::string& format, const HostInfo& local,
                    const std::vector<HostInfo>& remotes) {
    if (format == "json") {
        auto host_json = [](const HostInfo& h) {
            nlohmann::json links = nlohmann::json::array();
            for (const auto& l : gpu_nic_links(h.topology)) {
                links.push_back({{"gpu", l.gpu},
                                 {"nic", l.nic},
                                 {"relation", l.relation},
                                 {"shares_root_port", l.shares_root_port}});
            }
            auto j = to_json(h);
            j["gpu_nic_pcie"] = links;
            return j;
        };
        nlohmann::json remote = nlohmann::json::array();
        for (const auto& r : remotes) remote.push_back(host_json(r));
        nlohmann::json j = {{kLocal, host_json(local)}, {kRemote, remote}};
        out << j.dump(2) << "\n";
        return;
    }
    write_host(out, local, kLocal, true);
    for (const auto& r : remotes) write_host(out, r, kRemote, false);
}

}  // namespace zc
