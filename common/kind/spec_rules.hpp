#pragma once
// What may run, and what it costs: one check of a test's half against the transport table's
// capabilities, used by zcperf (both halves, before anything connects), by zcserver (its half, at
// setup) and by the path factory; and the buffer memory one stream allocates, which the server
// checks against its limit.
#include <cstdint>
#include <string>

#include "protocol/run_spec.hpp"

namespace zc {

// Why this side cannot run this test ("" when it can), in words that say what to use instead: the
// test kind on the transport, the message tests' options, and this side's --buffer and --gpu-path
// for the role it plays.
std::string spec_problem(const HalfSpec& half, Role role);
// Both sides of a whole test, the client's side first.
std::string spec_problem(const TestSpec& spec);

// Why msgrate cannot use this --buffer ("" when it can): its sender batches host messages.
std::string msgrate_buffer_problem(const BufferSpec& b);

// Whether a transport can have the NIC DMA into GPU memory itself (GPUDirect RDMA): its row's gpu_direct.
bool path_can_dma_gpu(Transport t);

// Buffer memory one stream of this half allocates in the given role (what a server checks against
// its limit): with GPU memory, the bounce slots and the GPU buffer both count.
uint64_t buffer_bytes(const HalfSpec& half, Role role);

// The parts the operations tables size their buffers with (transport_ops.hpp, buffer_bytes):
// a verbs or riomap receiver's ring of slots, bounded to 64 MiB per stream, 2 slots at least (rdma/wire.hpp);
uint64_t rdma_ring_bytes(uint64_t message_size);
// the pinned bounce slots of a staged socket stream plus the GPU buffer they stage (staged_stream.hpp);
uint64_t staged_socket_bytes(uint64_t message_size);
// a socket message test's buffer: rr's message (and its bounce slot), msgrate's message or receive chunk;
inline constexpr uint64_t kMsgrateReceiveChunk =
    64 * 1024;  // bytes per recv: the receiver must not be what is measured
uint64_t message_test_bytes(const HalfSpec& half, Role role);

}  // namespace zc
