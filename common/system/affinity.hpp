#pragma once
// Pinning threads to CPUs and learning which CPUs this process may use.
#include <string>
#include <vector>

namespace zc {

// CPUs this process may run on (sched_getaffinity), ascending.
std::vector<int> allowed_cpus();

// CPUs the host has online (/sys/devices/system/cpu/online), ascending; 0..N-1 of sysconf's online count
// when unreadable.
// What an IRQ may be moved to: a launcher's binding of this process (mpirun binds each rank to a core)
// says nothing about where the host's interrupts may go; --explain samples every one of them.
std::vector<int> online_cpus(const std::string& sysfs = "/sys");

// Pins the calling thread to one CPU. Throws std::runtime_error naming the CPU and the allowed set.
void pin_current_thread(int cpu);

// The CPU the calling thread runs on now.
int current_cpu();

}  // namespace zc
