#include "system/affinity.hpp"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

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
    try {  // parse_cpu_list drops the file's newline; "" (unreadable) parses to no CPUs
        auto online = parse_cpu_list(read_small_file(sysfs + "/devices/system/cpu/online"));
        if (!online.empty()) return online;
    } catch (const std::exception&) {}
    std::vector<int> all;  // the host's count, numbered from 0, not this process's binding
    for (long i = 0; i < sysconf(_SC_NPROCESSORS_ONLN); ++i) all.push_back(static_cast<int>(i));
    return all;
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
