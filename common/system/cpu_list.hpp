#pragma once
// CPU lists: the kernel's "0-3,8" (sysfs, /proc/irq/N/smp_affinity_list) and zcperf's per-side
// form "0+2+4" or "0-3" (the comma already separates local from remote in --cpu L,R).
#include <string>
#include <string_view>
#include <vector>

namespace zc {

// Parses items separated by `separator`, each "N" or "A-B". Throws std::invalid_argument.
std::vector<int> parse_cpu_list(std::string_view text, char separator = ',');

// {0,1,2,3,8} -> "0-3,8" (kernel style).
std::string format_cpu_list(const std::vector<int>& cpus);

}  // namespace zc
