#pragma once
// The interrupts of the device that carries the data, and their CPU affinity: found through sysfs
// (interface -> PCI function -> msi_irqs) and /proc/interrupts, set for a test and always put back.
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace zc {

struct InterruptLine {
    int irq = 0;
    std::string name;               // the last column: "virtio2-input.0", "mlx5_comp3@pci:0000:3b:00.0"
    std::vector<uint64_t> per_cpu;  // interrupts taken on each CPU so far
    uint64_t total() const;
};

std::map<int, InterruptLine> parse_proc_interrupts(std::string_view text);
std::map<int, InterruptLine> read_proc_interrupts(const std::string& proc = "/proc");

// The data-path IRQs of a network interface (or an RDMA device with class "infiniband"): the MSI
// vectors of its PCI function, without the configuration / async-event vectors that carry no data.
// Empty for a virtual device (lo, veth): it has no interrupts of its own.
std::vector<int> device_irqs(const std::string& device_class, const std::string& name,
                             const std::map<int, InterruptLine>& interrupts, const std::string& sysfs = "/sys");

// The IRQs behind an RDMA device: its own PCI function's (mlx5), or for a software device on top
// of a network interface (rxe: class/infiniband/rxe0/parent) that interface's.
std::vector<int> rdma_device_irqs(const std::string& name, const std::map<int, InterruptLine>& interrupts,
                                  const std::string& sysfs = "/sys");

// Sets smp_affinity_list of each IRQ for its lifetime and puts the original back when destroyed,
// on any path out. A guardian process, forked before anything changes, restores the originals if
// this process dies without doing so (kill -9), so no run leaves an IRQ moved.
class IrqAffinityGuard {
public:
    // Throws std::runtime_error naming the IRQ and the cause (not root, a managed IRQ, ...); what
    // was already changed is restored first.
    IrqAffinityGuard(const std::vector<int>& irqs, const std::vector<int>& cpus, const std::string& proc = "/proc");
    IrqAffinityGuard(const IrqAffinityGuard&) = delete;
    IrqAffinityGuard& operator=(const IrqAffinityGuard&) = delete;
    ~IrqAffinityGuard();

    const std::map<int, std::string>& originals() const { return originals_; }

private:
    void restore() noexcept;
    void start_guardian();
    void stop_guardian() noexcept;

    std::string proc_;
    std::map<int, std::string> originals_;  // irq -> the list that was there
    std::vector<int> changed_;
    pid_t guardian_ = -1;
    int guardian_pipe_ = -1;
};

std::string read_irq_affinity(int irq, const std::string& proc = "/proc");

}  // namespace zc
