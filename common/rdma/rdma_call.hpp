#pragma once
// What the three files of an RDMA connection share (rdma_connection.cpp: the connection's device, CQ
// and QPs; rdma_cm_connect.cpp: connecting and accepting them over rdma_cm; rdma_device.cpp: the
// device's facts): a failed call's message, and an MTU in bytes.
#include <infiniband/verbs.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace zc::rdma_call {

// "WHAT: strerror(errno)".
inline std::string err(const std::string& what) { return what + ": " + std::strerror(errno); }

inline int mtu_bytes(ibv_mtu m) { return m >= IBV_MTU_256 && m <= IBV_MTU_4096 ? 256 << (m - IBV_MTU_256) : 0; }

}  // namespace zc::rdma_call
