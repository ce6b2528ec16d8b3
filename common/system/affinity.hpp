#pragma once
// Pinning threads to CPUs and learning which CPUs this process may use.
#include <vector>

namespace zc {

// CPUs this process may run on (sched_getaffinity), ascending.
std::vector<int> allowed_cpus();

// Pins the calling thread to one CPU. Throws std::runtime_error naming the CPU and the allowed set.
void pin_current_thread(int cpu);

// The CPU the calling thread runs on now.
int current_cpu();

}  // namespace zc
