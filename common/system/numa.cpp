#include "system/numa.hpp"

#include <numa.h>
#include <numaif.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "system/cpu_list.hpp"

namespace zc {

std::vector<int> numa_node_list() {
    std::vector<int> nodes;
    if (numa_available() < 0) return {0};
    for (int n = 0; n <= numa_max_node(); ++n)
        if (numa_bitmask_isbitset(numa_nodes_ptr, n)) nodes.push_back(n);
    return nodes;
}

void bind_thread_memory(int node) {
    auto nodes = numa_node_list();
    bool known = false;
    for (int n : nodes) known |= n == node;
    if (!known) {
        throw std::invalid_argument("NUMA node " + std::to_string(node) +
                                    " does not exist on this host; its nodes are " + format_cpu_list(nodes));
    }
    unsigned long mask[16] = {};
    mask[node / (8 * sizeof(unsigned long))] |= 1ul << (node % (8 * sizeof(unsigned long)));
    if (set_mempolicy(MPOL_BIND, mask, sizeof(mask) * 8) != 0) {
        throw std::runtime_error("cannot bind memory to NUMA node " + std::to_string(node) + ": " +
                                 std::strerror(errno));
    }
}

std::map<int, size_t> page_nodes(const void* p, size_t len) {
    std::map<int, size_t> out;
    if (!p || len == 0) return out;
    size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    auto start = reinterpret_cast<uintptr_t>(p) / page * page;
    auto end = reinterpret_cast<uintptr_t>(p) + len;
    std::vector<void*> pages;
    for (uintptr_t a = start; a < end; a += page) pages.push_back(reinterpret_cast<void*>(a));
    std::vector<int> status(pages.size(), -1);
    // nodes == NULL: query only, nothing moves.
    if (move_pages(0, pages.size(), pages.data(), nullptr, status.data(), 0) != 0) return out;
    for (int s : status)
        if (s >= 0) ++out[s];
    return out;
}

}  // namespace zc
