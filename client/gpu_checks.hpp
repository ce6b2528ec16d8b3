#pragma once
// GPU-related client steps: the --gpu-copy-bandwidth reference measurement, and checking that a
// server offers the buffer memory asked of it before any test is set up.
#include <ostream>
#include <string>

#include "core/buffer_spec.hpp"
#include "system/host_info.hpp"

namespace zc {

// Prints cudaMemcpy's host<->GPU bandwidth for each local GPU (human or json); returns the exit status.
int write_gpu_copy_bandwidth(std::ostream& out, std::ostream& err, const std::string& format);

// "" when the server lists the memory type in its welcome, else what is wrong and what to do.
std::string remote_memory_problem(const HostInfo& server, const BufferSpec& wanted);

}  // namespace zc
