#pragma once
// The interrupts of the device that carries the data, and their CPU affinity: found through sysfs
// (interface -> PCI function -> msi_irqs) and /proc/interrupts, set for a test and always put back.
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "system/run_dir.hpp"

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

// Who moves IRQs, for the other tests of this host to read when they find them taken.
struct IrqClaim {
    std::string program = "zcperf";  // "zcserver", "zcperf-mpi rank 3"
    std::string peer;                // the other side of the test ("10.0.0.2:12875")
    double wait_s = 0;               // --irq-wait: how long to wait for an IRQ another test holds (0: refuse)
    std::string run_dir;             // the host's irq/ directory; "" = host_run_dir("irq")
    // Told once when a wait begins (wait_s > 0), naming the holder: a test that waits says why it sits still.
    std::function<void(const std::string&)> on_wait = {};
};

// Sets smp_affinity_list of each IRQ for its lifetime and puts the original back when destroyed, on
// any path out, coordinated with every other test of this host (zcperf, zcserver sessions, zcperf-mpi
// ranks) through the run directory's irq/ files:
// - N.lock: an OFD lock per IRQ (run_dir.hpp), held while the IRQ is moved; its text names the holder
//   (pid, program, peer, CPUs, since when), written just after locking and cleared just before unlocking. An IRQ
//   another test holds is refused, naming that holder, or waited for up to IrqClaim::wait_s.
// - N.original: what the IRQ had before the first mover, written once by the mover that found none and
//   removed by whoever puts it back; a later mover never overwrites it with a moved value.
// A guardian process, forked before anything changes and keeping the lock descriptors, puts the
// originals back if this process dies without doing so (kill -9) and only then lets the locks go.
// If the guardian dies too, the next guard on this host (or zcserver starting) finds N.original with
// nobody holding N.lock and puts it back (restore_abandoned_irqs).
class IrqAffinityGuard {
public:
    // Throws std::runtime_error naming the IRQ and the cause (held by another test, not root, a managed
    // IRQ, ...); what was already changed is restored first.
    IrqAffinityGuard(const std::vector<int>& irqs, const std::vector<int>& cpus, const IrqClaim& claim = {},
                     const std::string& proc = "/proc");
    IrqAffinityGuard(const IrqAffinityGuard&) = delete;
    IrqAffinityGuard& operator=(const IrqAffinityGuard&) = delete;
    ~IrqAffinityGuard();

    const std::map<int, std::string>& originals() const { return originals_; }
    double waited_s() const { return waited_s_; }  // for IRQs other tests held (--irq-wait)

private:
    void acquire(int irq, const IrqClaim& claim, const std::string& cpus, double deadline);
    void restore() noexcept;
    void start_guardian();
    void stop_guardian() noexcept;
    void release_locks() noexcept;

    // How long a refused test waits for a holder that has taken an IRQ's lock to write its name.
    static constexpr double kUnnamedHolderGrace_s = 0.5;

    std::string proc_;
    std::string dir_;
    std::map<int, std::string> originals_;  // irq -> the list that was there before the first mover
    std::vector<LockedFile> locks_;         // one per IRQ, in the order of irqs
    std::vector<int> changed_;
    double waited_s_ = 0;
    bool said_wait_ = false;  // claim.on_wait was called
    pid_t guardian_ = -1;
    int guardian_pipe_ = -1;
};

// The guardian step of a process starting up: every IRQ whose N.original is left with no holder of
// N.lock (its holder and that holder's guardian were killed) is put back. Returns those IRQs.
std::vector<int> restore_abandoned_irqs(const std::string& proc = "/proc", const std::string& run_dir = "");

// The text of an IRQ refusal's holder: "zcperf pid 812 (peer 10.0.0.2:12875), CPUs 0, for 4.2 s".
std::string describe_irq_holder(const KeyValues& holder, double now_s);

std::string read_irq_affinity(int irq, const std::string& proc = "/proc");

}  // namespace zc
