#include "protocol/gpu_report.hpp"

#include "protocol/field_table.hpp"

namespace zc {

namespace {

// The wire fields, one line each (field_table.hpp): all required, as every peer has sent them.
const auto kGpuPlacementFields = std::make_tuple(
    str("device", &GpuPlacement::device), str("name", &GpuPlacement::name), str("pci", &GpuPlacement::pci),
    number("numa_node", &GpuPlacement::numa_node, -1, 65535), str("pcie_path", &GpuPlacement::pcie_path),
    str("nic_relation", &GpuPlacement::nic_relation), number("shares_root_port", &GpuPlacement::shares_root_port));

// The staging counts sit in the memory object itself, beside its other fields.
const auto kStagingFields =
    std::make_tuple(number("staged_bytes", &StagingCounts::bytes), number("stage_copies", &StagingCounts::copies),
                    number("stage_copy_ns", &StagingCounts::copy_ns), number("stage_wait_ns", &StagingCounts::wait_ns));

double copy_s(const MemoryReport& m) { return static_cast<double>(m.staging.copy_ns) * 1e-9; }

const auto kMemoryReportFields = std::make_tuple(
    str("buffer", &MemoryReport::buffer), str("gpu_path", &MemoryReport::gpu_path),
    optional(str("gpu_path_note", &MemoryReport::gpu_path_note)),  // absent from older peers
    number("stage_slot_bytes", &MemoryReport::stage_slot_bytes),
    number("stage_slots", &MemoryReport::stage_slots, 0, 1024), number("stage_batch", &MemoryReport::stage_batch),
    flat(&MemoryReport::staging, kStagingFields),
    // For readers: the copies' GPU time and rate.
    derived<MemoryReport>("stage_copy_s", copy_s), derived<MemoryReport>("stage_copy_gbs", [](const MemoryReport& m) {
        double s = copy_s(m);
        return s > 0 ? static_cast<double>(m.staging.bytes) / s / 1e9 : 0.0;
    }));

}  // namespace

nlohmann::json to_json(const GpuPlacement& g) { return encoded(g, kGpuPlacementFields); }
GpuPlacement gpu_placement_from_json(const nlohmann::json& j) { return decoded<GpuPlacement>(j, kGpuPlacementFields); }
void MemoryReport::registered_gpu_path(const std::string& path, const std::string& note, uint32_t slots,
                                       uint64_t message_size) {
    if (gpu_path.empty() || path.empty()) return;
    const bool staged = path == "staged";
    gpu_path = path;
    gpu_path_note = note;
    stage_slot_bytes = staged ? message_size : 0;
    stage_slots = staged ? static_cast<int>(slots) : 0;
    stage_batch = staged ? 1 : 0;
}

nlohmann::json to_json(const MemoryReport& m) { return encoded(m, kMemoryReportFields); }
MemoryReport memory_report_from_json(const nlohmann::json& j) { return decoded<MemoryReport>(j, kMemoryReportFields); }

}  // namespace zc
