#pragma once
// NUMA placement of data buffers: bind a thread's allocations to a node, and read back where the
// pages really are (move_pages in query mode) rather than trusting the request.
#include <cstddef>
#include <map>
#include <vector>

namespace zc {

std::vector<int> numa_node_list();  // nodes with memory, ascending; {0} without NUMA support

// Binds the calling thread's future allocations to `node` (set_mempolicy MPOL_BIND). The policy
// dies with the thread. Throws std::invalid_argument listing the nodes there are.
void bind_thread_memory(int node);

// node -> pages of [p, p+len) resident there (pages not yet faulted in are left out).
std::map<int, size_t> page_nodes(const void* p, size_t len);

}  // namespace zc
