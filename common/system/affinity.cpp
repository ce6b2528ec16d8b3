#include "system/affinity.hpp"

#include <pthread.h>
#include <sched.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "system/cpu_list.hpp"
#include "system/run_dir.hpp"

namespace zc {

std::vector<int> allowed_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> out;
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return out;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set)) out.push_back(c);
    return out;
}

std::vector<int> online_cpus(const std::string& sysfs) {
    std::string text = read_small_file(sysfs + "/devices/system/cpu/online");
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    try {
        if (!text.empty()) return parse_cpu_list(text);
    } catch (const std::exception&) {}
    return allowed_cpus();
}

void pin_current_thread(int cpu) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) throw std::runtime_error("CPU " + std::to_string(cpu) + " is out of range");
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    int rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    if (rc != 0) {
        throw std::runtime_error("cannot pin a thread to CPU " + std::to_string(cpu) + " (" + std::strerror(rc) +
                                 "); CPUs available here: " + format_cpu_list(allowed_cpus()));
    }
}

int current_cpu() { return sched_getcpu(); }

}  // namespace zc
