#include "protocol/gpu_report.hpp"

#include "protocol/json_fields.hpp"

namespace zc {

nlohmann::json to_json(const GpuPlacement& g) {
    return {{"device", g.device},
            {"name", g.name},
            {"pci", g.pci},
            {"numa_node", g.numa_node},
            {"pcie_path", g.pcie_path},
            {"nic_relation", g.nic_relation},
            {"shares_root_port", g.shares_root_port}};
}

GpuPlacement gpu_placement_from_json(const nlohmann::json& j) {
    GpuPlacement g;
    g.device = field<std::string>(j, "device");
    g.name = field<std::string>(j, "name");
    g.pci = field<std::string>(j, "pci");
    g.numa_node = field_in<int>(j, "numa_node", -1, 65535);
    g.pcie_path = field<std::string>(j, "pcie_path");
    g.nic_relation = field<std::string>(j, "nic_relation");
    g.shares_root_port = field<bool>(j, "shares_root_port");
    return g;
}

nlohmann::json to_json(const MemoryReport& m) {
    const StagingCounts& s = m.staging;
    double copy_s = static_cast<double>(s.copy_ns) * 1e-9;
    return {{"buffer", m.buffer},
            {"gpu_path", m.gpu_path},
            {"gpu_path_note", m.gpu_path_note},
            {"stage_slot_bytes", m.stage_slot_bytes},
            {"stage_slots", m.stage_slots},
            {"stage_batch", m.stage_batch},
            {"staged_bytes", s.bytes},
            {"stage_copies", s.copies},
            {"stage_copy_ns", s.copy_ns},
            {"stage_wait_ns", s.wait_ns},
            {"stage_copy_s", copy_s},
            {"stage_copy_gbs", copy_s > 0 ? static_cast<double>(s.bytes) / copy_s / 1e9 : 0.0}};
}

MemoryReport memory_report_from_json(const nlohmann::json& j) {
    MemoryReport m;
    m.buffer = field<std::string>(j, "buffer");
    m.gpu_path = field<std::string>(j, "gpu_path");
    if (j.contains("gpu_path_note"))
        m.gpu_path_note = field<std::string>(j, "gpu_path_note");  // absent from older peers
    m.stage_slot_bytes = field<uint64_t>(j, "stage_slot_bytes");
    m.stage_slots = field_in<int>(j, "stage_slots", 0, 1024);
    m.stage_batch = field<uint64_t>(j, "stage_batch");
    m.staging.bytes = field<uint64_t>(j, "staged_bytes");
    m.staging.copies = field<uint64_t>(j, "stage_copies");
    m.staging.copy_ns = field<uint64_t>(j, "stage_copy_ns");
    m.staging.wait_ns = field<uint64_t>(j, "stage_wait_ns");
    return m;
}

}  // namespace zc
